internal import CWebP
import Foundation
import GifxFrames
import GifxPOSIXFiles
import SystemPackage
import GifxTimeline

/// How an animated WebP is encoded.
public struct WebPOptions: Sendable {
    /// nil: lossless (exact pixels, like gif2webp's default); else lossy at this quality, 0...100.
    public var quality: Float?
    /// The frame size (aspect kept); frames are resized with `RGBAScaler` (area filter when shrinking).
    public var size: SizeRequest
    /// `--target-size`: fit in this many bytes at the best quality that does (lossless first, unless `quality`
    /// asks for lossy; then lossy qualities, at most 3 encodes in all).
    public var targetSize: Int?

    public init(quality: Float? = nil, size: SizeRequest = .original, targetSize: Int? = nil) {
        self.quality = quality; self.size = size; self.targetSize = targetSize
    }
}

/// What a WebP output wrote.
public struct WebPResult: Sendable {
    public var target: String
    public var frames: Int
    public var lossless: Bool
    public var quality: Float?
    /// Total plays written in the ANIM chunk (0: forever).
    public var loopCount: Int
    /// The frame size written.
    public var width: Int
    public var height: Int
    /// With a size cap: the encodes spent (`crf` holds 100 - quality; lossless has none) and the one kept.
    public var targetSize: TargetSizeReport?
}

/// An animated WebP through libwebp's own WebPAnimEncoder (libwebpmux), not libavcodec's libwebp_anim:
/// that wrapper never gives the encoder the end time of the last frame (its flush assembles without a
/// final `WebPAnimEncoderAdd(NULL, end)`), so libwebp invents the last frame's duration, and the loop count
/// is left to the webp muxer. Here each canvas is added at its schedule start in ms (start cs × 10), the end
/// at the GIF's duration, so every frame lasts exactly its delay × 10 ms; the loop count is the policy's
/// plays (0 forever, the WebP reading: total plays, as gif2webp writes it). libwebp merges a frame identical
/// to the one before into it (one longer frame, same display). The encoded animation is held by libwebp
/// until `finish` assembles it: memory is the size of the output file, not of the decoded frames.
public final class WebPSink: ConversionSink {
    public let target: String
    public let options: WebPOptions
    private let timeline: Timeline
    private let loopCount: Int
    private var output: AtomicOutput?
    private var encoder: OpaquePointer?
    private var config = WebPConfig()
    private var frames = 0
    /// Whether any canvas had a pixel that is not opaque.
    private var hasTransparency = false
    /// The frame size written, and the scaler and its buffer when it differs from the canvas.
    private let outputSize: CanvasSize
    private var scaler: RGBAScaler?
    private var scaled: [UInt8] = []
    /// `--target-size`: the canvases for further encodes, the search's report and the quality kept.
    private var spool: CanvasSpool?
    private var targetSizeReport: TargetSizeReport?
    private lazy var finalQuality: Float? = options.quality

    /// libwebp's working set (about 7 canvases: the previous and current canvases, their disposed copies,
    /// the candidate sub-frames it encodes to keep the smallest) plus the encoded animation it holds until
    /// `finish`, estimated as the GIF's own size (lossless WebP is rarely larger).
    public let memoryDemand: MemoryDemand?
    private let threads: Int

    public init(target: String, options: WebPOptions, context: ConversionContext) throws {
        self.target = target
        threads = context.settings.resolvedThreads
        let inputBytes = (try? FileManager.default.attributesOfItem(atPath: context.inputPath)[.size] as? Int) ?? nil
        memoryDemand = MemoryDemand(
            consumer: "webp \(target)", bytes: 7 * context.canvas.width * context.canvas.height * 4 + (inputBytes ?? 0) + (4 << 20),
            setting: options.quality == nil ? "lossless" : "lossy")
        self.options = options
        timeline = context.timeline
        loopCount = min(context.timeline.loop.plays ?? 0, 65535)
        let canvas = options.size.size(for: context.canvas)
        outputSize = canvas
        guard canvas.width <= Int(WEBP_MAX_DIMENSION), canvas.height <= Int(WEBP_MAX_DIMENSION) else {
            throw OutputError(
                path: target, reason: "WebP holds at most \(WEBP_MAX_DIMENSION) pixels per side", failure: .usage)
        }
    }

    deinit { if let encoder { WebPAnimEncoderDelete(encoder) } }

    public func open(in transaction: OutputTransaction) throws {
        output = try transaction.add(target)
        config = try makeConfig(quality: options.quality)
        if outputSize != timeline.canvas {
            scaler = try RGBAScaler(from: timeline.canvas, to: outputSize)
            scaled = [UInt8](repeating: 0, count: outputSize.width * outputSize.height * 4)
        }
        encoder = try makeEncoder()
        if options.targetSize != nil {
            spool = try CanvasSpool(width: timeline.canvas.width, height: timeline.canvas.height)
        }
    }

    /// libwebp's settings: lossless (exact pixels) without `quality`, else lossy at it.
    private func makeConfig(quality: Float?) throws -> WebPConfig {
        var config = WebPConfig()
        guard WebPConfigInit(&config) != 0 else { throw failure("libwebp version mismatch") }
        if let quality {
            config.quality = quality
        } else {
            config.lossless = 1
            config.exact = 1  // keep the colour under transparent pixels as decoded
        }
        config.thread_level = threads > 1 ? 1 : 0  // libwebp's one extra thread, only when the run has two
        guard WebPValidateConfig(&config) != 0 else { throw failure("libwebp rejected the settings") }
        return config
    }

    private func makeEncoder() throws -> OpaquePointer {
        var animation = WebPAnimEncoderOptions()
        guard WebPAnimEncoderOptionsInit(&animation) != 0 else { throw failure("libwebp version mismatch") }
        animation.anim_params.loop_count = Int32(loopCount)
        animation.anim_params.bgcolor = 0  // transparent: what the canvas starts as
        guard let encoder = WebPAnimEncoderNew(Int32(outputSize.width), Int32(outputSize.height), &animation) else {
            throw failure("out of memory")
        }
        return encoder
    }

    public var plannedPasses: Int { 1 }
    public func beginPass(_ pass: Int) throws -> Bool { pass == 0 }

    public func consume(_ canvas: Canvas) throws -> Bool {
        try add(canvas, to: encoder!, config: &config)
        if let spool { try spool.append(canvas) }
        frames += 1
        return true
    }

    /// Adds one canvas (scaled when asked) at its schedule start.
    private func add(_ canvas: Canvas, to encoder: OpaquePointer, config: inout WebPConfig) throws {
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else { throw failure("libwebp version mismatch") }
        defer { WebPPictureFree(&picture) }
        picture.use_argb = 1
        picture.width = Int32(outputSize.width)
        picture.height = Int32(outputSize.height)
        if let scaler {
            scaled.withUnsafeMutableBytes { scaler.scale(canvas.pixels, into: $0.baseAddress!, stride: outputSize.width * 4) }
        }
        try scaled.withUnsafeBufferPointer { scaledPixels in
            let rgba = scaler == nil
                ? canvas.pixels.baseAddress!.assumingMemoryBound(to: UInt8.self) : scaledPixels.baseAddress!
            if !hasTransparency {
                hasTransparency = stride(from: 3, to: outputSize.width * outputSize.height * 4, by: 4).contains { rgba[$0] != 255 }
            }
            guard WebPPictureImportRGBA(&picture, rgba, Int32(outputSize.width * 4)) != 0 else { throw failure("out of memory") }
        }
        let startMs = Int32(timeline.wholeMilliseconds(timeline.frames[canvas.index].start))
        guard WebPAnimEncoderAdd(encoder, &picture, startMs, &config) != 0 else {
            throw failure(String(cString: WebPAnimEncoderGetError(encoder)))
        }
    }

    public func endPass(delivered: Int) throws {}

    public func finish() throws {
        var bytes = try assemble(encoder!)
        if let targetSize = options.targetSize, let spool {
            bytes = try fit(bytes, under: targetSize, spool: spool)
        }
        do throws(Errno) {
            try POSIXFiles.writeAll(output!.descriptor!, bytes)
        } catch {
            throw OutputError.writing(target, errno: error.rawValue)
        }
    }

    /// Ends the animation at the GIF's duration and returns the file's bytes.
    private func assemble(_ encoder: OpaquePointer) throws -> [UInt8] {
        // The end of the last frame: each frame lasts until the next one's start, the last until the end.
        guard WebPAnimEncoderAdd(encoder, nil, Int32(timeline.wholeMilliseconds(timeline.duration.centiseconds)), nil) != 0 else {
            throw failure(String(cString: WebPAnimEncoderGetError(encoder)))
        }
        var data = WebPData()
        guard WebPAnimEncoderAssemble(encoder, &data) != 0 else {
            throw failure(String(cString: WebPAnimEncoderGetError(encoder)))
        }
        defer { WebPDataClear(&data) }
        if hasTransparency { markTransparent(UnsafeMutablePointer(mutating: data.bytes), count: data.size) }
        return [UInt8](UnsafeRawBufferPointer(start: data.bytes, count: data.size))
    }

    /// `--target-size`: the first encode (lossless, or the quality asked), then lossy qualities chosen by
    /// `TargetSizeSearch` over 100 - quality (a rate factor: higher, smaller) from the spooled canvases; the
    /// largest that fits is kept. None fits: refused.
    private func fit(_ first: [UInt8], under cap: Int, spool: CanvasSpool) throws -> [UInt8] {
        var search = TargetSizeSearch(target: cap, range: 0...95, halvingStep: 40, wholeSteps: true)
        var encodes = [TargetSizeEncode(webpQuality: options.quality.map(Double.init), bytes: first.count)]
        var kept = first.count <= cap ? first : nil
        var keptQuality = options.quality
        func encode(quality: Float) throws {
            var config = try makeConfig(quality: quality)
            let encoder = try makeEncoder()
            defer { WebPAnimEncoderDelete(encoder) }
            try spool.replay { try add($0, to: encoder, config: &config) }
            let bytes = try assemble(encoder)
            search.record(.init(factor: 100 - Double(quality), bytes: bytes.count))
            encodes.append(TargetSizeEncode(webpQuality: Double(quality), bytes: bytes.count))
            if bytes.count <= cap && bytes.count > (kept?.count ?? -1) {
                kept = bytes
                keptQuality = quality
            }
        }
        if let quality = options.quality {
            search.record(.init(factor: 100 - Double(quality), bytes: first.count))
        } else if first.count > cap {
            try encode(quality: 50)  // lossless does not fit: the middle of the lossy scale, measured from there
        }
        while kept.map({ !search.isWithinWindow(.init(factor: 0, bytes: $0.count)) }) ?? true,
              encodes.count < 3, let factor = search.next {
            try encode(quality: Float(100 - factor))
        }
        guard let kept else {
            throw TargetSizeUnreachable(path: target, target: cap, smallest: encodes.min { $0.bytes < $1.bytes }!)
        }
        let keptEncode = encodes.last { $0.bytes == kept.count } ?? encodes[0]
        targetSizeReport = TargetSizeReport(
            target: cap, bytes: kept.count, kept: keptEncode, attempts: encodes, encodes: encodes.count,
            bestQualityFitsBelow: Double(kept.count) < TargetSizeSearch.lowestShare * Double(cap)
                && (keptQuality == nil || keptQuality! >= 100))
        finalQuality = keptQuality
        return kept
    }

    public var result: OutputResult {
        .webp(WebPResult(
            target: target, frames: frames, lossless: finalQuality == nil, quality: finalQuality,
            loopCount: loopCount, width: outputSize.width, height: outputSize.height, targetSize: targetSizeReport))
    }

    /// libwebp (1.2.4) crops each frame to the area that changes, the first to its non-transparent pixels,
    /// and sets the VP8X alpha flag only when a cropped frame still holds transparency: a GIF whose
    /// transparent pixels all fall outside those rectangles came out flagged opaque, and decoders (Pillow,
    /// browsers) then show the uncovered canvas, transparent by the format, as opaque black. The flag
    /// ("the image contains transparency") is set here when any composite had a transparent pixel.
    private func markTransparent(_ bytes: UnsafeMutablePointer<UInt8>?, count: Int) {
        guard let bytes, count > 20 else { return }
        let vp8x = Array(UnsafeBufferPointer(start: bytes + 12, count: 4))
        guard vp8x == Array("VP8X".utf8) else { return }
        bytes[20] |= 0x10  // VP8X flags: ALPHA
    }

    private func failure(_ reason: String) -> OutputError {
        OutputError(path: target, reason: "WebP: \(reason)", failure: .internalError)
    }
}
