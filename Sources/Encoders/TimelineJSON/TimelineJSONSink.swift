import Foundation
import GifxFrames
import GifxPipeline
import GifxTimeline

/// The schedule as JSON (schema gifx.timeline/1): needs no pixels. Streamed by `TimelineJSONWriter` in
/// fixed pieces, as the CLI's `timeline` command streams it, so the two are the same bytes and a schedule of
/// millions of frames is never one document in memory.
package final class TimelineJSONSink: ConversionSink {
    /// Where the output goes.
    package let destination: OutputTarget
    /// The target's name in results (`OutputTarget.name`).
    package let target: String
    private let timeline: Timeline
    private let edit: EditedTimeline?
    private var output: AtomicOutput?

    package init(target: OutputTarget, context: ConversionContext) {
        destination = target
        self.target = target.name
        timeline = context.timeline
        edit = context.edit
    }

    package func open(in transaction: OutputTransaction) throws { output = try transaction.add(destination) }
    package var plannedPasses: Int { 0 }
    package func beginPass(_ pass: Int) throws -> Bool { false }
    package func consume(_ canvas: Canvas) throws -> Bool { false }
    package func endPass(delivered: Int) throws {}
    package func finish() throws {
        guard let output else { return }
        let extra = try edit.map { [try TimelineEditJSON.member($0)] } ?? []
        try TimelineJSONWriter(timeline, extraMembers: extra).write { try writeAll($0, to: output) }
        try writeAll(Data("\n".utf8), to: output)
    }
    package var result: any OutputResult { TimelineJSONResult(path: target) }
}

/// The `edit` member a `gifx.timeline/1` document gets when its schedule is edited (`timeline --json` with an
/// edit option, a `.timeline.json` output of an edited run): the edit as asked (cut times in cs, `null` when not
/// given), the frames the speed dropped, and per output frame the GIF frame it shows (`source`).
package struct TimelineEditJSON: Encodable {
    package let edited: EditedTimeline
    package init(_ edited: EditedTimeline) { self.edited = edited }

    /// The member for `TimelineJSONWriter.extraMembers`.
    package static func member(_ edited: EditedTimeline) throws -> (key: String, prettyJSON: String) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return ("edit", String(decoding: try encoder.encode(TimelineEditJSON(edited)), as: UTF8.self))
    }

    private enum CodingKeys: String, CodingKey {
        case from, to, speed, reverse, boomerang, crop, framesDroppedBySpeed, source
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        let edit = edited.edit
        try c.encode(edit.from, forKey: .from)
        try c.encode(edit.to, forKey: .to)
        try c.encode(edit.speed, forKey: .speed)
        try c.encode(edit.reverse, forKey: .reverse)
        try c.encode(edit.boomerang, forKey: .boomerang)
        try c.encode(edit.crop, forKey: .crop)
        try c.encode(edited.framesDroppedBySpeed, forKey: .framesDroppedBySpeed)
        try c.encode(edited.sourceFrames, forKey: .source)
    }
}
