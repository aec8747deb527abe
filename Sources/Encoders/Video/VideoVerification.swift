import Foundation
import GifxChecks
import GifxFrames
import GifxPipeline
import GifxTimeline

/// A verified video (MP4, WebM, AVIF): its packets are decoded as they are written (`VideoTap`, opened with the
/// encoder's session), and the finished temporary is read back packet by packet.
extension VideoSink: VerifiableSink {
    package func makeCheck(context: ConversionContext, settings: VerifySettings) throws -> any OutputCheck {
        VideoCheck(self, context: context, settings: settings)
    }
}

/// The check of one video: the decoder and the queue of YUV frames the encoder has not yet returned (its delay:
/// room for 64 frames at 1.5 bytes a pixel).
final class VideoCheck: OutputCheck {
    private unowned let sink: VideoSink
    private let context: ConversionContext
    private let settings: VerifySettings
    private var tap: VideoTap?
    /// The plan's bytes for the check; the tap sizes its ring of references with them.
    private var bytes: Int?

    init(_ sink: VideoSink, context: ConversionContext, settings: VerifySettings) {
        self.sink = sink
        self.context = context
        self.settings = settings
        sink.sessionOpened = { [unowned self, unowned sink] session in
            guard let result = sink.result as? VideoResult else { return }
            tap = try VideoTap(
                session: session, video: sink.video, keepAlpha: result.keepsAlpha, timeline: context.timeline,
                settings: settings, run: context.settings, memoryBudget: bytes ?? memoryBytes)
        }
    }

    var memoryBytes: Int { 64 * context.metadata.canvasBytes * 3 / 8 + (16 << 20) }

    func useMemory(bytes: Int) { self.bytes = bytes }

    func verify(_ temporaries: [AtomicOutput], in context: ConversionContext, settings: VerifySettings) throws
        -> OutputVerification?
    {
        guard let tap, let output = temporaries.first else { return nil }
        return try tap.finish(temporaryPath: output.temporaryPath, target: sink.target)
    }
}

extension Verifier {
    /// A video read back with libavformat and libavcodec (or anything else libavformat opens: `gifx verify`'s reader
    /// of a path no kind names): every frame matched to the schedule within the PSNR bound; an AVIF's loop count from
    /// its edit list; the declared duration against the schedule's plays.
    func verifyVideo(_ path: String, expected: Expectation, feed canvasFeed: CanvasFeed? = nil) throws -> OutputVerification {
        let reader = try AVFrameReader(path: path, threads: run.threads)
        var report = OutputVerification(
            path: path, kind: OutputReader.video.name, codec: reader.codecName, width: reader.width, height: reader.height,
            exact: false)
        report.pixelFormat = reader.tags.pixelFormat
        report.colorSpace = reader.tags.colorSpace
        report.colorRange = reader.tags.colorRange
        report.colorPrimaries = reader.tags.colorPrimaries
        report.colorTransfer = reader.tags.colorTransfer
        report.level = reader.tags.level
        report.profile = reader.tags.profile
        let playMs = timeline.milliseconds(timeline.duration.units)
        // The plays the file holds, from its packets (a `--loops k` video holds k): never from the declared
        // length, which is what is checked against them (a header that declared 10x the schedule read as 10 plays).
        let fromPackets = AVFrameReader.packetSpan(path: path).map { $0.seconds / timeline.playDuration.seconds }
        let plays = expected.plays ?? (fromPackets ?? reader.durationMs.map { $0 / playMs }).map { max(1, Int($0.rounded())) } ?? 1
        // The first frame tells the pixel format, matrix and range the references go through.
        let first = try reader.next()
        let maker = try ReferenceMaker(
            canvas: timeline.canvas, output: CanvasSize(width: reader.width, height: reader.height),
            keepAlpha: reader.hasAlpha, background: settings.background, chroma: reader.yuvFormat)
        let matcher = TimedMatcher(
            timeline: timeline, source: CanvasReferenceSource(feed: canvasFeed ?? feed(), maker: maker), plays: plays,
            bound: settings.minPSNR ?? VerifyDefaults.minPSNR, memoryBudget: run.memoryBudget,
            ssimWeights: LumaSSIM.weights(colorSpace: reader.tags.colorSpace))
        if settings.recordsFrames { matcher.frameLog = [] }
        var next = first
        while let (start, duration) = next {
            try reader.rgba.withUnsafeBufferPointer {
                try matcher.add(ShownFrame(
                    pixels: $0.baseAddress!, stride: reader.frameWidth, startMs: start, endMs: start + duration))
            }
            next = try reader.next()
        }
        let declaredMs = reader.durationMs.map { $0 - reader.startOffsetMs }
        matcher.finish(into: &report, settings: settings, knownTolerance: known(expected), endMs: declaredMs)
        // An AVIF's loop count, from its edit list: the schedule's plays, or once for a `--loops k` AVIF, whose
        // frames hold the k plays.
        // Read by the AVIF input's own reader of edit lists (as Chromium and Firefox read them).
        if let declared = try AVIFBoxes.declaredLoop(path: path) {
            let count: Int
            switch declared {
            case .still: count = 1
            case .plays(let n): count = n
            case .forever: count = 0
            }
            let wanted = plays > 1 ? 1 : timeline.loop.plays ?? 0
            report.loopCount = count
            report.expectedLoopCount = wanted
            if count != wanted {
                report.failures.append("loop count \(count), the schedule's is \(wanted) (0: forever)")
            }
        }
        // What the file declares (the container's length: MP4 mvhd/tkhd/mdhd, the Matroska Duration) against the
        // schedule's plays: within the timing mode's tolerance (one output frame at a resampled rate, whose last
        // frame ends on its own grid) and at least a millisecond (WebM counts whole ms).
        if let declaredMs, abs(declaredMs - Double(plays) * playMs) > max(1, report.timingToleranceMs) {
            report.failures.append(String(
                format: "declares %.3f s, the schedule is %.3f s%@", declaredMs / 1000, Double(plays) * playMs / 1000,
                plays > 1 ? " (\(plays) plays)" : ""))
        }
        return report
    }
}
