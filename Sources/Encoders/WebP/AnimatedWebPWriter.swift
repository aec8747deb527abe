internal import CWebP
import Foundation
import GifxPOSIXFiles
import GifxPipeline
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// Where an animated WebP's bytes go as they are encoded.
struct WebPDestination {
    let descriptor: FileDescriptor
    /// The file offset the WebP starts at: its header is written again there at the end, with the real size.
    let patchOffset: Int64
    /// Whether the whole file is this WebP's alone (gifx's own temporary), so a smaller single-image form
    /// may replace it at the end.
    let ownsFile: Bool
    /// How errors name it.
    let name: String

    /// A descriptor target (standard output, or the caller's) when it is a regular file (opened without
    /// O_APPEND), at its current offset; nil for a pipe, socket or terminal, where the header cannot be written again.
    static func regularFile(_ fd: FileDescriptor, name: String) -> WebPDestination? {
        var info = stat()
        let flags = fcntl(fd.rawValue, F_GETFL)
        if fstat(fd.rawValue, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, flags != -1, flags & O_APPEND == 0 {
            let offset = lseek(fd.rawValue, 0, SEEK_CUR)
            if offset >= 0 { return WebPDestination(descriptor: fd, patchOffset: Int64(offset), ownsFile: false, name: name) }
        }
        return nil
    }
}

/// An animated WebP written as it is encoded: each frame is encoded with `WebPEncode` on the rectangle that
/// changed and its ANMF chunk written as soon as the next frame decides how it ends (its duration and whether
/// it is disposed to the background), so at most one encoded frame is held. Frame choices follow the ideas of
/// libwebp's WebPAnimEncoder (default options, no key-frames), so files come out as small: the change rectangle
/// (snapped to even offsets) against the canvas shown, or against that canvas with the previous frame disposed
/// to the background when that rectangle is smaller; alpha blending where it reproduces the frame, unchanged
/// pixels then made transparent (lossless) or 8x8 blocks of near-unchanged pixels flattened (lossy, without the
/// loop filter); a frame that changes nothing lengthens the one before.
///
/// The RIFF size and the VP8X flags are written at the start with placeholders and patched at the end, so the
/// destination is always a regular file (a file, or standard output redirected to one): a stream would keep the
/// placeholders, which libwebp's whole-file readers refuse; a pipe's WebP goes to the transaction's scratch
/// file instead (docs/delivery.md). Memory: four canvases of the frame size
/// (current, a working copy, previous, previous disposed) and one encoded frame, whatever the frame count.
final class AnimatedWebPWriter {
    /// The RIFF size written before the real one is known (patched at the end): libwebp's largest accepted chunk
    /// payload, so an incremental reader (WebPDemuxPartial) of the file being written takes frames as they come.
    static let streamedRIFFSize: UInt32 = 0xFFFF_FFF6
    /// ANMF durations are 24 bits.
    static let maxDuration = (1 << 24) - 1

    let width: Int
    let height: Int
    private let lossless: Bool
    private var config: WebPConfig
    private let destination: WebPDestination
    private let loopCount: Int

    private var current = WebPPicture()
    private var work = WebPPicture()
    private var previous = WebPPicture()
    private var disposed = WebPPicture()

    /// The frame encoded but not written: its chunk waits for its duration and dispose method.
    struct Pending {
        var rect: Rect
        var blend: Bool
        var startMs: Int
        /// The frame as WebPEncode wrote it (a whole RIFF file), and where its image chunks start.
        var riff: [UInt8]
        var chunksStart: Int
        var hasAlpha: Bool
    }
    private var pending: Pending?
    private var previousRect = Rect(x: 0, y: 0, w: 0, h: 0)
    private var isFirst = true
    private(set) var bytesWritten: Int64 = 0
    private(set) var framesWritten = 0
    private var anyFrameHasAlpha = false

    struct Rect: Equatable {
        var x: Int, y: Int, w: Int, h: Int
        var area: Int { w * h }
        var isEmpty: Bool { w == 0 || h == 0 }
    }

    init(width: Int, height: Int, loopCount: Int, config: WebPConfig, destination: WebPDestination) throws {
        self.width = width
        self.height = height
        self.loopCount = loopCount
        self.config = config
        lossless = config.lossless != 0
        self.destination = destination
        try Self.allocate(&current, width, height)
        try Self.allocate(&work, width, height)
        try Self.allocate(&previous, width, height)
        try Self.allocate(&disposed, width, height)
        try write(header(riffSize: Self.streamedRIFFSize, alpha: true))
    }

    deinit {
        WebPPictureFree(&current)
        WebPPictureFree(&work)
        WebPPictureFree(&previous)
        WebPPictureFree(&disposed)
    }

    private static func allocate(_ picture: inout WebPPicture, _ width: Int, _ height: Int) throws {
        guard WebPPictureInit(&picture) != 0 else { throw WebPWriterError("libwebp version mismatch") }
        picture.use_argb = 1
        picture.width = Int32(width)
        picture.height = Int32(height)
        guard WebPPictureAlloc(&picture) != 0 else { throw WebPWriterError("out of memory") }
        // Transparent black: the canvas before the first frame (and what dispose-to-background leaves).
        memset(picture.argb, 0, Int(picture.argb_stride) * height * 4)
    }

    // MARK: Frames.

    /// Adds the canvas `rgba` (width × height RGBA, rows `width * 4` bytes apart) shown from `startMs`.
    func add(rgba: UnsafePointer<UInt8>, startMs: Int) throws {
        importRGBA(rgba)
        if let pending, startMs - pending.startMs > Self.maxDuration { try splitLongPending(until: startMs) }
        let config = self.config
        if isFirst {
            let rect = changeRect(from: previous, emptyAllowed: false)
            copy(current, into: &work, rect)
            let encoded = try encode(rect, blend: false, config: config)
            pending = Pending(
                rect: rect, blend: false, startMs: startMs, riff: encoded.riff, chunksStart: encoded.chunksStart,
                hasAlpha: encoded.hasAlpha)
            isFirst = false
        } else {
            let none = changeRect(from: previous, emptyAllowed: true)
            // Nothing changed: the frame before lasts longer (its duration is measured to the next frame's start).
            guard !none.isEmpty else { return }
            copy(previous, into: &disposed, Rect(x: 0, y: 0, w: width, h: height))
            clear(&disposed, previousRect)
            let background = changeRect(from: disposed, emptyAllowed: false)
            let disposeBackground = background.area < none.area
            let rect = disposeBackground ? background : none
            let reference = disposeBackground ? disposed : previous
            copy(current, into: &work, rect)
            let blend = blendingPossible(over: reference, rect)
            if blend {
                if lossless { makeUnchangedTransparent(reference, rect) } else { flattenSimilarBlocks(reference, rect) }
            }
            var frameConfig = config
            if !lossless && blend {
                // No loop filter across blended blocks (it would smear the flattened see-through blocks).
                frameConfig.autofilter = 0
                frameConfig.filter_strength = 0
            }
            let encoded = try encode(rect, blend: blend, config: frameConfig)
            try writePending(untilMs: startMs, disposeBackground: disposeBackground)
            pending = Pending(
                rect: rect, blend: blend, startMs: startMs, riff: encoded.riff, chunksStart: encoded.chunksStart,
                hasAlpha: encoded.hasAlpha)
        }
        previousRect = pending!.rect
        swap(&previous, &current)
    }

    /// Ends the animation at `endMs` and completes the file (patching the header where it can be rewritten).
    /// `transparent`: whether any canvas had a pixel that is not opaque (sets the VP8X alpha flag, as readers
    /// need to show the uncovered canvas as transparent).
    func finish(endMs: Int, transparent: Bool) throws {
        guard let last = pending else { throw WebPWriterError("no frames") }
        if endMs - last.startMs > Self.maxDuration { try splitLongPending(until: endMs) }
        if framesWritten == 0, destination.ownsFile, let still = try stillForm(of: pending!),
           still.count < Int(bytesWritten) + ANMFHeaderSize + (pending!.riff.count - pending!.chunksStart) {
            // One frame in all: the single image, when smaller (as WebPAnimEncoder keeps it).
            var still = still
            if transparent { Self.markTransparent(&still) }
            try rewrite(with: still)
            pending = nil
            return
        }
        try writePending(untilMs: endMs, disposeBackground: false)
        let offset = destination.patchOffset
        let size = UInt32(truncatingIfNeeded: bytesWritten - 8)
        let head = header(riffSize: size, alpha: transparent || anyFrameHasAlpha)
        do {
            try head.withUnsafeBytes { bytes in
                var done = 0
                while done < bytes.count {
                    let n = try destination.descriptor.write(
                        toAbsoluteOffset: offset + Int64(done), UnsafeRawBufferPointer(rebasing: bytes[done...]))
                    done += n
                }
            }
        } catch {
            throw OutputError.writing(destination.name, errno: (error as? Errno)?.rawValue ?? EIO)
        }
    }

    // MARK: Chunks.

    private let ANMFHeaderSize = 24

    /// RIFF header, VP8X (animation, alpha as given, the canvas size) and ANIM (transparent background, loops).
    private func header(riffSize: UInt32, alpha: Bool) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(12 + 18 + 14)
        bytes += Array("RIFF".utf8); Self.le32(riffSize, &bytes); bytes += Array("WEBP".utf8)
        bytes += Array("VP8X".utf8); Self.le32(10, &bytes)
        bytes += [(alpha ? 0x10 : 0) | 0x02, 0, 0, 0]
        Self.le24(width - 1, &bytes); Self.le24(height - 1, &bytes)
        bytes += Array("ANIM".utf8); Self.le32(6, &bytes)
        Self.le32(0, &bytes)
        bytes += [UInt8(loopCount & 0xFF), UInt8(loopCount >> 8 & 0xFF)]
        return bytes
    }

    /// Writes the pending frame's ANMF chunk, lasting until `untilMs`.
    private func writePending(untilMs: Int, disposeBackground: Bool) throws {
        guard let frame = pending else { return }
        try writeFrame(frame, duration: untilMs - frame.startMs, disposeBackground: disposeBackground)
        pending = nil
    }

    private func writeFrame(_ frame: Pending, duration: Int, disposeBackground: Bool) throws {
        let imageBytes = frame.riff.count - frame.chunksStart
        var head: [UInt8] = []
        head.reserveCapacity(ANMFHeaderSize)
        head += Array("ANMF".utf8)
        Self.le32(UInt32(16 + imageBytes), &head)
        Self.le24(frame.rect.x / 2, &head); Self.le24(frame.rect.y / 2, &head)
        Self.le24(frame.rect.w - 1, &head); Self.le24(frame.rect.h - 1, &head)
        Self.le24(max(0, duration), &head)
        head.append((frame.blend ? 0 : 0x02) | (disposeBackground ? 0x01 : 0))
        try write(head)
        try frame.riff.withUnsafeBufferPointer { try write(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer($0)[frame.chunksStart...])) }
        framesWritten += 1
        anyFrameHasAlpha = anyFrameHasAlpha || frame.hasAlpha
    }

    /// A frame to show longer than an ANMF duration holds: written at the longest, then 1x1 transparent
    /// blended frames (nothing changes on screen) carry the rest; the last of them is the pending frame.
    private func splitLongPending(until ms: Int) throws {
        guard var frame = pending else { return }
        try writeFrame(frame, duration: Self.maxDuration, disposeBackground: false)
        var start = frame.startMs + Self.maxDuration
        let filler = try transparentPixel()
        while ms - start > Self.maxDuration {
            try writeFrame(filler.with(startMs: start), duration: Self.maxDuration, disposeBackground: false)
            start += Self.maxDuration
        }
        frame = filler.with(startMs: start)
        pending = frame
        previousRect = frame.rect
    }

    private func transparentPixel() throws -> Pending {
        var picture = WebPPicture()
        try Self.allocate(&picture, 1, 1)
        defer { WebPPictureFree(&picture) }
        var pixelConfig = config
        let (riff, start, alpha) = try Self.encodeWhole(&picture, config: &pixelConfig)
        return Pending(rect: Rect(x: 0, y: 0, w: 1, h: 1), blend: true, startMs: 0, riff: riff, chunksStart: start, hasAlpha: alpha)
    }

    private func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    private func write(_ bytes: UnsafeRawBufferPointer) throws {
        do throws(Errno) {
            try POSIXFiles.writeAll(destination.descriptor, bytes)
        } catch {
            throw OutputError.writing(destination.name, errno: error.rawValue)
        }
        bytesWritten += Int64(bytes.count)
    }

    /// Replaces the whole (own, temporary) file with `bytes`.
    private func rewrite(with bytes: [UInt8]) throws {
        let offset = destination.patchOffset
        do {
            try bytes.withUnsafeBytes { raw in
                var done = 0
                while done < raw.count {
                    done += try destination.descriptor.write(
                        toAbsoluteOffset: offset + Int64(done), UnsafeRawBufferPointer(rebasing: raw[done...]))
                }
            }
            try destination.descriptor.resize(to: offset + Int64(bytes.count))
            _ = try destination.descriptor.seek(offset: offset + Int64(bytes.count), from: .start)
        } catch {
            throw OutputError.writing(destination.name, errno: (error as? Errno)?.rawValue ?? EIO)
        }
        bytesWritten = Int64(bytes.count)
    }

    // MARK: Encoding.

    /// Encodes `work`'s `rect`.
    private func encode(_ rect: Rect, blend: Bool, config: WebPConfig) throws -> (riff: [UInt8], chunksStart: Int, hasAlpha: Bool) {
        var view = WebPPicture()
        guard WebPPictureInit(&view) != 0,
              WebPPictureView(&work, Int32(rect.x), Int32(rect.y), Int32(rect.w), Int32(rect.h), &view) != 0
        else { throw WebPWriterError("cannot take a view of the frame") }
        defer { WebPPictureFree(&view) }
        var config = config
        return try Self.encodeWhole(&view, config: &config)
    }

    /// WebPEncode into memory; returns the RIFF file and where its image chunks (ALPH, VP8, VP8L) start.
    private static func encodeWhole(_ picture: inout WebPPicture, config: inout WebPConfig) throws
        -> (riff: [UInt8], chunksStart: Int, hasAlpha: Bool)
    {
        var memory = WebPMemoryWriter()
        WebPMemoryWriterInit(&memory)
        defer { WebPMemoryWriterClear(&memory) }
        picture.writer = WebPMemoryWrite
        picture.use_argb = 1
        let ok = withUnsafeMutablePointer(to: &memory) { pointer -> Int32 in
            picture.custom_ptr = UnsafeMutableRawPointer(pointer)
            return WebPEncode(&config, &picture)
        }
        picture.custom_ptr = nil
        guard ok != 0, let mem = memory.mem, memory.size >= 20 else {
            throw WebPWriterError("encoding failed (libwebp error \(picture.error_code.rawValue))")
        }
        let riff = [UInt8](UnsafeBufferPointer(start: mem, count: memory.size))
        var start = 12
        var hasAlpha = false
        if riff[12..<16].elementsEqual("VP8X".utf8) { start += 8 + 10 }
        var at = start
        while at + 8 <= riff.count {
            let tag = riff[at..<at + 4]
            let size = Int(riff[at + 4]) | Int(riff[at + 5]) << 8 | Int(riff[at + 6]) << 16 | Int(riff[at + 7]) << 24
            if tag.elementsEqual("ALPH".utf8) { hasAlpha = true }
            if tag.elementsEqual("VP8L".utf8), at + 13 <= riff.count { hasAlpha = hasAlpha || (riff[at + 12] >> 4) & 1 == 1 }
            at += 8 + size + (size & 1)
        }
        return (riff, start, hasAlpha)
    }

    /// The single-image form of a one-frame animation: the frame decoded onto the empty canvas, encoded whole.
    private func stillForm(of frame: Pending) throws -> [UInt8]? {
        clear(&work, Rect(x: 0, y: 0, w: width, h: height))
        var decoder = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&decoder) != 0 else { return nil }
        let stride = Int(work.argb_stride) * 4
        let status = frame.riff.withUnsafeBufferPointer { riff -> VP8StatusCode in
            decoder.output.colorspace = MODE_BGRA
            decoder.output.is_external_memory = 1
            let origin = UnsafeMutableRawPointer(work.argb + frame.rect.y * Int(work.argb_stride) + frame.rect.x)
            decoder.output.u.RGBA.rgba = origin.assumingMemoryBound(to: UInt8.self)
            decoder.output.u.RGBA.stride = Int32(stride)
            decoder.output.u.RGBA.size = stride * frame.rect.h
            return WebPDecode(riff.baseAddress, riff.count, &decoder)
        }
        guard status == VP8_STATUS_OK else { return nil }
        var config = self.config
        return try Self.encodeWhole(&work, config: &config).riff
    }

    /// The VP8X alpha flag set, where the file has a VP8X chunk.
    static func markTransparent(_ bytes: inout [UInt8]) {
        guard bytes.count > 20, bytes[12..<16].elementsEqual("VP8X".utf8) else { return }
        bytes[20] |= 0x10
    }

    // MARK: Pixels (ARGB words, as libwebp keeps them).

    private func importRGBA(_ rgba: UnsafePointer<UInt8>) {
        let stride = Int(current.argb_stride)
        let argb = current.argb!
        for y in 0..<height {
            let source = rgba + y * width * 4
            let row = argb + y * stride
            for x in 0..<width {
                let p = source + x * 4
                row[x] = UInt32(p[3]) << 24 | UInt32(p[0]) << 16 | UInt32(p[1]) << 8 | UInt32(p[2])
            }
        }
    }

    private func copy(_ source: WebPPicture, into target: inout WebPPicture, _ rect: Rect) {
        let s = Int(source.argb_stride), t = Int(target.argb_stride)
        for y in rect.y..<rect.y + rect.h {
            (target.argb + y * t + rect.x).update(from: source.argb + y * s + rect.x, count: rect.w)
        }
    }

    private func clear(_ picture: inout WebPPicture, _ rect: Rect) {
        guard !rect.isEmpty else { return }
        let stride = Int(picture.argb_stride)
        for y in rect.y..<rect.y + rect.h { (picture.argb + y * stride + rect.x).update(repeating: 0, count: rect.w) }
    }

    static func snapped(_ rect: Rect) -> Rect {
        Rect(x: rect.x & ~1, y: rect.y & ~1, w: rect.w + (rect.x & 1), h: rect.h + (rect.y & 1))
    }

    /// The largest per-channel difference (premultiplied) the lossy mode treats as unchanged, from the quality:
    /// 1 at 100, 31 at 0 (square-root curve), as WebPAnimEncoder does.
    private var lossyTolerance: Int {
        let v = (Double(config.quality) / 100).squareRoot()
        return Int(31 * (1 - v) + v + 0.5)
    }

    /// Same alpha, and each colour channel within `tolerance` once weighted by that alpha (WebPAnimEncoder's test).
    @inline(__always)
    private static func similar(_ a: UInt32, _ b: UInt32, _ tolerance: Int) -> Bool {
        let alpha = Int(b >> 24)
        guard Int(a >> 24) == alpha else { return false }
        let limit = tolerance * 255
        return abs(Int(a >> 16 & 0xFF) - Int(b >> 16 & 0xFF)) * alpha <= limit
            && abs(Int(a >> 8 & 0xFF) - Int(b >> 8 & 0xFF)) * alpha <= limit
            && abs(Int(a & 0xFF) - Int(b & 0xFF)) * alpha <= limit
    }

    /// Where `current` differs from `shown`: the exact change rectangle snapped to even offsets, then for lossy
    /// frames narrowed to the pixels beyond the tolerance and snapped again. Empty when nothing changed and
    /// `emptyAllowed`, else at least the top-left pixel.
    private func changeRect(from shown: WebPPicture, emptyAllowed: Bool) -> Rect {
        let pixel = Rect(x: 0, y: 0, w: 1, h: 1)
        var rect = minimalChange(from: shown, to: current, lossless: true, seed: Rect(x: 0, y: 0, w: width, h: height))
        if rect.isEmpty {
            if emptyAllowed { return rect }
            rect = pixel
        }
        rect = Self.snapped(rect)
        guard !lossless else { return rect }
        var narrowed = minimalChange(from: shown, to: current, lossless: false, seed: rect)
        if narrowed.isEmpty {
            if emptyAllowed { return narrowed }
            narrowed = pixel
        }
        return Self.snapped(narrowed)
    }

    /// The smallest rectangle within `seed` outside which `from` and `to` agree (exactly, or within the lossy
    /// tolerance), i.e. the bounding box of the pixels that differ; empty when they agree everywhere in it.
    /// Row by row (rows that are byte-equal are skipped with memcmp), each row searched only outside the columns
    /// already known to differ.
    private func minimalChange(from: WebPPicture, to: WebPPicture, lossless: Bool, seed: Rect) -> Rect {
        guard !seed.isEmpty else { return Rect(x: 0, y: 0, w: 0, h: 0) }
        let fs = Int(from.argb_stride), ts = Int(to.argb_stride)
        let f = from.argb!, t = to.argb!
        let tolerance = lossless ? 0 : lossyTolerance
        var minX = Int.max, maxX = -1, minY = -1, maxY = -1
        for y in seed.y..<seed.y + seed.h {
            let a = f + y * fs, b = t + y * ts
            if memcmp(a + seed.x, b + seed.x, seed.w * 4) == 0 { continue }
            @inline(__always) func differs(_ x: Int) -> Bool {
                a[x] != b[x] && (lossless || !Self.similar(a[x], b[x], tolerance))
            }
            var rowHasChange = false
            // Left of the known columns.
            var x = seed.x
            let leftEnd = min(minX, seed.x + seed.w)
            while x < leftEnd && !differs(x) { x += 1 }
            if x < leftEnd { minX = x; rowHasChange = true; if x > maxX { maxX = x } }
            // Right of the known columns.
            var r = seed.x + seed.w - 1
            let rightEnd = max(maxX, seed.x - 1)
            while r > rightEnd && !differs(r) { r -= 1 }
            if r > rightEnd { maxX = r; rowHasChange = true; if r < minX { minX = r } }
            // Inside the known columns (only matters for the rows' extent).
            if !rowHasChange && minX <= maxX {
                var i = max(minX, seed.x)
                while i <= maxX && !differs(i) { i += 1 }
                rowHasChange = i <= maxX
            }
            if rowHasChange {
                if minY < 0 { minY = y }
                maxY = y
            }
        }
        guard minY >= 0, minX <= maxX else { return Rect(x: 0, y: 0, w: 0, h: 0) }
        return Rect(x: minX, y: minY, w: maxX - minX + 1, h: maxY - minY + 1)
    }

    /// Whether blending `current`'s `rect` over `reference` shows `current`: every pixel not fully opaque must
    /// already be there (exactly, or within the lossy tolerance).
    private func blendingPossible(over reference: WebPPicture, _ rect: Rect) -> Bool {
        let rs = Int(reference.argb_stride), cs = Int(current.argb_stride)
        let tolerance = lossyTolerance
        for y in rect.y..<rect.y + rect.h {
            let r = reference.argb + y * rs, c = current.argb + y * cs
            for x in rect.x..<rect.x + rect.w where c[x] >> 24 != 0xFF {
                if lossless ? r[x] != c[x] : !Self.similar(r[x], c[x], tolerance) { return false }
            }
        }
        return true
    }

    /// Lossless blending: pixels of `work` equal to what is shown below become transparent black.
    private func makeUnchangedTransparent(_ reference: WebPPicture, _ rect: Rect) {
        let rs = Int(reference.argb_stride), ws = Int(work.argb_stride)
        for y in rect.y..<rect.y + rect.h {
            let r = reference.argb + y * rs, w = work.argb + y * ws
            for x in rect.x..<rect.x + rect.w where r[x] == w[x] && w[x] != 0 { w[x] = 0 }
        }
    }

    /// Lossy blending: each whole 8x8 block (aligned, inside the rectangle) whose opaque pixels are all near
    /// what is shown below becomes a see-through block of their mean colour.
    private func flattenSimilarBlocks(_ reference: WebPPicture, _ rect: Rect) {
        let tolerance = lossyTolerance
        let rs = Int(reference.argb_stride), ws = Int(work.argb_stride)
        let y0 = (rect.y + 8) & ~7, y1 = (rect.y + rect.h) & ~7
        let x0 = (rect.x + 8) & ~7, x1 = (rect.x + rect.w) & ~7
        var by = y0
        while by < y1 {
            var bx = x0
            block: while bx < x1 {
                defer { bx += 8 }
                var red = 0, green = 0, blue = 0
                for y in by..<by + 8 {
                    for x in bx..<bx + 8 {
                        let shown = reference.argb[y * rs + x]
                        guard shown >> 24 == 0xFF, Self.similar(shown, work.argb[y * ws + x], tolerance) else { continue block }
                        red += Int(shown >> 16 & 0xFF); green += Int(shown >> 8 & 0xFF); blue += Int(shown & 0xFF)
                    }
                }
                let colour = UInt32(red / 64) << 16 | UInt32(green / 64) << 8 | UInt32(blue / 64)
                for y in by..<by + 8 { (work.argb + y * ws + bx).update(repeating: colour, count: 8) }
            }
            by += 8
        }
    }

    // MARK: Little-endian fields.

    private static func le32(_ value: UInt32, _ bytes: inout [UInt8]) {
        bytes += [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24 & 0xFF)]
    }

    private static func le24(_ value: Int, _ bytes: inout [UInt8]) {
        bytes += [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)]
    }
}

extension AnimatedWebPWriter.Pending {
    func with(startMs: Int) -> Self {
        var copy = self
        copy.startMs = startMs
        return copy
    }
}

struct WebPWriterError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
