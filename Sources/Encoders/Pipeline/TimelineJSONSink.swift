import Foundation
import Frames
import Timeline

/// The schedule as JSON (schema gifx.timeline/1, as `TimelineJSONWriter` streams it): needs no pixels.
public final class TimelineJSONSink: ConversionSink {
    public let target: String
    private let timeline: Timeline
    private var output: AtomicOutput?

    public init(target: String, context: ConversionContext) {
        self.target = target
        timeline = context.timeline
    }

    /// The JSON document, with a final newline.
    public static func json(_ timeline: Timeline) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(timeline) + Data("\n".utf8)
    }

    public func open(in transaction: OutputTransaction) throws { output = try transaction.add(target) }
    public var plannedPasses: Int { 0 }
    public func beginPass(_ pass: Int) throws -> Bool { false }
    public func consume(_ canvas: Canvas) throws -> Bool { false }
    public func endPass(delivered: Int) throws {}
    public func finish() throws { try writeAll(try Self.json(timeline), to: output!) }
    public var result: OutputResult { .timelineJSON(path: target) }
}
