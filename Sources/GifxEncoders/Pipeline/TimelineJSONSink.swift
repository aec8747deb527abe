import Foundation
import GifxFrames
import GifxTimeline

/// The schedule as JSON (schema gifx.timeline/1): needs no pixels. Streamed by `TimelineJSONWriter` in
/// fixed pieces, as the CLI's `timeline` command streams it, so the two are the same bytes and a schedule of
/// millions of frames is never one document in memory.
public final class TimelineJSONSink: ConversionSink {
    public let target: String
    private let timeline: Timeline
    private var output: AtomicOutput?

    public init(target: String, context: ConversionContext) {
        self.target = target
        timeline = context.timeline
    }

    public func open(in transaction: OutputTransaction) throws { output = try transaction.add(target) }
    public var plannedPasses: Int { 0 }
    public func beginPass(_ pass: Int) throws -> Bool { false }
    public func consume(_ canvas: Canvas) throws -> Bool { false }
    public func endPass(delivered: Int) throws {}
    public func finish() throws {
        guard let output else { return }
        try TimelineJSONWriter(timeline).write { try writeAll($0, to: output) }
        try writeAll(Data("\n".utf8), to: output)
    }
    public var result: OutputResult { .timelineJSON(path: target) }
}
