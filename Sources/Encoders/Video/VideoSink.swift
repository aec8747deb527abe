import Foundation
import GifxPOSIXFiles
import GifxFrames
import GifxPipeline
import GifxTimeline

#if canImport(Glibc)
import Glibc
#endif

/// What a video output wrote, with the plan it followed (for the caller's statistics): values only, so
/// nothing of the finished encoder escapes.
public struct VideoResult: Sendable {
    public var target: String
    /// The settings the video was written with.
    public var settings: VideoSettings
    /// Where each GIF frame went in time.
    public var plan: OutputPlan
    /// How the MP4's index was written; `nil` for WebM.
    package var layout: MP4Layout?
    /// The H.264 level libx264 wrote in the stream's SPS; `nil` for other codecs.
    package var signalledH264Level: H264Level?
    /// The H.264 level the size and peak rate require; `nil` for other codecs.
    package var requiredH264Level: H264Level?
    /// The highest rate the level asked for (`settings.level`) allows at `outputSize`: the cap the plan was
    /// made under (unless a lower `--max-fps` was given); `nil` without a level.
    public var levelRateCap: Rational?
    /// The level problem without its remedy, when the level is above what many players decode.
    public var levelProblem: String?
    /// How many GIF frames the rate never shows, and the worst start error of the others; `nil` when none.
    public var droppedFramesWarning: String?
    /// An AVIF at a constant rate browsers cannot time exactly (see `VideoPlan.imageTimingWarning`).
    public var imageTimingWarning: String?
    public var summary: VideoSummary
    public var frameRate: Rational
    public var outputSize: CanvasSize
    public var loops: Int
    package var tuning: EncoderTuning
    /// Whether the stream kept the GIF's transparency (VP9 in WebM, yuva420p) rather than compositing it.
    public var keepsAlpha: Bool
    /// With `VideoSettings.targetSize`: the encodes spent and the one kept.
    public var targetSize: TargetSizeReport?
}

/// The video sink (MP4 or WebM): its plan is a `VideoPlan` (frame rate, size, repeat counts, encoder tuning,
/// all checked when the sink is made); one pass per play pushes canvases into a `VideoSession`.
/// A VP9 WebM opens its encoder on the first canvas, which decides whether the stream keeps alpha.
package final class VideoSink: ConversionSink {
    /// Where the output goes.
    package let destination: OutputTarget
    /// The target's name in results, errors and the memory plan (`OutputTarget.name`).
    package let target: String
    /// The plan of the output kept (with `--target-size`, the encode that fit best).
    package private(set) var video: VideoPlan
    private let metadata: AnimationMetadata
    /// With an edit whose first canvas is not the earliest GIF frame shown (a reversal): its canvas source,
    /// whose spool learnt whether that earliest canvas is opaque (`Transparency.mayShow` reasons from it).
    private let reorderedSource: EditedCanvases?
    private let context: ConversionContext
    /// `--target-size`: the canvases of the first pass, for further encodes; the search's report.
    private var spool: CanvasSpool?
    private var targetSizeReport: TargetSizeReport?
    /// `--target-size` with x264/x265: the first encode's rate statistics, for a second pass.
    private var rateStats: RateStatsFile?
    private var memoryLevel = 0
    private var output: AtomicOutput?
    private var session: VideoSession?
    private var summary = VideoSummary(canvases: 0, outputFrames: 0)
    private var keepsAlpha = false
    /// Called with the session when it opens (a verifying conversion watches its packets).
    var sessionOpened: ((VideoSession) throws -> Void)?

    package init(target: OutputTarget, options: VideoSettings, context: ConversionContext) throws {
        destination = target
        self.target = target.name
        video = try VideoPlan(
            timeline: context.timeline, options: options, threads: context.settings.encoderThreads,
            diagnostics: context.settings.diagnostics)
        metadata = context.metadata
        let firstIsEarliest = context.edit.map { $0.sourceFrames.first == $0.sourceRange.lowerBound } ?? true
        reorderedSource = firstIsEarliest ? nil : context.editedCanvases
        self.context = context
        verified = context.settings.verify != nil
    }

    /// Opens the encoder now (so a frame size the encoder cannot hold fails before any decoding), or, for a
    /// VP9 WebM, on the first canvas, which decides whether the stream keeps alpha.
    package func open(in transaction: OutputTransaction) throws {
        let output = try transaction.add(destination)
        self.output = output
        // To standard output, MP4 and WebM stream as they are encoded; a verified output is first read back
        // from its temporary file, so it is copied out once it passed.
        // A size cap may take further encodes: that output is copied out once the one kept is known.
        if output.isDescriptor && video.canStream && !verified && video.options.targetSize == nil {
            output.markStreamed()
        }
        if video.options.targetSize != nil {
            spool = try CanvasSpool(
                width: context.timeline.canvas.width, height: context.timeline.canvas.height,
                folder: context.settings.resolvedScratchFolder)
            if video.options.codec.hasTwoPass {
                let stats = try RateStatsFile(folder: context.settings.resolvedScratchFolder)
                rateStats = stats
                video.rateControl = [.pass(1), .stats(path: stats.path)]
            }
        }
        if !video.canKeepAlpha {
            session = try namingTarget { try begin(output, keepAlpha: false) }
            if let session { try sessionOpened?(session) }
        }
    }

    /// Whether the run reads this output back before committing it (`RunSettings.verify`).
    private let verified: Bool

    private func begin(_ output: AtomicOutput, keepAlpha: Bool) throws -> VideoSession {
        try video.begin(
            path: output.temporaryPath, keepAlpha: keepAlpha, streamingTo: output.streamed ? output.target : nil)
    }

    package var memoryDemand: MemoryDemand? {
        MemoryDemand(
            consumer: "video \(target) (\(video.tuning.encoder))",
            levels: video.tuningLadder.map { .init(bytes: $0.estimatedBytes, setting: $0.setting) })
    }

    package var usesLibav: Bool { true }

    package func useMemory(_ share: MemoryPlan.Share, of plan: MemoryPlan) {
        let level = share.level
        let budget = plan.budgetBytes.map { "\(MemoryPlanner.mebibytes($0)) budget (\(plan.budgetSource))" }
            ?? "no memory limit known"
        let reason = level == 0
            ? "fastest settings within \(budget)"
            : "leaner settings to fit \(budget)"
        video.useTuning(level, reason: reason, budget: plan.budgetBytes)
        memoryLevel = level
    }

    package var plannedPasses: Int { video.options.loops }

    package func beginPass(_ pass: Int) throws -> Bool { pass < video.options.loops }

    package func consume(_ canvas: Canvas) throws -> Bool {
        if session == nil, let output {
            // Canvases only lose transparency as frames are drawn (unless a disposal clears, which `mayShow`
            // checks), so an edit showing a later frame first reasons from the earliest one, which the spool
            // saw (unknown: alpha is kept).
            if let reorderedSource {
                keepsAlpha = video.canKeepAlpha
                    && Transparency.mayShow(
                        firstCanvasIsOpaque: reorderedSource.earliestCanvasIsOpaque ?? false, metadata: metadata)
            } else {
                keepsAlpha = video.canKeepAlpha && Transparency.mayShow(firstCanvas: canvas, metadata: metadata)
            }
            session = try namingTarget { try begin(output, keepAlpha: keepsAlpha) }
            if let session { try sessionOpened?(session) }
        }
        try namingTarget { try openSession().add(canvas) }
        if let spool, spool.count < plannedCanvases { try spool.append(canvas) }
        return true
    }

    /// Canvases of one pass (what the spool keeps for further encodes).
    private var plannedCanvases: Int { context.timeline.frames.count }

    package func endPass(delivered: Int) throws { try namingTarget { try openSession().endLoop() } }

    package func finish() throws {
        summary = try namingTarget { try openSession().finish() }
        if let targetSize = video.options.targetSize, let output, let spool {
            // Closing the first encoder is what completes its rate statistics file (x264 renames it then).
            session = nil
            try namingTarget { try fit(under: targetSize, output: output, spool: spool) }
        }
    }

    /// `--target-size`: further encodes from the spooled canvases (`VideoSizeFitter`); the one kept ends up at
    /// the output's temporary path, its plan and summary become the result's. None fits: refused.
    private func fit(under targetSize: Int, output: AtomicOutput, spool: CanvasSpool) throws {
        let fitter = VideoSizeFitter(
            target: targetSize, first: video, firstBytes: POSIXFiles.fileSize(output.temporaryPath) ?? 0, stats: rateStats,
            makePlan: { [context, memoryLevel, video] options, rateControl in
                let attempt = try VideoPlan(
                    timeline: context.timeline, options: options, threads: context.settings.encoderThreads,
                    diagnostics: context.settings.diagnostics)
                attempt.useTuning(memoryLevel, reason: video.tuning.reason, budget: video.tuning.budgetBytes)
                attempt.rateControl = rateControl
                return attempt
            },
            encode: { [keepsAlpha] attempt, path in
                let session = try attempt.begin(path: path, keepAlpha: keepsAlpha)
                for _ in 0..<attempt.options.loops {
                    try spool.replay { try session.add($0) }
                    try session.endLoop()
                }
                return (try session.finish(), POSIXFiles.fileSize(path) ?? 0)
            })
        let kept = try fitter.run(temporaryPath: output.temporaryPath, displayPath: output.displayPath)
        if let keptVideo = kept.video, let keptSummary = kept.summary {
            video = keptVideo
            summary = keptSummary
        }
        targetSizeReport = kept.report
    }

    /// The session the first canvas opened (a pass that delivered none is the frame source's fault).
    private func openSession() throws -> VideoSession {
        guard let session else {
            throw LibavError("the frame source delivered no frames", failure: .internalError)
        }
        return session
    }

    package var result: any OutputResult {
        VideoResult(
            target: target, settings: video.options, plan: video.plan, layout: video.layout,
            signalledH264Level: video.signalledLevel, requiredH264Level: video.requiredLevel,
            levelRateCap: video.levelRateCap,
            levelProblem: video.levelProblem,
            droppedFramesWarning: video.droppedFramesWarning, imageTimingWarning: video.imageTimingWarning,
            summary: summary, frameRate: video.frameRate,
            outputSize: video.outputSize, loops: video.options.loops, tuning: video.tuning, keepsAlpha: keepsAlpha,
            targetSize: targetSizeReport)
    }

    /// libav names the file it writes, the hidden temporary: users asked for the target.
    private func namingTarget<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as LibavError where output != nil && error.subjectPath == output?.temporaryPath {
            throw error.naming(target)
        }
    }
}
