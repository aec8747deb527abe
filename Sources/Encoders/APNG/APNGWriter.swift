internal import CPng
import Foundation
import GifxPOSIXFiles
import GifxPipeline
import GifxTimeline
import SystemPackage

/// How an APNG's pixels are stored: one palette for every frame (colour type 3, alpha in tRNS), or RGBA (colour
/// type 6); 8 bits either way. A small palette is not packed to 1, 2 or 4 bits: FFmpeg's APNG decoder draws such
/// frames wrong at a nonzero x offset (every pixel of the rectangle as entry 0), and deflate takes most of what
/// packing would save.
enum APNGPixelFormat {
    case indexed(SheetPalette)
    case rgba

    /// The IHDR bit depth.
    var bitDepth: Int { 8 }
}

/// A canvas pixel outside the palette: the sink starts the pass over in RGBA.
struct APNGPaletteMiss: Error {}

/// An animated PNG written as it is encoded, one pass, each frame's chunks once the next frame decides its delay.
///
/// - Frame 0 is the whole canvas and the default image (its fcTL precedes the IDAT), so a viewer without APNG
///   shows it.
/// - Every later frame is the bounding box of the pixels that changed, dispose NONE, blended SOURCE (the box's
///   pixels as they are) or, in RGBA, OVER (pixels that did not change made transparent; possible when every
///   changed pixel is opaque), whichever deflates smaller. Indexed frames are always SOURCE: FFmpeg's APNG decoder
///   refuses blending OVER on a palette image (its frames then come out wrong), and a palette's runs of unchanged
///   pixels deflate well as they are. A canvas identical to the one shown lengthens the frame before.
/// - Delays are exact: a frame lasts `units / timescale` s, written reduced as `delay_num/delay_den`; when
///   `delay_num` does not fit 16 bits, the rest follows as 1×1 frames that write the top-left pixel again
///   (blend SOURCE, no visible change). A denominator that cannot fit 16 bits even reduced (an APNG input whose
///   timescale is the lcm of many denominators) is written to the nearest ms.
/// - Each frame's rectangle is filtered and deflated by libpng as a PNG in memory (`gifx_apng_encode_rect`), whose
///   IDAT data is carried into IDAT (frame 0) or fdAT chunks with the file's sequence numbers and CRCs.
/// - acTL's frame count is known at the end: written as 0, then patched in place (the file is the output's own
///   temporary).
///
/// Memory: the canvas shown (4 bytes a pixel), two candidate rectangles (1 or 4 bytes a pixel each), the frame
/// waiting for its delay and the candidate being deflated, whatever the frame count.
final class APNGWriter {
    let width: Int
    let height: Int
    let format: APNGPixelFormat
    private let plays: Int
    private let timescale: Int
    private let level: Int
    private let descriptor: FileDescriptor
    private let name: String
    /// The canvas shown after the last frame added.
    private let shown: UnsafeMutablePointer<UInt32>
    private let candidateSource: UnsafeMutablePointer<UInt8>
    private let candidateOver: UnsafeMutablePointer<UInt8>
    private let bytesPerPixel: Int
    private let paletteBytes: [UInt8]
    private var sequence: UInt32 = 0
    private var buffer: [UInt8] = []
    private(set) var bytesWritten: Int64 = 0
    /// fcTL chunks written (frames in the file, 1×1 delay continuations included).
    private(set) var framesWritten = 0
    /// Canvases that became a frame of their own (not merged into the one before).
    private(set) var distinctFrames = 0
    /// Frames blended OVER, for the result.
    private(set) var blendedFrames = 0
    /// Sum of the frames' areas after the first, for the result (how much the rectangles saved).
    private(set) var subFramePixels = 0

    struct Rect: Equatable {
        var x: Int, y: Int, w: Int, h: Int
        var isEmpty: Bool { w == 0 || h == 0 }
    }

    /// The frame encoded but not written: it waits for the next frame's start (its delay).
    private struct Pending {
        var rect: Rect
        var over: Bool
        var start: Int
        var data: [UInt8]
    }
    private var pending: Pending?

    /// PNG chunk types.
    static let IHDR = Array("IHDR".utf8), acTL = Array("acTL".utf8), PLTE = Array("PLTE".utf8)
    static let tRNS = Array("tRNS".utf8), fcTL = Array("fcTL".utf8), IDAT = Array("IDAT".utf8)
    static let fdAT = Array("fdAT".utf8), IEND = Array("IEND".utf8)
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// Largest IDAT/fdAT payload written in one chunk.
    static let chunkLimit = 1 << 20
    /// acTL's offset in the file: after the signature and IHDR (8 + 25 bytes).
    static let acTLOffset: Int64 = 33

    /// Starts the file on `descriptor` (at its offset 0; the writer's own file): signature, IHDR, acTL (frame
    /// count patched at the end), PLTE and tRNS when indexed.
    init(
        width: Int, height: Int, format: APNGPixelFormat, plays: Int, timescale: Int, level: Int,
        descriptor: FileDescriptor, name: String
    ) throws {
        self.width = width
        self.height = height
        self.format = format
        self.plays = plays
        self.timescale = timescale
        self.level = level
        self.descriptor = descriptor
        self.name = name
        shown = .allocate(capacity: width * height)
        shown.initialize(repeating: 0, count: width * height)
        switch format {
        case .rgba:
            bytesPerPixel = 4
            paletteBytes = []
        case .indexed(let palette):
            bytesPerPixel = 1
            paletteBytes = palette.rgbaBytes
        }
        candidateSource = .allocate(capacity: width * height * bytesPerPixel)
        candidateOver = .allocate(capacity: width * height * bytesPerPixel)
        buffer.reserveCapacity(1 << 16)
        buffer += Self.signature
        var header = Self.be32(UInt32(width)) + Self.be32(UInt32(height))
        let colourType: UInt8 = if case .indexed = format { 3 } else { 6 }
        header += [UInt8(format.bitDepth), colourType, 0, 0, 0]
        chunk(Self.IHDR, header)
        chunk(Self.acTL, Self.be32(0) + Self.be32(UInt32(plays)))
        if case .indexed(let palette) = format {
            var rgb: [UInt8] = []
            var alpha: [UInt8] = []
            for entry in 0..<palette.entries.count {
                rgb += paletteBytes[entry * 4..<entry * 4 + 3]
                alpha.append(paletteBytes[entry * 4 + 3])
            }
            chunk(Self.PLTE, rgb)
            // tRNS up to the last entry that is not opaque.
            if let last = alpha.lastIndex(where: { $0 != 255 }) { chunk(Self.tRNS, Array(alpha[...last])) }
        }
        try flush()
    }

    deinit {
        shown.deallocate()
        candidateSource.deallocate()
        candidateOver.deallocate()
    }

    // MARK: Frames.

    /// Adds the canvas `pixels` (width × height RGBA words, rows packed) shown from `start` (units of
    /// 1/timescale s). Throws `APNGPaletteMiss` when indexed and a pixel of the canvas is not in the palette.
    func add(_ pixels: UnsafePointer<UInt32>, start: Int) throws {
        guard pending != nil else {
            let rect = Rect(x: 0, y: 0, w: width, h: height)
            try fill(candidateSource, from: pixels, rect, over: false)
            pending = Pending(rect: rect, over: false, start: start, data: try encode(candidateSource, rect))
            distinctFrames = 1
            shown.update(from: pixels, count: width * height)
            return
        }
        let rect = changeRect(pixels)
        // Nothing changed: the frame before lasts longer (its delay is measured to the next frame's start).
        guard !rect.isEmpty else { return }
        try fill(candidateSource, from: pixels, rect, over: false)
        let source = try encode(candidateSource, rect)
        var chosen = Pending(rect: rect, over: false, start: start, data: source)
        if overPossible(pixels, rect) {
            try fill(candidateOver, from: pixels, rect, over: true)
            let over = try encode(candidateOver, rect)
            if over.count < source.count { chosen = Pending(rect: rect, over: true, start: start, data: over) }
        }
        try writePending(until: start)
        pending = chosen
        distinctFrames += 1
        subFramePixels += rect.w * rect.h
        if chosen.over { blendedFrames += 1 }
        for y in rect.y..<rect.y + rect.h {
            (shown + y * width + rect.x).update(from: pixels + y * width + rect.x, count: rect.w)
        }
    }

    /// Ends the animation at `end` (units): the last frame lasts until then; patches acTL's frame count.
    func finish(end: Int) throws {
        guard pending != nil else { throw OutputError(path: name, reason: "APNG: no frames", failure: .internalError) }
        try writePending(until: end)
        chunk(Self.IEND, [])
        try flush()
        var actl: [UInt8] = []
        Self.appendChunk(Self.acTL, Self.be32(UInt32(framesWritten)) + Self.be32(UInt32(plays)), to: &actl)
        do {
            _ = try descriptor.writeAll(toAbsoluteOffset: Self.acTLOffset, actl)
        } catch {
            throw OutputError.writing(name, errno: (error as? Errno)?.rawValue ?? EIO)
        }
    }

    /// The bounding box of the pixels that differ from the canvas shown (empty when none does).
    private func changeRect(_ pixels: UnsafePointer<UInt32>) -> Rect {
        var top = -1, bottom = -1, left = width, right = -1
        for y in 0..<height {
            let row = pixels + y * width, old = shown + y * width
            if memcmp(row, old, width * 4) == 0 { continue }
            if top < 0 { top = y }
            bottom = y
            var x = 0
            while x < left && row[x] == old[x] { x += 1 }
            left = min(left, x)
            var r = width - 1
            while r > right && row[r] == old[r] { r -= 1 }
            right = max(right, r)
        }
        guard top >= 0 else { return Rect(x: 0, y: 0, w: 0, h: 0) }
        return Rect(x: left, y: top, w: right - left + 1, h: bottom - top + 1)
    }

    /// Whether blending OVER can draw the box: RGBA (see the type's comment), and every changed pixel opaque (OVER
    /// then replaces it).
    private func overPossible(_ pixels: UnsafePointer<UInt32>, _ rect: Rect) -> Bool {
        guard case .rgba = format else { return false }
        for y in rect.y..<rect.y + rect.h {
            let row = pixels + y * width, old = shown + y * width
            for x in rect.x..<rect.x + rect.w where row[x] != old[x] && UInt32(littleEndian: row[x]) >> 24 != 255 {
                return false
            }
        }
        return true
    }

    /// The box's rows for the encoder: the canvas's pixels as RGBA bytes (`over`: unchanged ones transparent) or
    /// palette indices, rows packed.
    private func fill(_ out: UnsafeMutablePointer<UInt8>, from pixels: UnsafePointer<UInt32>, _ rect: Rect, over: Bool) throws {
        switch format {
        case .rgba:
            let words = UnsafeMutableRawPointer(out).assumingMemoryBound(to: UInt32.self)
            for y in 0..<rect.h {
                let row = pixels + (rect.y + y) * width + rect.x, destination = words + y * rect.w
                if over {
                    let old = shown + (rect.y + y) * width + rect.x
                    for x in 0..<rect.w { destination[x] = row[x] == old[x] ? 0 : row[x] }
                } else {
                    destination.update(from: row, count: rect.w)
                }
            }
        case .indexed(let palette):
            for y in 0..<rect.h {
                let row = pixels + (rect.y + y) * width + rect.x
                guard palette.map(row, into: out + y * rect.w, count: rect.w) else { throw APNGPaletteMiss() }
            }
        }
    }

    /// The zlib stream of the box's rows (`rows`, packed), deflated by libpng.
    private func encode(_ rows: UnsafePointer<UInt8>, _ rect: Rect) throws -> [UInt8] {
        var data: UnsafeMutablePointer<UInt8>?
        var size = 0
        var error = [CChar](repeating: 0, count: 256)
        let indexed = bytesPerPixel == 1
        // Palette rows unfiltered (libpng's advice for indexed images); RGBA with libpng's adaptive choice of the five.
        let filters: Int32 = indexed ? 0x08 : 0xF8
        let strategy: Int32 = indexed ? 0 : 1  // Z_DEFAULT_STRATEGY, Z_FILTERED
        let status = paletteBytes.withUnsafeBufferPointer { palette in
            gifx_apng_encode_rect(
                rows, rect.w * bytesPerPixel, UInt32(rect.w), UInt32(rect.h), indexed ? palette.baseAddress : nil,
                Int32(indexed ? paletteBytes.count / 4 : 0), Int32(format.bitDepth), Int32(level), filters, strategy,
                &data, &size, &error)
        }
        defer { gifx_apng_free(data) }
        guard status == 0, let data else {
            let reason = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw OutputError(path: name, reason: "APNG: \(reason)", failure: .internalError)
        }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }

    /// Writes the pending frame, lasting until `end`; a delay whose numerator overflows 16 bits goes on in 1×1
    /// frames that redraw the top-left pixel of the canvas shown.
    private func writePending(until end: Int) throws {
        guard let frame = pending else { return }
        pending = nil
        let pieces = Self.delayPieces(units: end - frame.start, timescale: timescale)
        try writeFrame(frame.rect, over: frame.over, delay: pieces[0], data: frame.data, first: framesWritten == 0)
        guard pieces.count > 1 else { return }
        let corner = Rect(x: 0, y: 0, w: 1, h: 1)
        try fill(candidateSource, from: UnsafePointer(shown), corner, over: false)
        let data = try encode(candidateSource, corner)
        for delay in pieces.dropFirst() { try writeFrame(corner, over: false, delay: delay, data: data, first: false) }
    }

    /// `units / timescale` s as `delay_num/delay_den` pieces that add up to it exactly: reduced, the numerator cut
    /// into pieces of at most 65535 (the denominator to the nearest ms when even reduced it exceeds 16 bits).
    static func delayPieces(units: Int, timescale: Int) -> [(numerator: UInt16, denominator: UInt16)] {
        guard units > 0 else { return [(0, 1)] }
        var (numerator, denominator) = reduced(units, timescale)
        if denominator > 65535 {
            let ms = (try? MediaTime(units, timescale: timescale).milliseconds()) ?? Int(UInt16.max)
            (numerator, denominator) = reduced(ms, 1000)
            if numerator == 0 { return [(0, 1)] }
        }
        var pieces: [(numerator: UInt16, denominator: UInt16)] = []
        while numerator > 65535 {
            pieces.append((65535, UInt16(denominator)))
            numerator -= 65535
        }
        pieces.append((UInt16(numerator), UInt16(denominator)))
        return pieces
    }

    private static func reduced(_ a: Int, _ b: Int) -> (Int, Int) {
        var (x, y) = (a, b)
        while y != 0 { (x, y) = (y, x % y) }
        return x == 0 ? (a, b) : (a / x, b / x)
    }

    /// fcTL, then the data as IDAT (frame 0, the default image) or fdAT chunks.
    private func writeFrame(
        _ rect: Rect, over: Bool, delay: (numerator: UInt16, denominator: UInt16), data: [UInt8], first: Bool
    ) throws {
        var control = Self.be32(sequence) + Self.be32(UInt32(rect.w)) + Self.be32(UInt32(rect.h))
        control += Self.be32(UInt32(rect.x)) + Self.be32(UInt32(rect.y))
        control += [UInt8(delay.numerator >> 8), UInt8(delay.numerator & 0xFF)]
        control += [UInt8(delay.denominator >> 8), UInt8(delay.denominator & 0xFF)]
        control += [0, over ? 1 : 0]  // dispose NONE; blend SOURCE or OVER
        sequence += 1
        chunk(Self.fcTL, control)
        var at = 0
        repeat {
            let end = min(data.count, at + Self.chunkLimit)
            if first {
                chunk(Self.IDAT, Array(data[at..<end]))
            } else {
                chunk(Self.fdAT, Self.be32(sequence) + data[at..<end])
                sequence += 1
            }
            at = end
        } while at < data.count
        framesWritten += 1
        if buffer.count >= 1 << 18 { try flush() }
    }

    // MARK: Bytes.

    static func be32(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }

    static func appendChunk(_ type: [UInt8], _ data: [UInt8], to out: inout [UInt8]) {
        out += be32(UInt32(data.count))
        let start = out.count
        out += type
        out += data
        let crc = out.withUnsafeBufferPointer { gifx_crc32(0, $0.baseAddress! + start, $0.count - start) }
        out += be32(crc)
    }

    private func chunk(_ type: [UInt8], _ data: [UInt8]) { Self.appendChunk(type, data, to: &buffer) }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        do throws(Errno) {
            try POSIXFiles.writeAll(descriptor, buffer)
        } catch {
            throw OutputError.writing(name, errno: error.rawValue)
        }
        bytesWritten += Int64(buffer.count)
        buffer.removeAll(keepingCapacity: true)
    }
}
