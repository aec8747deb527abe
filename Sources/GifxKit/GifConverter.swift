import Foundation
import GifxEncoders
import GifxFrames
import GifxPipeline
import GifxTimeline

/// How far a conversion is: canvases streamed so far and the total expected (every pass, and the
/// pre-pass some outputs need).
public struct ConversionProgress: Sendable, Hashable {
    public var canvasesDone: Int
    public var canvasesTotal: Int
    /// `canvasesDone / canvasesTotal`, 0...1.
    public var fraction: Double { canvasesTotal > 0 ? min(1, Double(canvasesDone) / Double(canvasesTotal)) : 1 }
}

/// What a conversion streams to an `AsyncSequence` consumer.
public enum ConversionEvent: Sendable {
    case progress(ConversionProgress)
    case finished(ConversionReport)
}

/// The library's front door: reads a GIF's schedule, and converts a GIF into any number of outputs
/// (video, WebP, sprite sheet, posters, the schedule as JSON) from one decode, all of them or none.
///
/// Errors are typed: every failure of the input or an output conforms to `GifxError` (with a
/// `FailureClass` and, for damaged data, the input's byte offset); a cancelled Task throws
/// `CancellationError` after removing every temporary output. The conversion runs on its own thread, so
/// it never blocks Swift concurrency's cooperative pool.
public struct GifConverter: Sendable {
    /// The run-wide settings (policy, limits, budget, threads, overwrite), checked before any work.
    public var settings: RunSettings

    public init(settings: RunSettings = RunSettings()) {
        self.settings = settings
    }

    /// The GIF's schedule under `settings.policy`: resolved delays, tick, loop count. Reads only the
    /// structure, no pixels.
    public func timeline(of input: GifInput) throws -> Timeline {
        if let problem = settings.problem { throw problem }
        let metadata = try InputSpool.withPath(input, scratchFolder: settings.resolvedScratchFolder) { try readAnimationMetadata(path: $0, limits: settings.limits) }
        return Timeline(metadata.timelineInput, policy: settings.policy)
    }

    /// Writes every output of `outputs` from one decode of `input`, all or none. `progress` is called on
    /// the conversion's thread after every canvas.
    public func convert(
        _ input: GifInput, to outputs: [OutputRequest],
        progress: (@Sendable (ConversionProgress) -> Void)? = nil
    ) async throws -> ConversionReport {
        if let problem = settings.problem { throw problem }
        let stop = StopFlag()
        let settings = settings
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ConversionReport, any Error>) in
                let thread = Thread {
                    continuation.resume(with: Result {
                        try InputSpool.withPath(input, scratchFolder: settings.resolvedScratchFolder) { path in
                            try GifConverter(settings: settings).convert(
                                path: path, to: outputs,
                                progress: { done, total in
                                    progress?(ConversionProgress(canvasesDone: done, canvasesTotal: total))
                                },
                                shouldStop: { stop.isRaised })
                        }
                    })
                }
                thread.stackSize = 8 << 20
                thread.name = "gifx conversion"
                if Task.isCancelled { stop.raise() }
                thread.start()
            }
        } onCancel: {
            stop.raise()
        }
    }

    /// The same conversion as a stream of events: progress (only the newest is kept when the consumer
    /// falls behind, so nothing queues without bound), then `.finished` with the report. Cancelling the
    /// consuming Task cancels the conversion.
    public func events(_ input: GifInput, to outputs: [OutputRequest]) -> AsyncThrowingStream<ConversionEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream<ConversionEvent, any Error>.makeStream(
            bufferingPolicy: .bufferingNewest(1))
        let converter = self
        let task = Task {
            do {
                let report = try await converter.convert(input, to: outputs) { continuation.yield(.progress($0)) }
                continuation.yield(with: .success(.finished(report)))
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}

extension GifConverter {
    /// The conversion on the caller's thread, from a file: what `convert(_:to:progress:)` runs on its own thread,
    /// for a synchronous caller (the `gifx` tool's commands, which have their own progress and signal handling).
    /// The one way into the pipeline: the async API, the tool and the service all come through here.
    package func convert(
        path: String, to outputs: [OutputRequest], progress: ((_ done: Int, _ total: Int) -> Void)? = nil,
        shouldStop: (() -> Bool)? = nil
    ) throws -> ConversionReport {
        try Conversion(inputPath: path, settings: settings).run(outputs, progress: progress, shouldStop: shouldStop)
    }
}

/// A flag raised once from any thread (the Task's cancellation handler) and read by the conversion.
private final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var raised = false

    var isRaised: Bool { lock.withLock { raised } }
    func raise() { lock.withLock { raised = true } }
}
