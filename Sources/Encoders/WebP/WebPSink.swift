internal import CWebP
import Foundation
import GifxFrames
import GifxPOSIXFiles
import GifxPipeline
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

/// An animated WebP, written as it is encoded (`AnimatedWebPWriter`): each canvas is encoded with libwebp's
/// `WebPEncode` on the rectangle that changed and its ANMF chunk written once the next frame decides how it ends;
/// not libavcodec's libwebp_anim, which never gives the encoder the end time of the last frame, and no longer
/// libwebp's WebPAnimEncoder, which holds the whole encoded animation until it is assembled (66 MB for a large
/// lossless WebP). Each canvas is shown from its schedule start in ms (start cs × 10), the last until the GIF's
/// duration, so every frame lasts exactly its delay × 10 ms; a canvas identical to the one before lengthens it
/// (one longer frame, same display). The loop count is the policy's plays (0 forever, the WebP reading: total
/// plays, as gif2webp writes it). Memory: four canvases and one encoded frame, whatever the animation's length.
/// To standard output the file goes out as it is encoded (docs/delivery.md); a redirect to a regular file gets
/// its header completed at the end, a pipe keeps the streamed header (RIFF size unknown).
package final class WebPSink: ConversionSink {
    /// Where the output goes.
    package let destination: OutputTarget
    /// The target's name in results, errors and the memory plan (`OutputTarget.name`).
    package let target: String
    package let options: WebPOptions
    private let timeline: Timeline
    /// The run's scratch folder: the canvas spool and further `--target-size` encodes.
    private let scratchFolder: String
    private let loopCount: Int
    private var output: AtomicOutput?
    private var writer: AnimatedWebPWriter?
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
    /// `--verify` reads the output back from its temporary file, so it is not streamed.
    private let verified: Bool

    /// A constant, whatever the frame count: the writer's four canvases (current, its working copy, previous,
    /// previous disposed to the background), libwebp's working set for one frame and one encoded frame (at most
    /// about a canvas), plus the scaled canvas when resizing. Measured alone at 1280×720 (the dithered bench
    /// GIF, lossless; release build): peak RSS 77.6 MiB on one thread and 77.9 MiB with libwebp's extra thread,
    /// 40-44 MiB over the run's other consumers, which 11 canvases + 4 MiB (42.7 MiB) covers within the
    /// budget's 10 % margin; the old estimate (7 canvases on one thread, fitted to runs beside other outputs)
    /// let a 70 MiB budget peak at 77.6 MiB. The leaner level is one thread: the same bytes, slower.
    package let memoryDemand: MemoryDemand?
    private var threads: Int

    package init(target: OutputTarget, options: WebPOptions, context: ConversionContext) throws {
        destination = target
        self.target = target.name
        threads = context.settings.resolvedThreads
        verified = context.settings.verify != nil
        let canvas = options.size.size(for: context.canvas)
        let canvasBytes = canvas.width * canvas.height * 4
        let scaledBytes = canvas == context.canvas ? 0 : canvasBytes
        let kind = options.quality == nil ? "lossless" : "lossy"
        let oneThread = MemoryDemand.Level(bytes: 11 * canvasBytes + scaledBytes + (4 << 20), setting: "\(kind), one thread")
        memoryDemand = MemoryDemand(
            consumer: "webp \(target)",
            levels: threads > 1
                ? [MemoryDemand.Level(bytes: 12 * canvasBytes + scaledBytes + (4 << 20), setting: "\(kind), two threads"), oneThread]
                : [oneThread])
        self.options = options
        timeline = context.timeline
        scratchFolder = context.settings.resolvedScratchFolder
        loopCount = min(context.timeline.loop.plays ?? 0, 65535)
        outputSize = canvas
        guard canvas.width <= Int(WEBP_MAX_DIMENSION), canvas.height <= Int(WEBP_MAX_DIMENSION) else {
            throw OutputError(
                path: self.target, reason: "WebP holds at most \(WEBP_MAX_DIMENSION) pixels per side", failure: .usage)
        }
    }

    /// The leaner level runs libwebp on one thread.
    package func useMemory(_ share: MemoryPlan.Share, of plan: MemoryPlan) {
        if share.level > 0 { threads = 1 }
    }

    package func open(in transaction: OutputTransaction) throws {
        let output = try transaction.add(destination)
        self.output = output
        config = try makeConfig(quality: options.quality)
        if outputSize != timeline.canvas {
            scaler = try RGBAScaler(from: timeline.canvas, to: outputSize)
            scaled = [UInt8](repeating: 0, count: outputSize.width * outputSize.height * 4)
        }
        let destination: WebPDestination
        // Standard output redirected to a regular file is written in place, its header patched at the end. A
        // pipe is not: a WebP's RIFF size comes first and is known only at the end, and libwebp's whole-file
        // readers (webpmux, dwebp, Pillow, ImageMagick) refuse a file whose size is not it. A pipe's WebP is the
        // transaction's private scratch file, copied out once complete: it holds encoded chunks only, so
        // memory stays flat in the frame count (docs/delivery.md).
        if let fd = output.target.descriptor, !verified && options.targetSize == nil,
           let redirected = WebPDestination.regularFile(FileDescriptor(rawValue: fd), name: output.displayPath) {
            output.markStreamed()
            destination = redirected
        } else {
            destination = WebPDestination(descriptor: output.descriptor!, patchOffset: 0, ownsFile: true, name: output.displayPath)
        }
        writer = try makeWriter(config: config, destination: destination)
        if options.targetSize != nil {
            spool = try CanvasSpool(width: timeline.canvas.width, height: timeline.canvas.height, folder: scratchFolder)
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

    private func makeWriter(config: WebPConfig, destination: WebPDestination) throws -> AnimatedWebPWriter {
        do {
            return try AnimatedWebPWriter(
                width: outputSize.width, height: outputSize.height, loopCount: loopCount, config: config,
                destination: destination)
        } catch let error as WebPWriterError {
            throw failure(error.description)
        }
    }

    package var plannedPasses: Int { 1 }
    package func beginPass(_ pass: Int) throws -> Bool { pass == 0 }

    package func consume(_ canvas: Canvas) throws -> Bool {
        try add(canvas, to: writer!)
        if let spool { try spool.append(canvas) }
        frames += 1
        return true
    }

    /// Adds one canvas (scaled when asked) at its schedule start.
    private func add(_ canvas: Canvas, to writer: AnimatedWebPWriter) throws {
        if let scaler {
            scaled.withUnsafeMutableBytes { scaler.scale(canvas.pixels, into: $0.baseAddress!, stride: outputSize.width * 4) }
        }
        let startMs = timeline.wholeMilliseconds(timeline.frames[canvas.index].start)
        try scaled.withUnsafeBufferPointer { scaledPixels in
            let rgba = scaler == nil
                ? UnsafePointer(canvas.pixels.baseAddress!.assumingMemoryBound(to: UInt8.self)) : scaledPixels.baseAddress!
            if !hasTransparency {
                hasTransparency = stride(from: 3, to: outputSize.width * outputSize.height * 4, by: 4).contains { rgba[$0] != 255 }
            }
            do {
                try writer.add(rgba: rgba, startMs: startMs)
            } catch let error as WebPWriterError {
                throw failure(error.description)
            }
        }
    }

    package func endPass(delivered: Int) throws {}

    package func finish() throws {
        try end(writer!)
        if let targetSize = options.targetSize, let spool {
            try fit(first: Int(writer!.bytesWritten), under: targetSize, spool: spool)
        }
        writer = nil
    }

    /// Ends the animation at the GIF's duration: each frame lasts until the next one's start, the last until the end.
    private func end(_ writer: AnimatedWebPWriter) throws {
        do {
            try writer.finish(endMs: timeline.wholeMilliseconds(timeline.duration.units), transparent: hasTransparency)
        } catch let error as WebPWriterError {
            throw failure(error.description)
        }
    }

    /// `--target-size`: the first encode (lossless, or the quality asked), then lossy qualities chosen by
    /// `TargetSizeSearch` over 100 - quality (a rate factor: higher, smaller) from the spooled canvases, each
    /// into its own scratch file; the largest that fits is kept (copied over the output). None fits: refused.
    private func fit(first: Int, under cap: Int, spool: CanvasSpool) throws {
        var search = TargetSizeSearch(target: cap, range: 0...95, halvingStep: 40, wholeSteps: true)
        var encodes = [TargetSizeEncode(webpQuality: options.quality.map(Double.init), bytes: first)]
        /// The encode kept: its size and, unless it is the first (already in the output), its scratch file.
        var kept: (bytes: Int, file: ScratchWebP?)? = first <= cap ? (first, nil) : nil
        var keptQuality = options.quality
        func encode(quality: Float) throws {
            let scratch = try ScratchWebP(name: target, folder: scratchFolder)
            let writer = try makeWriter(
                config: try makeConfig(quality: quality),
                destination: WebPDestination(descriptor: scratch.fd, patchOffset: 0, ownsFile: true, name: target))
            try spool.replay { try add($0, to: writer) }
            try end(writer)
            let bytes = Int(writer.bytesWritten)
            search.record(.init(factor: 100 - Double(quality), bytes: bytes))
            encodes.append(TargetSizeEncode(webpQuality: Double(quality), bytes: bytes))
            if bytes <= cap && bytes > (kept?.bytes ?? -1) {
                kept = (bytes, scratch)
                keptQuality = quality
            }
        }
        if let quality = options.quality {
            search.record(.init(factor: 100 - Double(quality), bytes: first))
        } else if first > cap {
            try encode(quality: 50)  // lossless does not fit: the middle of the lossy scale, measured from there
        }
        while kept.map({ !search.isWithinWindow(.init(factor: 0, bytes: $0.bytes)) }) ?? true,
              encodes.count < 3, let factor = search.next {
            try encode(quality: Float(100 - factor))
        }
        guard let kept else {
            throw TargetSizeUnreachable(path: target, target: cap, smallest: encodes.min { $0.bytes < $1.bytes }!)
        }
        if let file = kept.file { try file.copy(over: output!.descriptor!, name: output!.displayPath) }
        let keptEncode = encodes.last { $0.bytes == kept.bytes } ?? encodes[0]
        targetSizeReport = TargetSizeReport(
            target: cap, bytes: kept.bytes, kept: keptEncode, attempts: encodes, encodes: encodes.count,
            bestQualityFitsBelow: Double(kept.bytes) < TargetSizeSearch.lowestShare * Double(cap)
                && (keptQuality == nil || keptQuality! >= 100))
        finalQuality = keptQuality
    }

    package var result: any OutputResult {
        WebPResult(
            target: target, frames: frames, lossless: finalQuality == nil, quality: finalQuality,
            loopCount: loopCount, width: outputSize.width, height: outputSize.height, targetSize: targetSizeReport)
    }

    private func failure(_ reason: String) -> OutputError {
        OutputError(path: target, reason: "WebP: \(reason)", failure: .internalError)
    }
}

/// One further `--target-size` encode's file, in the scratch folder, removed when no longer referenced.
private final class ScratchWebP {
    let fd: FileDescriptor
    let path: String

    init(name: String, folder: String) throws {
        switch POSIXFiles.makeHiddenTemporary(beside: folder + "/gifx-webp") {
        case .success(let file):
            fd = file.fd
            path = file.path
        case .failure(let error):
            throw OutputError(path: name, reason: "cannot create a scratch file: \(error)", failure: .io)
        }
        TemporaryFiles.shared.register(path)
    }

    deinit {
        try? fd.close()
        unlink(path)
        TemporaryFiles.shared.unregister(path)
    }

    /// Replaces the whole file open at `target` with this one.
    func copy(over target: FileDescriptor, name: String) throws {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var offset: Int64 = 0
        do {
            while true {
                let count = try buffer.withUnsafeMutableBytes { try fd.read(fromAbsoluteOffset: offset, into: $0) }
                if count == 0 { break }
                try buffer.withUnsafeBytes { raw in
                    var done = 0
                    while done < count {
                        done += try target.write(
                            toAbsoluteOffset: offset + Int64(done), UnsafeRawBufferPointer(rebasing: raw[done..<count]))
                    }
                }
                offset += Int64(count)
            }
            try target.resize(to: offset)
            _ = try target.seek(offset: offset, from: .start)
        } catch {
            throw OutputError.writing(name, errno: (error as? Errno)?.rawValue ?? EIO)
        }
    }
}
