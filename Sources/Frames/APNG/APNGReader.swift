internal import CPng
import GifxTimeline

/// One frame of an APNG as the walk found it: its control (rect, delay, ops) and its compressed data, as
/// slices of the mapped file (IDAT data, or fdAT data without the sequence number).
struct APNGFrame {
    var control: FrameControl
    /// Offset of the fcTL chunk (of the IDAT for a still image): where errors about the frame point.
    var offset: Int
    var data: [UnsafeRawBufferPointer]
}

/// Walks an APNG's chunks in file order and hands out its animation frames, one when its data is
/// complete (at the next fcTL or IEND). Checks every CRC and the fcTL/fdAT sequence numbers. The default
/// image (IDAT) is frame 0 only when an fcTL precedes it; otherwise it is not part of the animation. A
/// PNG without acTL (or whose acTL names no frame) is one frame: its image. A first frame's dispose_op
/// PREVIOUS is read as BACKGROUND (the APNG spec; browsers and FFmpeg do the same).
struct APNGWalker {
    private var reader: PNGChunkReader
    private(set) var header: PNGHeader?
    private(set) var palette: UnsafeRawBufferPointer?
    private(set) var transparency: UnsafeRawBufferPointer?
    /// acTL: frames and plays, `nil` for a still PNG.
    private(set) var animation: (frames: Int, plays: Int)?
    private var expectedSequence: UInt32 = 0
    private var pending: (control: FrameControl, offset: Int)?
    private var pendingData: [UnsafeRawBufferPointer] = []
    private var defaultImage: [UnsafeRawBufferPointer] = []
    private var defaultImageOffset = 0
    private var sawIDAT = false
    private var sawFdAT = false
    /// A second acTL made the animation invalid: the file is shown as its default image (as Chromium,
    /// FFmpeg and Pillow show `chunk_multi_actl.png` of the APNG conformance tests).
    private(set) var ignoresAnimation = false
    private var finished = false
    /// Damage found while closing a frame: thrown on the next call, after that frame is handed out.
    private var deferred: (any Error)?
    private(set) var framesHandedOut = 0

    init(bytes: UnsafeRawBufferPointer) throws {
        reader = try PNGChunkReader(bytes: bytes)
    }

    /// Offset of the next unread byte.
    var offset: Int { reader.offset }

    /// The next frame, `nil` after the last. Throws at damage (the frames handed out before it stand).
    mutating func next() throws -> APNGFrame? {
        if let deferred {
            self.deferred = nil
            finished = true
            throw deferred
        }
        while !finished {
            let read: PNGChunk?
            do {
                read = try reader.next()
            } catch {
                // A damaged fcTL or IEND still closes the frame before it: that frame's data is complete.
                if reader.failedType == PNGChunk.fcTL || reader.failedType == PNGChunk.IEND,
                    let done = try? finishPending()
                {
                    deferred = error
                    return done
                }
                throw error
            }
            guard let chunk = read else {
                throw GifDecodeError(.truncated, at: reader.bytes.count, "the data ends before IEND", format: .apng)
            }
            if header == nil {
                guard chunk.type == PNGChunk.IHDR else {
                    throw GifDecodeError(.malformed, at: chunk.offset, "the first chunk is not IHDR", format: .apng)
                }
                header = try PNGHeader(chunk)
                continue
            }
            switch chunk.type {
            case PNGChunk.PLTE where !sawIDAT:
                palette = chunk.data
            case PNGChunk.tRNS where !sawIDAT:
                transparency = chunk.data
            case PNGChunk.acTL where !sawIDAT && (animation != nil || ignoresAnimation):
                animation = nil
                ignoresAnimation = true
                pending = nil
                pendingData = []
            case PNGChunk.acTL where !sawIDAT:
                guard chunk.data.count == 8 else {
                    throw GifDecodeError(.malformed, at: chunk.offset, "acTL is not 8 bytes", format: .apng)
                }
                animation = (Int(chunk.u32(0)), Int(chunk.u32(4)))
            // An fcTL before the acTL (still before the image data) counts, as Pillow reads `fctl_actl.png`
            // of the APNG conformance tests (its pass colour is the animation's last frame).
            case PNGChunk.fcTL where animation != nil || (!sawIDAT && !ignoresAnimation):
                // The frame before ends here, whatever this fcTL holds.
                let done = try finishPending()
                do {
                    let control = try FrameControl(chunk)
                    try checkSequence(control.sequence, at: chunk.offset)
                    try check(control.rect, at: chunk.offset)
                    pending = (control, chunk.offset)
                } catch {
                    guard let done else { throw error }
                    deferred = error
                    return done
                }
                if let done { return done }
            case PNGChunk.IDAT:
                if !sawIDAT { defaultImageOffset = chunk.offset }
                sawIDAT = true
                defaultImage.append(chunk.data)
                // The default image is frame 0 when an fcTL came first.
                if pending != nil && !sawFdAT && framesHandedOut == 0 { pendingData.append(chunk.data) }
            case PNGChunk.fdAT where animation != nil:
                guard chunk.data.count >= 4 else {
                    throw GifDecodeError(.malformed, at: chunk.offset, "fdAT shorter than its sequence number", format: .apng)
                }
                try checkSequence(chunk.u32(0), at: chunk.offset)
                guard pending != nil else {
                    throw GifDecodeError(.malformed, at: chunk.offset, "fdAT without an fcTL before it", format: .apng)
                }
                sawFdAT = true
                pendingData.append(UnsafeRawBufferPointer(rebasing: chunk.data[4...]))
            case PNGChunk.IEND:
                finished = true
                if animation == nil {
                    // An fcTL without any acTL: a still PNG after all.
                    pending = nil
                    pendingData = []
                }
                if let done = try finishPending() { return done }
                if framesHandedOut == 0, let header, !defaultImage.isEmpty {
                    // A still PNG (or an acTL without frames: browsers show the image).
                    framesHandedOut = 1
                    return APNGFrame(
                        control: FrameControl(
                            sequence: 0, rect: PixelRect(x: 0, y: 0, width: header.width, height: header.height),
                            delayNumerator: 0, delayDenominator: 0, dispose: 0, blend: 0),
                        offset: defaultImageOffset, data: defaultImage)
                }
            default:
                break
            }
        }
        return nil
    }

    /// The pending frame once its data is complete; `nil` when there is none.
    private mutating func finishPending() throws -> APNGFrame? {
        guard let (control, at) = pending else { return nil }
        guard !pendingData.isEmpty else {
            throw GifDecodeError(.malformed, at: at, "frame \(framesHandedOut) has no image data", format: .apng)
        }
        var first = control
        if framesHandedOut == 0 && first.dispose == 2 { first.dispose = 1 }
        let frame = APNGFrame(control: first, offset: at, data: pendingData)
        pending = nil
        pendingData = []
        framesHandedOut += 1
        return frame
    }

    private mutating func checkSequence(_ sequence: UInt32, at offset: Int) throws {
        guard sequence == expectedSequence else {
            throw GifDecodeError(
                .malformed, at: offset, "sequence number \(sequence) where \(expectedSequence) was expected",
                format: .apng)
        }
        expectedSequence &+= 1
    }

    private func check(_ rect: PixelRect, at offset: Int) throws {
        guard let header else { return }
        guard rect.width > 0, rect.height > 0, rect.x + rect.width <= header.width,
            rect.y + rect.height <= header.height
        else {
            throw GifDecodeError(
                .malformed, at: offset,
                "frame \(framesHandedOut) (\(rect.width)×\(rect.height) at \(rect.x),\(rect.y)) is not inside the "
                    + "\(header.width)×\(header.height) canvas", format: .apng)
        }
    }
}

/// The APNG's structure as `AnimationMetadata`: canvas, plays (acTL num_plays), and per frame its rect, delay
/// (num in `rawDelay`, den in `delayDenominators`) and dispose op. Reads chunk headers and checks CRCs
/// (CRC-32 over the bytes, no inflate).
enum APNGMetadataReader {
    static func read(path: String, limits: DecodeLimits) throws -> AnimationMetadata {
        let file = try MappedFile(path: path, format: .apng)
        var walker = try APNGWalker(bytes: file.bytes)
        var images = GifImageList()
        var denominators: [UInt16] = []
        var warnings: [String] = []
        var isTruncated = false
        var canvas: CanvasSize?
        do {
            while let frame = try walker.next() {
                if canvas == nil, let header = walker.header {
                    let size = CanvasSize(width: header.width, height: header.height)
                    if size.width <= 0 || size.height <= 0 {
                        throw GifDecodeError(
                            .malformed, at: 16, "canvas is \(size.width)×\(size.height): a PNG needs at least one pixel",
                            format: .apng)
                    }
                    try checking(.apng) { try limits.check(width: size.width, height: size.height, what: "canvas", at: 16) }
                    canvas = size
                }
                let control = frame.control
                images.append(
                    GifImageInfo(
                        descriptor: FrameDescriptor(
                            rawDelay: Int(control.delayNumerator), rect: control.rect,
                            disposal: [Disposal.none, .background, .previous][Int(control.dispose)]),
                        localPaletteSize: nil, byteOffset: frame.offset))
                denominators.append(control.delayDenominator)
            }
        } catch let error as GifDecodeError {
            guard !images.isEmpty, !limits.strict, error.kind == .truncated || error.kind == .malformed else { throw error }
            isTruncated = true
            let kept = images.count == 1 ? "1 frame" : "\(images.count) frames"
            warnings.append("\(error.description); keeping the \(kept) read before it")
        }
        guard let canvas, !images.isEmpty else {
            throw GifDecodeError(.malformed, at: walker.offset, "the file contains no image", format: .apng)
        }
        if walker.ignoresAnimation {
            warnings.append("more than one acTL chunk: the animation is invalid; showing the default image")
        }
        var metadata = AnimationMetadata(
            canvas: canvas, backgroundIndex: 0, globalPaletteSize: nil, loopCount: walker.animation?.plays,
            images: images, warnings: warnings, isTruncated: isTruncated)
        metadata.format = .apng
        metadata.delayDenominators = denominators
        return metadata
    }
}

/// Decodes an APNG frame by frame (each frame's data through libpng, as a PNG of the frame's size) and
/// composites it by APNG's ops on 8-bit sRGB values without linearising: dispose NONE, BACKGROUND (clear to
/// transparent), PREVIOUS (restore the rect), blend SOURCE (replace) and OVER (FFmpeg's apng integer
/// formula, `blend_frame` in libavcodec/pngdec.c). Holds the screen, one frame buffer and, for PREVIOUS,
/// one saved screen.
final class APNGFrameDecoder: FrameSource {
    let metadata: AnimationMetadata
    private let limits: DecodeLimits
    private let file: MappedFile
    private var walker: APNGWalker
    private let width: Int, height: Int
    private let screen: UnsafeMutablePointer<UInt32>
    private var saved: UnsafeMutablePointer<UInt32>?
    private let frame: UnsafeMutablePointer<UInt32>
    private var stream: [UInt8] = []
    private var nextIndex = 0
    private var pendingDisposal: (dispose: UInt8, rect: PixelRect)?
    private var warningLog = WarningLog()
    var warnings: [String] { warningLog.lines }
    var warningTotal: Int { warningLog.total }

    init(path: String, metadata: AnimationMetadata, limits: DecodeLimits) throws {
        file = try MappedFile(path: path, format: .apng)
        walker = try APNGWalker(bytes: file.bytes)
        self.metadata = metadata
        self.limits = limits
        width = metadata.canvas.width
        height = metadata.canvas.height
        screen = .allocate(capacity: width * height)
        screen.initialize(repeating: 0, count: width * height)
        let largest = metadata.images.descriptors.lazy.map { $0.rect.width * $0.rect.height }.max() ?? 1
        frame = .allocate(capacity: Swift.max(1, largest))
    }

    deinit {
        screen.deallocate()
        saved?.deallocate()
        frame.deallocate()
    }

    func advance() throws -> Bool {
        guard nextIndex < metadata.images.count else { return false }
        let index = nextIndex
        nextIndex += 1
        guard let next = try walker.next() else {
            throw GifDecodeError(.malformed, at: walker.offset, "frame \(index) is gone", format: .apng)
        }
        let control = next.control
        let rect = control.rect
        guard rect == metadata.images.descriptors[index].rect, let header = walker.header,
            header.width == width, header.height == height
        else { throw GifDecodeError(.malformed, at: next.offset, "the file changed since its metadata was read", format: .apng) }
        if let pending = pendingDisposal {
            switch pending.dispose {
            case 1: fill(pending.rect)
            case 2: if let saved { copy(pending.rect, from: saved, to: screen) }
            default: break
            }
        }
        if control.dispose == 2 { copy(rect, from: screen, to: savedBuffer()) }
        pendingDisposal = (control.dispose, rect)
        var error = [CChar](repeating: 0, count: 256)
        buildStream(next, header: header)
        let status = stream.withUnsafeBufferPointer { png in
            gifx_apng_decode_frame(
                png.baseAddress, png.count, UInt32(rect.width), UInt32(rect.height),
                UnsafeMutableRawPointer(frame).assumingMemoryBound(to: UInt8.self), &error)
        }
        if status != 0 {
            let reason = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let failure = GifDecodeError(.malformed, at: next.offset, "frame \(index): \(reason)", format: .apng)
            if limits.strict { throw failure }
            warningLog.append("\(failure.description); the frame shows the canvas before it")
            return true
        }
        draw(rect, over: control.blend == 1)
        return true
    }

    func copyCanvas(to destination: UnsafeMutableRawPointer) {
        destination.copyMemory(from: screen, byteCount: width * height * 4)
    }

    /// A PNG of the frame alone: signature, IHDR at the frame's size, PLTE, tRNS, the data as IDAT, IEND.
    private func buildStream(_ frame: APNGFrame, header: PNGHeader) {
        stream.removeAll(keepingCapacity: true)
        stream += [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var fields = header.fields
        for (at, value) in [(0, frame.control.rect.width), (4, frame.control.rect.height)] {
            for k in 0..<4 { fields[at + k] = UInt8(truncatingIfNeeded: value >> (24 - 8 * k)) }
        }
        fields.withUnsafeBytes { appendChunk(PNGChunk.IHDR, $0) }
        if let palette = walker.palette { appendChunk(PNGChunk.PLTE, palette) }
        if let transparency = walker.transparency { appendChunk(PNGChunk.tRNS, transparency) }
        for data in frame.data { appendChunk(PNGChunk.IDAT, data) }
        appendChunk(PNGChunk.IEND, UnsafeRawBufferPointer(start: nil, count: 0))
    }

    private func appendChunk(_ type: UInt32, _ data: UnsafeRawBufferPointer) {
        func be32(_ v: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }
        stream += be32(UInt32(data.count))
        let typeStart = stream.count
        stream += be32(type)
        stream += data
        let crc = stream.withUnsafeBufferPointer { gifx_crc32(0, $0.baseAddress! + typeStart, 4 + data.count) }
        stream += be32(crc)
    }

    private func draw(_ rect: PixelRect, over: Bool) {
        for row in 0..<rect.height {
            let source = frame + row * rect.width
            let destination = screen + ((rect.y + row) * width + rect.x)
            if !over {
                destination.update(from: source, count: rect.width)
                continue
            }
            for k in 0..<rect.width { destination[k] = Self.over(source[k], destination[k]) }
        }
    }

    /// FFmpeg's APNG_BLEND_OP_OVER on RGBA8 (libavcodec/pngdec.c, blend_frame), little-endian RGBA words.
    @inline(__always)
    static func over(_ fg: UInt32, _ bg: UInt32) -> UInt32 {
        let fa = fg >> 24
        if fa == 255 { return fg }
        if fa == 0 { return bg }
        let ba = bg >> 24
        func div255(_ x: UInt32) -> UInt32 { ((x + 128) &* 257) >> 16 }
        let oa = (fa + div255((255 - fa) * ba)) & 0xFF
        var result = oa << 24
        for shift in stride(from: UInt32(0), to: 24, by: 8) {
            let f = (fg >> shift) & 0xFF, b = (bg >> shift) & 0xFF
            let value: UInt32
            if oa == 0 {
                value = 0
            } else if ba == 255 {
                value = div255(fa * f + (255 - fa) * b)
            } else {
                value = (255 * fa * f + (255 - fa) * ba * b) / (255 * oa)
            }
            result |= (value & 0xFF) << shift
        }
        return result
    }

    private func fill(_ rect: PixelRect) {
        for y in rect.y..<(rect.y + rect.height) { (screen + (y * width + rect.x)).update(repeating: 0, count: rect.width) }
    }

    private func copy(_ rect: PixelRect, from source: UnsafeMutablePointer<UInt32>, to destination: UnsafeMutablePointer<UInt32>) {
        for y in rect.y..<(rect.y + rect.height) {
            let offset = y * width + rect.x
            (destination + offset).update(from: source + offset, count: rect.width)
        }
    }

    private func savedBuffer() -> UnsafeMutablePointer<UInt32> {
        if let saved { return saved }
        let buffer = UnsafeMutablePointer<UInt32>.allocate(capacity: width * height)
        buffer.initialize(repeating: 0, count: width * height)
        saved = buffer
        return buffer
    }
}
