import Frames
import Timeline

/// What an MP4 output wrote, with the plan it followed (for `--stats`).
public struct VideoResult {
    public var target: String
    /// The plan, with what the encoder reported (signalled level, warnings).
    public var writer: MP4Writer
    public var summary: MP4Summary
    public var frameRate: Rational
    public var outputSize: CanvasSize
    public var loops: Int
    public var tuning: EncoderTuning
}

/// The MP4 sink: its plan is an `MP4Writer` (frame rate, size, repeat counts, encoder tuning, all checked
/// when the sink is made); one pass per `--loops` play pushes canvases into an `MP4Session`.
public final class VideoSink: ConversionSink {
    public let target: String
    public let writer: MP4Writer
    private var output: AtomicOutput?
    private var session: MP4Session?
    private var summary = MP4Summary(canvases: 0, outputFrames: 0)

    public init(target: String, options: MP4Options, context: ConversionContext) throws {
        self.target = target
        writer = try MP4Writer(timeline: context.timeline, options: options, encoderBudget: context.memoryBudget)
    }

    public func open(in transaction: OutputTransaction) throws {
        let output = try transaction.add(target)
        self.output = output
        session = try namingTarget { try writer.begin(path: output.temporaryPath) }
    }

    public var plannedPasses: Int { writer.options.loops }

    public func beginPass(_ pass: Int) throws -> Bool { pass < writer.options.loops }

    public func consume(_ canvas: Canvas) throws -> Bool {
        try namingTarget { try session!.add(canvas) }
        return true
    }

    public func endPass(delivered: Int) throws { try namingTarget { try session!.endLoop() } }

    public func finish() throws { summary = try namingTarget { try session!.finish() } }

    public var result: OutputResult {
        .video(VideoResult(
            target: target, writer: writer, summary: summary, frameRate: writer.frameRate, outputSize: writer.outputSize,
            loops: writer.options.loops, tuning: writer.tuning))
    }

    /// libav names the file it writes, the hidden temporary: users asked for the target.
    private func namingTarget<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as MP4Error where output != nil && error.subjectPath == output?.temporaryPath {
            throw error.naming(target)
        }
    }
}
