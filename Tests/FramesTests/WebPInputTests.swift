import CWebP
import Foundation
import GifFixtures
import GifxFrames
import GifxTimeline
import Testing

/// WebP input (issue 35): gifx's reader (libwebp demux + WebPDecode per frame, composited by gifx) against
/// libwebp's own `WebPAnimDecoder` (the oracle), canvases byte for byte, over WebPs built here with libwebp:
/// `WebPMux` for exact control of every dispose/blend combination and of sub-frames at the canvas edges,
/// and `WebPAnimEncoder` for files as encoders write them (lossy, lossless, key frames).
@Suite struct WebPInputTests {
    /// One frame for `WebPMux`: a sub-image at an (even) offset with its ops.
    struct MuxFrame {
        var x: Int, y: Int, width: Int, height: Int
        var pixels: [UInt8]
        var duration: Int
        var dispose: WebPMuxAnimDispose
        var blend: WebPMuxAnimBlend
        var lossless: Bool
    }

    @Test func everyDisposeBlendCombinationAtTheEdgesMatchesWebPAnimDecoder() throws {
        var random = SplitMix64(seed: 35)
        let (width, height) = (36, 22)
        var frames: [MuxFrame] = []
        // Every (previous dispose, dispose, blend) sequence, in random order over 96 frames: rects at each
        // edge and corner, a few whole-canvas ones (which make libwebp's key frames), alpha opaque / clear /
        // partial, lossy and lossless.
        let disposes = [WEBP_MUX_DISPOSE_NONE, WEBP_MUX_DISPOSE_BACKGROUND]
        let blends = [WEBP_MUX_BLEND, WEBP_MUX_NO_BLEND]
        var seen = Set<[Int]>()
        for k in 0..<96 {
            let dispose = disposes[Int(random.next() % 2)]
            let blend = blends[Int(random.next() % 3 == 0 ? 1 : 0)]
            let placement = k == 0 ? 0 : Int(random.next() % 12)
            let (w, h): (Int, Int) =
                placement == 0 ? (width, height) : (1 + Int(random.next() % 23), 1 + Int(random.next() % 15))
            let (x, y): (Int, Int)
            switch placement {
            case 0, 1: (x, y) = (0, 0)
            case 2: (x, y) = ((width - w) & ~1, 0)
            case 3: (x, y) = (0, (height - h) & ~1)
            case 4: (x, y) = ((width - w) & ~1, (height - h) & ~1)
            default:
                (x, y) = (
                    2 * Int(random.next() % UInt64((width - w) / 2 + 1)),
                    2 * Int(random.next() % UInt64((height - h) / 2 + 1))
                )
            }
            if let last = frames.last {
                seen.insert([Int(last.dispose.rawValue), Int(dispose.rawValue), Int(blend.rawValue)])
            }
            frames.append(
                MuxFrame(
                    x: x, y: y, width: w, height: h, pixels: Self.randomPixels(w, h, &random),
                    duration: 10 + 10 * k, dispose: dispose, blend: blend, lossless: k % 3 != 0))
        }
        #expect(seen.count == 8, "every previous-dispose × dispose × blend sequence occurs")
        let path = try temporaryFile(Self.mux(width: width, height: height, frames: frames, loops: 0), name: "combos.webp")
        try expectSameCanvasesAsWebPAnimDecoder(path, frames: frames.count)
        let metadata = try readAnimationMetadata(path: path)
        #expect(metadata.format == .webp)
        #expect(metadata.images.map(\.descriptor.rawDelay) == frames.map { Optional($0.duration) })
        #expect(metadata.images.map(\.descriptor.rect) == frames.map { PixelRect(x: $0.x, y: $0.y, width: $0.width, height: $0.height) })
    }

    @Test(arguments: [(true, 0), (false, 0), (true, 1), (false, 5)])
    func webPAnimEncoderFilesMatchWebPAnimDecoder(lossless: Bool, kmax: Int) throws {
        var random = SplitMix64(seed: lossless ? 1 : 2)
        let (width, height) = (40, 30)
        // A moving translucent square over a background that changes in places: the encoder picks sub-rects,
        // blend and dispose itself.
        var canvases: [[UInt8]] = []
        for frame in 0..<12 {
            var pixels = [UInt8](repeating: 0, count: width * height * 4)
            for y in 0..<height {
                for x in 0..<width {
                    let i = (y * width + x) * 4
                    let inSquare = x >= frame * 2 && x < frame * 2 + 12 && y >= 5 && y < 20
                    if inSquare {
                        pixels[i] = 250; pixels[i + 1] = UInt8(frame * 20); pixels[i + 2] = 30; pixels[i + 3] = 160
                    } else if (x + y + frame / 4) % 7 == 0 {
                        pixels[i] = UInt8(random.next() & 0xFF); pixels[i + 1] = 80; pixels[i + 2] = 200; pixels[i + 3] = 255
                    }
                }
            }
            canvases.append(pixels)
        }
        let data = try Self.animEncode(
            canvases, width: width, height: height, durations: (0..<12).map { 20 + $0 * 7 }, lossless: lossless, kmax: kmax)
        let path = try temporaryFile(data, name: "enc\(lossless)\(kmax).webp")
        try expectSameCanvasesAsWebPAnimDecoder(path, frames: 12)
        let timeline = Timeline(try readAnimationMetadata(path: path).timelineInput)
        #expect(timeline.format == .webp && timeline.timescale == 1000)
        #expect(timeline.frames.map(\.delay) == (0..<12).map { 20 + $0 * 7 })
    }

    @Test func stillWebPIsOneFrame() throws {
        let pixels = [UInt8](repeating: 0, count: 6 * 4 * 4).enumerated().map { UInt8(($0.offset * 37) & 0xFF) | ($0.offset % 4 == 3 ? 0x80 : 0) }
        let data = Self.encodeStill(pixels, width: 6, height: 4, lossless: true)
        let path = try temporaryFile(data, name: "still.webp")
        let metadata = try readAnimationMetadata(path: path)
        #expect(metadata.images.count == 1)
        #expect(metadata.loopCount == nil)
        let stream = try FrameStream(path: path)
        let canvases = try collectCanvases(stream)
        #expect(canvases == [pixels])
        #expect(Timeline(metadata.timelineInput).loop.plays == 1)
    }

    @Test func truncatedWebPKeepsTheCompleteFramesOrFailsWhenStrict() throws {
        var random = SplitMix64(seed: 9)
        let frames = (0..<4).map { k in
            MuxFrame(
                x: 0, y: 0, width: 8, height: 8, pixels: Self.randomPixels(8, 8, &random), duration: 50,
                dispose: WEBP_MUX_DISPOSE_NONE, blend: WEBP_MUX_NO_BLEND, lossless: true)
        }
        let data = Self.mux(width: 8, height: 8, frames: frames, loops: 2)
        let cut = data.prefix(data.count - 10)
        let path = try temporaryFile(Data(cut), name: "cut.webp")
        let metadata = try readAnimationMetadata(path: path)
        #expect(metadata.images.count == 3)
        #expect(metadata.warnings.count == 1 && metadata.warnings[0].hasPrefix("truncated WebP at byte \(cut.count)"))
        let strict = #expect(throws: GifDecodeError.self) { try readAnimationMetadata(path: path, limits: DecodeLimits(strict: true)) }
        #expect(strict?.description.hasPrefix("truncated WebP") == true)
        #expect(try collectCanvases(FrameStream(path: path)).count == 3)
    }

    @Test func unknownDataIsRefusedInOneLine() throws {
        let path = try temporaryFile(Data("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt ".utf8), name: "wave")
        let error = #expect(throws: GifDecodeError.self) { try readAnimationMetadata(path: path) }
        #expect(error?.failureClass == .malformedData)
        #expect(error?.description == "malformed GIF at byte 0: not a GIF, WebP, PNG or AVIF file (it starts with 52 49 46 46 00 00 00 00)")
        let empty = try temporaryFile(Data(), name: "empty")
        let none = #expect(throws: GifDecodeError.self) { try readAnimationMetadata(path: empty) }
        #expect(none?.reason == "not a GIF, WebP, PNG or AVIF file (the file is empty)")
    }

    // MARK: - The oracle and the fixtures (libwebp)

    /// gifx's canvases (through `FrameStream`, producer thread and inline) equal WebPAnimDecoder's, and so do
    /// the frame count and each frame's end timestamp (the schedule's starts + delays, raw ms).
    func expectSameCanvasesAsWebPAnimDecoder(_ path: String, frames: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let oracle = try Self.animDecode(path)
        #expect(oracle.canvases.count == frames, sourceLocation: sourceLocation)
        for producerThread in [true, false] {
            let got = try collectCanvases(FrameStream(path: path, producerThread: producerThread))
            #expect(got.count == oracle.canvases.count, sourceLocation: sourceLocation)
            for (index, (a, b)) in zip(got, oracle.canvases).enumerated() where a != b {
                let first = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }!.offset
                Issue.record(
                    "frame \(index) differs first at byte \(first) (pixel \(first / 4)): gifx \(Array(a[(first & ~3)..<(first & ~3) + 4])) libwebp \(Array(b[(first & ~3)..<(first & ~3) + 4]))",
                    sourceLocation: sourceLocation)
                break
            }
        }
        // Raw ms, no clamp: the ends of the frames as WebPAnimDecoder reports its timestamps.
        let metadata = try readAnimationMetadata(path: path)
        var end = 0
        let ends = metadata.images.map { image in
            end += image.descriptor.rawDelay ?? 0
            return end
        }
        #expect(ends == oracle.timestamps, sourceLocation: sourceLocation)
    }

    static func randomPixels(_ w: Int, _ h: Int, _ random: inout SplitMix64) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: w * h * 4)
        for i in 0..<(w * h) {
            let r = random.next()
            // Alpha: a third opaque, a sixth clear, the rest partial.
            let kind = r % 6
            pixels[4 * i + 3] = kind < 2 ? 255 : kind == 2 ? 0 : UInt8(1 + (r >> 8) % 254)
            pixels[4 * i] = UInt8((r >> 16) & 0xFF)
            pixels[4 * i + 1] = UInt8((r >> 24) & 0xFF)
            pixels[4 * i + 2] = UInt8((r >> 32) & 0xFF)
        }
        return pixels
    }

    /// A single-image WebP of `pixels` (RGBA): lossless exact, or lossy at quality 70 with its alpha.
    static func encodeStill(_ pixels: [UInt8], width: Int, height: Int, lossless: Bool) -> Data {
        var output: UnsafeMutablePointer<UInt8>?
        let size = pixels.withUnsafeBufferPointer { p in
            lossless
                ? WebPEncodeLosslessRGBA(p.baseAddress, Int32(width), Int32(height), Int32(width * 4), &output)
                : WebPEncodeRGBA(p.baseAddress, Int32(width), Int32(height), Int32(width * 4), 70, &output)
        }
        precondition(size > 0, "WebPEncode failed")
        defer { WebPFree(output) }
        return Data(bytes: output!, count: size)
    }

    /// An animated WebP assembled with WebPMux: every frame exactly as given.
    static func mux(width: Int, height: Int, frames: [MuxFrame], loops: Int) -> Data {
        let mux = WebPMuxNew()!
        defer { WebPMuxDelete(mux) }
        for frame in frames {
            let still = encodeStill(frame.pixels, width: frame.width, height: frame.height, lossless: frame.lossless)
            still.withUnsafeBytes { bytes in
                var info = WebPMuxFrameInfo()
                info.bitstream = WebPData(bytes: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), size: bytes.count)
                info.x_offset = Int32(frame.x)
                info.y_offset = Int32(frame.y)
                info.duration = Int32(frame.duration)
                info.id = WEBP_CHUNK_ANMF
                info.dispose_method = frame.dispose
                info.blend_method = frame.blend
                precondition(WebPMuxPushFrame(mux, &info, 1) == WEBP_MUX_OK, "WebPMuxPushFrame failed")
            }
        }
        var params = WebPMuxAnimParams(bgcolor: 0xFF00_FF00, loop_count: Int32(loops))
        precondition(WebPMuxSetAnimationParams(mux, &params) == WEBP_MUX_OK)
        precondition(WebPMuxSetCanvasSize(mux, Int32(width), Int32(height)) == WEBP_MUX_OK)
        var assembled = WebPData()
        precondition(WebPMuxAssemble(mux, &assembled) == WEBP_MUX_OK, "WebPMuxAssemble failed")
        defer { WebPDataClear(&assembled) }
        return Data(bytes: assembled.bytes, count: assembled.size)
    }

    /// An animated WebP written by WebPAnimEncoder from whole canvases.
    static func animEncode(
        _ canvases: [[UInt8]], width: Int, height: Int, durations: [Int], lossless: Bool, kmax: Int
    ) throws -> Data {
        var options = WebPAnimEncoderOptions()
        precondition(WebPAnimEncoderOptionsInit(&options) != 0)
        options.kmax = Int32(kmax)
        options.kmin = kmax > 1 ? Int32(kmax / 2 + 1) : 0
        options.anim_params.loop_count = 3
        let encoder = WebPAnimEncoderNew(Int32(width), Int32(height), &options)!
        defer { WebPAnimEncoderDelete(encoder) }
        var config = WebPConfig()
        precondition(WebPConfigInit(&config) != 0)
        config.lossless = lossless ? 1 : 0
        config.quality = 60
        var timestamp = 0
        for (canvas, duration) in zip(canvases, durations) {
            var picture = WebPPicture()
            precondition(WebPPictureInit(&picture) != 0)
            picture.use_argb = 1
            picture.width = Int32(width)
            picture.height = Int32(height)
            precondition(canvas.withUnsafeBufferPointer { WebPPictureImportRGBA(&picture, $0.baseAddress, Int32(width * 4)) } != 0)
            precondition(WebPAnimEncoderAdd(encoder, &picture, Int32(timestamp), &config) != 0)
            WebPPictureFree(&picture)
            timestamp += duration
        }
        precondition(WebPAnimEncoderAdd(encoder, nil, Int32(timestamp), nil) != 0)
        var assembled = WebPData()
        precondition(WebPAnimEncoderAssemble(encoder, &assembled) != 0)
        defer { WebPDataClear(&assembled) }
        return Data(bytes: assembled.bytes, count: assembled.size)
    }

    /// libwebp's WebPAnimDecoder (MODE_RGBA, one thread): every canvas and its end timestamp.
    static func animDecode(_ path: String) throws -> (canvases: [[UInt8]], timestamps: [Int]) {
        let file = try Data(contentsOf: URL(fileURLWithPath: path))
        return file.withUnsafeBytes { bytes in
            var data = WebPData(bytes: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), size: bytes.count)
            var options = WebPAnimDecoderOptions()
            precondition(WebPAnimDecoderOptionsInit(&options) != 0)
            options.color_mode = MODE_RGBA
            options.use_threads = 0
            guard let decoder = WebPAnimDecoderNew(&data, &options) else { return ([], []) }
            defer { WebPAnimDecoderDelete(decoder) }
            var info = WebPAnimInfo()
            precondition(WebPAnimDecoderGetInfo(decoder, &info) != 0)
            let bytes = Int(info.canvas_width * info.canvas_height * 4)
            var canvases: [[UInt8]] = [], timestamps: [Int] = []
            while WebPAnimDecoderHasMoreFrames(decoder) != 0 {
                var buffer: UnsafeMutablePointer<UInt8>?
                var timestamp: Int32 = 0
                guard WebPAnimDecoderGetNext(decoder, &buffer, &timestamp) != 0, let buffer else { break }
                canvases.append(Array(UnsafeBufferPointer(start: buffer, count: bytes)))
                timestamps.append(Int(timestamp))
            }
            return (canvases, timestamps)
        }
    }
}
