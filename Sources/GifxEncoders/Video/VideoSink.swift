import Foundation
import GifxFrames
import GifxTimeline

/// What a video output wrote, with the plan it followed (for the caller's statistics): values only, so
/// nothing of the finished writer escapes.
public struct VideoResult: Sendable {
    public var target: String
    /// The settings the video was written with.
    public var settings: VideoSettings
    /// Where each GIF frame went in time.
    public var plan: OutputPlan
    /// How the MP4's index was written; `nil` for WebM.
    public var layout: MP4Layout?
    /// The H.264 level libx264 wrote in the stream's SPS; `nil` for other codecs.
    public var signalledH264Level: H264Level?
    /// The H.264 level the size and peak rate require; `nil` for other codecs.
    public var requiredH264Level: H264Level?
    /// The highest rate the level asked for (`settings.level`) allows at `outputSize`: the cap the plan was
    /// made under (unless a lower `--max-fps` was given); `nil` without a level.
    public var levelRateCap: Rational?
    /// The level problem without its remedy, when the level is above what many players decode.
    public var levelProblem: String?
    /// How many GIF frames the rate never shows, and the worst start error of the others; `nil` when none.
    public var droppedFramesWarning: String?
    /// An AVIF at a constant rate browsers cannot time exactly (see `VideoWriter.imageTimingWarning`).
    public var imageTimingWarning: String?
    public var summary: VideoSummary
    public var frameRate: Rational
    public var outputSize: CanvasSize
    public var loops: Int
    public var tuning: EncoderTuning
    /// Whether the stream kept the GIF's transparency (VP9 in WebM, yuva420p) rather than compositing it.
    public var keepsAlpha: Bool
}

/// The video sink (MP4 or WebM): its plan is an `VideoWriter` (frame rate, size, repeat counts, encoder tuning,
/// all checked when the sink is made); one pass per play pushes canvases into an `VideoSession`.
/// A VP9 WebM opens its encoder on the first canvas, which decides whether the stream keeps alpha.
public final class VideoSink: ConversionSink {
    public let target: String
    public let writer: VideoWriter
    private let metadata: GifMetadata
    private var output: AtomicOutput?
    private var session: VideoSession?
    private var summary = VideoSummary(canvases: 0, outputFrames: 0)
    private var keepsAlpha = false
    /// Called with the session when it opens (a verifying conversion watches its packets).
    var sessionOpened: ((VideoSession) throws -> Void)?

    public init(target: String, options: VideoSettings, context: ConversionContext) throws {
        self.target = target
        writer = try VideoWriter(
            timeline: context.timeline, options: options, threads: Self.encoderThreads(context.settings),
            fragmentAbove: context.settings.fragmentedMP4Above ?? MP4Layout.defaultFragmentAbove,
            libavLogging: context.settings.libavLogging)
        metadata = context.metadata
    }

    /// Opens the encoder now (so a frame size the encoder cannot hold fails before any decoding), or, for a
    /// VP9 WebM, on the first canvas, which decides whether the stream keeps alpha.
    public func open(in transaction: OutputTransaction) throws {
        let output = try transaction.add(target)
        self.output = output
        if !writer.canKeepAlpha {
            session = try namingTarget { try writer.begin(path: output.temporaryPath) }
            if let session { try sessionOpened?(session) }
        }
    }

    /// `--threads`, else 0 (the encoder's own choice, from the online cores) when the process may use every
    /// core, else the cores it may use (an affinity mask or a CPU quota that the encoder would not see).
    static func encoderThreads(_ settings: RunSettings) -> Int {
        if let threads = settings.threads { return threads }
        let cores = AvailableCores.current.count
        return cores >= ProcessInfo.processInfo.activeProcessorCount ? 0 : cores
    }

    public var memoryDemand: MemoryDemand? {
        MemoryDemand(
            consumer: "video \(target) (\(writer.tuning.encoder))",
            levels: writer.tuningLadder.map { .init(bytes: $0.estimatedBytes, setting: $0.setting) })
    }

    public func useMemoryLevel(_ level: Int, plan: MemoryPlan) {
        let budget = plan.budgetBytes.map { "\(MemoryPlanner.mebibytes($0)) budget (\(plan.budgetSource))" }
            ?? "no memory limit known"
        let reason = level == 0
            ? "fastest settings within \(budget)"
            : "leaner settings to fit \(budget)"
        writer.useTuning(level, reason: reason, budget: plan.budgetBytes)
    }

    public var plannedPasses: Int { writer.options.loops }

    public func beginPass(_ pass: Int) throws -> Bool { pass < writer.options.loops }

    public func consume(_ canvas: Canvas) throws -> Bool {
        if session == nil, let output {
            keepsAlpha = writer.canKeepAlpha && Transparency.mayShow(firstCanvas: canvas, metadata: metadata)
            session = try namingTarget { try writer.begin(path: output.temporaryPath, keepAlpha: keepsAlpha) }
            if let session { try sessionOpened?(session) }
        }
        try namingTarget { try openSession().add(canvas) }
        return true
    }

    public func endPass(delivered: Int) throws { try namingTarget { try openSession().endLoop() } }

    public func finish() throws { summary = try namingTarget { try openSession().finish() } }

    /// The session the first canvas opened (a pass that delivered none is the frame source's fault).
    private func openSession() throws -> VideoSession {
        guard let session else {
            throw LibavError("the frame source delivered no frames", failure: .internalError)
        }
        return session
    }

    public var result: OutputResult {
        .video(VideoResult(
            target: target, settings: writer.options, plan: writer.plan, layout: writer.layout,
            signalledH264Level: writer.signalledLevel, requiredH264Level: writer.requiredLevel,
            levelRateCap: writer.levelRateCap,
            levelProblem: writer.levelProblem,
            droppedFramesWarning: writer.droppedFramesWarning, imageTimingWarning: writer.imageTimingWarning, summary: summary, frameRate: writer.frameRate,
            outputSize: writer.outputSize, loops: writer.options.loops, tuning: writer.tuning, keepsAlpha: keepsAlpha))
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
