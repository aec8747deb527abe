internal import CWebP
import GifxTimeline

/// One parsed WebP container: the file mapped read-only and libwebp's demuxer over it (the demuxer keeps
/// a few dozen bytes per frame and points into the mapping; no pixel is decoded here). A file cut short is
/// demuxed partially: the frames whose data is complete are kept (`isTruncated`).
final class WebPContainer {
    let file: MappedFile
    let demuxer: OpaquePointer
    let canvas: CanvasSize
    let isAnimated: Bool
    let loopCount: Int?
    let isTruncated: Bool

    init(path: String) throws {
        file = try MappedFile(path: path, format: .webp)
        var data = WebPData(bytes: file.bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), size: file.bytes.count)
        var state = WEBP_DEMUX_PARSING_HEADER
        guard let demuxer = WebPDemuxPartial(&data, &state) else {
            throw GifDecodeError(
                state == WEBP_DEMUX_PARSING_HEADER ? .truncated : .malformed, at: 0,
                state == WEBP_DEMUX_PARSING_HEADER
                    ? "the data ends inside the RIFF header" : "libwebp's demuxer refuses the container",
                format: .webp)
        }
        self.demuxer = demuxer
        isTruncated = state != WEBP_DEMUX_DONE
        canvas = CanvasSize(
            width: Int(WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_WIDTH)),
            height: Int(WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_HEIGHT)))
        isAnimated = WebPDemuxGetI(demuxer, WEBP_FF_FORMAT_FLAGS) & UInt32(ANIMATION_FLAG.rawValue) != 0
        loopCount = isAnimated ? Int(WebPDemuxGetI(demuxer, WEBP_FF_LOOP_COUNT)) : nil
    }

    deinit { WebPDemuxDelete(demuxer) }

    /// One frame's fields as its ANMF chunk stores them, and where its bitstream (ALPH + VP8, or VP8L) is.
    struct FrameRecord {
        var rect: PixelRect
        var duration: Int
        var disposeBackground: Bool
        var blend: Bool
        var fragmentOffset: Int
        var fragmentSize: Int
    }

    /// Every complete frame of an animated file, in order, walking the top-level chunks once (libwebp's
    /// `WebPDemuxNextFrame` looks each frame up from the first, O(n) per frame: quadratic on 100k frames).
    /// The demuxer has validated the container; this reads the ANMF fields it validated.
    func animationFrames() -> [FrameRecord] {
        let bytes = file.bytes
        var records: [FrameRecord] = []
        func le(_ at: Int, _ count: Int) -> Int {
            (0..<count).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) }
        }
        var offset = 12
        while offset + 8 <= bytes.count {
            let size = le(offset + 4, 4)
            let payload = offset + 8
            guard payload + size <= bytes.count else { break }  // cut short: not complete
            if bytes[offset] == 0x41, bytes[offset + 1] == 0x4E, bytes[offset + 2] == 0x4D, bytes[offset + 3] == 0x46,
                size >= 16
            {  // "ANMF"
                let flags = bytes[payload + 15]
                let fragment = payload + 16
                records.append(
                    FrameRecord(
                        rect: PixelRect(
                            x: 2 * le(payload, 3), y: 2 * le(payload + 3, 3), width: le(payload + 6, 3) + 1,
                            height: le(payload + 9, 3) + 1),
                        duration: le(payload + 12, 3), disposeBackground: flags & 1 != 0, blend: flags & 2 == 0,
                        fragmentOffset: fragment, fragmentSize: payload + size - fragment))
            }
            offset = payload + size + (size & 1)
        }
        return records
    }

    /// Byte offset of `pointer` (inside the mapping) from the file's start.
    func offset(of pointer: UnsafePointer<UInt8>?) -> Int {
        guard let pointer, let base = file.bytes.baseAddress else { return 0 }
        return UnsafeRawPointer(pointer) - base
    }
}

/// The WebP container's structure as `AnimationMetadata`: canvas, loop count, and per frame its rect, stored
/// delay (ms), disposal (`.background` or `.none`) and the offset of its bitstream. No pixel is decoded.
enum WebPMetadataReader {
    static func read(path: String, limits: DecodeLimits) throws -> AnimationMetadata {
        let container = try WebPContainer(path: path)
        let canvas = container.canvas
        if canvas.width <= 0 || canvas.height <= 0 {
            throw GifDecodeError(
                .malformed, at: 0, "canvas is \(canvas.width)×\(canvas.height): a WebP needs at least one pixel",
                format: .webp)
        }
        try checking(.webp) { try limits.check(width: canvas.width, height: canvas.height, what: "canvas", at: 0) }
        var images = GifImageList()
        var iterator = WebPIterator()
        var warnings: [String] = []
        var isTruncated = container.isTruncated
        if container.isAnimated {
            // The demuxer counted the frames it parsed (a last one may be incomplete in a cut file).
            let parsed = Int(WebPDemuxGetI(container.demuxer, WEBP_FF_FRAME_COUNT))
            let records = container.animationFrames()
            if !isTruncated && records.count != parsed {
                throw GifDecodeError(
                    .malformed, at: 12, "\(records.count) ANMF chunks where libwebp's demuxer found \(parsed) frames",
                    format: .webp)
            }
            for record in records.prefix(parsed) {
                try checking(.webp) {
                    try limits.check(
                        width: record.rect.width, height: record.rect.height, what: "frame \(images.count)",
                        at: record.fragmentOffset)
                }
                images.append(
                    GifImageInfo(
                        descriptor: FrameDescriptor(
                            rawDelay: record.duration, rect: record.rect,
                            disposal: record.disposeBackground ? .background : .none),
                        localPaletteSize: nil, byteOffset: record.fragmentOffset))
            }
        } else if WebPDemuxGetFrame(container.demuxer, 1, &iterator) != 0 {
            defer { WebPDemuxReleaseIterator(&iterator) }
            repeat {
                let at = container.offset(of: iterator.fragment.bytes)
                if iterator.complete == 0 {
                    isTruncated = true
                    break
                }
                try checking(.webp) {
                    try limits.check(
                        width: Int(iterator.width), height: Int(iterator.height), what: "frame \(images.count)", at: at)
                }
                images.append(
                    GifImageInfo(
                        descriptor: FrameDescriptor(
                            rawDelay: Int(iterator.duration),
                            rect: PixelRect(
                                x: Int(iterator.x_offset), y: Int(iterator.y_offset), width: Int(iterator.width),
                                height: Int(iterator.height)),
                            disposal: iterator.dispose_method == WEBP_MUX_DISPOSE_BACKGROUND ? .background : .none),
                        localPaletteSize: nil, byteOffset: at))
            } while WebPDemuxNextFrame(&iterator) != 0
        }
        if isTruncated {
            guard !images.isEmpty, !limits.strict else {
                throw GifDecodeError(
                    .truncated, at: container.file.bytes.count,
                    images.isEmpty ? "the data ends before the first frame is complete" : "the data ends inside a frame",
                    format: .webp)
            }
            let kept = images.count == 1 ? "1 frame" : "\(images.count) frames"
            warnings.append(
                "truncated WebP at byte \(container.file.bytes.count): the data ends inside a frame; keeping the \(kept) read before it")
        }
        guard !images.isEmpty else {
            throw GifDecodeError(.malformed, at: 12, "the file contains no frame", format: .webp)
        }
        var metadata = AnimationMetadata(
            canvas: canvas, backgroundIndex: 0, globalPaletteSize: nil, loopCount: container.loopCount,
            images: images, warnings: warnings, isTruncated: isTruncated)
        metadata.format = .webp
        return metadata
    }
}

/// Runs `body`, giving a `GifDecodeError` it throws the container `format` (the limits are worded per format).
func checking(_ format: SourceFormat, _ body: () throws -> Void) throws {
    do { try body() } catch var error as GifDecodeError {
        error.format = format
        throw error
    }
}

/// Decodes a WebP frame by frame with libwebp (`WebPDecode` of each frame's bitstream into a frame-sized
/// buffer) and composites it by WebP's rules exactly as libwebp's `WebPAnimDecoder` does in `MODE_RGBA`,
/// byte for byte: a frame is blended (`blend_method` BLEND, the non-premultiplied integer formula of
/// anim_decode.c) over the previous canvas unless it is a key frame; disposal BACKGROUND clears the frame's
/// rect to transparent (the background colour is a hint every browser ignores). Holds one canvas and one
/// frame buffer (libwebp's decoder holds two canvases and copies both whole each frame).
final class WebPFrameDecoder: FrameSource {
    let metadata: AnimationMetadata
    private let limits: DecodeLimits
    private let container: WebPContainer
    private var iterator = WebPIterator()
    private var iteratorValid = false
    private let screen: UnsafeMutablePointer<UInt32>
    private let frame: UnsafeMutablePointer<UInt32>
    private let width: Int
    private let height: Int
    private var nextIndex = 0
    /// The previous frame: rect, disposal and whether it was a key frame (libwebp's `IsKeyFrame` needs them).
    private var previous: (rect: PixelRect, background: Bool, key: Bool)?
    private var warningLog = WarningLog()
    var warnings: [String] { warningLog.lines }
    var warningTotal: Int { warningLog.total }

    init(path: String, metadata: AnimationMetadata, limits: DecodeLimits) throws {
        container = try WebPContainer(path: path)
        guard container.canvas == metadata.canvas else {
            throw GifDecodeError(.malformed, at: 0, "the file changed since its metadata was read", format: .webp)
        }
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
        if iteratorValid { WebPDemuxReleaseIterator(&iterator) }
        screen.deallocate()
        frame.deallocate()
    }

    func advance() throws -> Bool {
        guard nextIndex < metadata.images.count else { return false }
        let index = nextIndex
        nextIndex += 1
        // The frame: from the ANMF walk (animated), or the demuxer's one frame (a still image).
        let frameInfo: (rect: PixelRect, at: Int, size: Int, blend: Bool, disposeBackground: Bool)
        if container.isAnimated {
            // The ANMF chunk around the bitstream the metadata points at: 8-byte chunk header, 16 bytes of
            // fields (the flags last), then the bitstream to the chunk's end.
            let info = metadata.images[index]
            let bytes = container.file.bytes
            let at = info.byteOffset
            guard at >= 24, at <= bytes.count else {
                throw GifDecodeError(.malformed, at: at, "the file changed since its metadata was read", format: .webp)
            }
            let chunkSize = (0..<4).reduce(0) { $0 | Int(bytes[at - 20 + $1]) << (8 * $1) }
            let flags = bytes[at - 1]
            frameInfo = (
                info.descriptor.rect, at, Swift.min(chunkSize - 16, bytes.count - at), flags & 2 == 0, flags & 1 != 0
            )
        } else {
            guard index == 0, WebPDemuxGetFrame(container.demuxer, 1, &iterator) != 0 else {
                throw GifDecodeError(.malformed, at: 12, "the file contains no frame", format: .webp)
            }
            iteratorValid = true
            frameInfo = (
                PixelRect(
                    x: Int(iterator.x_offset), y: Int(iterator.y_offset), width: Int(iterator.width),
                    height: Int(iterator.height)),
                container.offset(of: iterator.fragment.bytes), iterator.fragment.size,
                iterator.blend_method == WEBP_MUX_BLEND, iterator.dispose_method == WEBP_MUX_DISPOSE_BACKGROUND
            )
        }
        let rect = frameInfo.rect
        let at = frameInfo.at
        let fragment = container.file.bytes.baseAddress!.assumingMemoryBound(to: UInt8.self) + at
        // libwebp's demuxer sets a frame's has_alpha from its bitstream's features (ALPH chunk, VP8L alpha bit).
        var features = WebPBitstreamFeatures()
        let hasAlpha = WebPGetFeatures(fragment, frameInfo.size, &features) == VP8_STATUS_OK && features.has_alpha != 0
        guard rect.x + rect.width <= width, rect.y + rect.height <= height else {
            throw GifDecodeError(.malformed, at: at, "frame \(index) reaches outside the canvas", format: .webp)
        }
        // The previous frame's disposal, then libwebp's key-frame rule (anim_decode.c, IsKeyFrame).
        let full = rect.width == width && rect.height == height
        let key: Bool
        if let previous {
            if previous.background { clear(previous.rect) }
            key = ((!hasAlpha || !frameInfo.blend) && full)
                || (previous.background
                    && ((previous.rect.width == width && previous.rect.height == height) || previous.key))
        } else {
            key = true
        }
        if key { screen.update(repeating: 0, count: width * height) }
        let decoded = decode(rect: rect, bytes: fragment, size: frameInfo.size)
        if decoded {
            let blend = index > 0 && frameInfo.blend && !key
            draw(rect, blend: blend, skipping: blend && previous?.background == true ? previous?.rect : nil)
        } else {
            let error = GifDecodeError(.malformed, at: at, "frame \(index): libwebp cannot decode its bitstream", format: .webp)
            if limits.strict { throw error }
            warningLog.append("\(error.description); the frame shows the canvas before it")
        }
        previous = (rect, frameInfo.disposeBackground, key)
        return true
    }

    func copyCanvas(to destination: UnsafeMutableRawPointer) {
        destination.copyMemory(from: screen, byteCount: width * height * 4)
    }

    /// Decodes the frame's bitstream into `frame` (rect-sized RGBA, straight alpha); false when libwebp fails.
    private func decode(rect: PixelRect, bytes: UnsafePointer<UInt8>?, size: Int) -> Bool {
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else { return false }
        config.output.colorspace = MODE_RGBA
        config.output.is_external_memory = 1
        config.output.u.RGBA.rgba = UnsafeMutableRawPointer(frame).assumingMemoryBound(to: UInt8.self)
        config.output.u.RGBA.stride = Int32(rect.width * 4)
        config.output.u.RGBA.size = rect.width * rect.height * 4
        guard WebPDecode(bytes, size, &config) == VP8_STATUS_OK else { return false }
        // The bitstream's own size must be the frame's (libwebp checks it against the output buffer).
        return true
    }

    private func clear(_ rect: PixelRect) {
        for y in rect.y..<(rect.y + rect.height) {
            (screen + (y * width + rect.x)).update(repeating: 0, count: rect.width)
        }
    }

    /// Puts the decoded frame on the screen: copied, or (blend) each pixel that is not opaque blended over
    /// the screen, except inside `skipping` (the previous frame's rect, cleared by its disposal), where
    /// libwebp keeps the decoded pixel as it is.
    private func draw(_ rect: PixelRect, blend: Bool, skipping: PixelRect?) {
        for row in 0..<rect.height {
            let y = rect.y + row
            let source = frame + row * rect.width
            let destination = screen + (y * width + rect.x)
            guard blend else {
                destination.update(from: source, count: rect.width)
                continue
            }
            // Columns [x0, x1) of this row inside `skipping` keep the decoded pixels.
            var x0 = rect.width, x1 = rect.width
            if let skip = skipping, y >= skip.y, y < skip.y + skip.height {
                x0 = Swift.min(rect.width, Swift.max(0, skip.x - rect.x))
                x1 = Swift.min(rect.width, Swift.max(0, skip.x + skip.width - rect.x))
            }
            for k in 0..<rect.width {
                let src = source[k]
                if src >> 24 == 0xFF || (k >= x0 && k < x1) {
                    destination[k] = src
                } else {
                    destination[k] = Self.blend(src, over: destination[k])
                }
            }
        }
    }

    /// anim_decode.c's `BlendPixelNonPremult`: little-endian RGBA words, alpha in the top byte.
    @inline(__always)
    static func blend(_ src: UInt32, over dst: UInt32) -> UInt32 {
        let srcA = src >> 24
        if srcA == 0 { return dst }
        let dstA = dst >> 24
        let dstFactorA = (dstA * (256 - srcA)) >> 8
        let blendA = (srcA + dstFactorA) & 0xFF
        let scale = (UInt32(1) << 24) / blendA
        var result = blendA << 24
        for shift in stride(from: UInt32(0), to: 24, by: 8) {
            let s = (src >> shift) & 0xFF, d = (dst >> shift) & 0xFF
            let unscaled = s * srcA + d * dstFactorA
            result |= ((unscaled &* scale) >> 24) << shift
        }
        return result
    }
}
