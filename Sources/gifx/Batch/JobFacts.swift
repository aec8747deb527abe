import Foundation
import GifxTimeline

/// What a finished child's `--stats` (or, for `timeline`, its JSON) says about the conversion: for `to-mp4`,
/// `to-sprite` and `convert` their one stats format (`ConversionStats`), decoded once; for a timeline just its
/// schema, frame count and duration (`TimelineBrief`).
struct JobFacts {
    var frames: Int?
    /// Seconds of animation (to-mp4: the video's, all loops; timeline: the schedule's).
    var duration: Double?
    /// The child's whole `--stats` summary, passed into the report as `stats` (none for timeline).
    var stats: (any Encodable)?

    /// Leaves every field empty when the output is missing or is not the command's summary.
    init(json data: Data, target: BatchTarget) {
        let decoder = JSONDecoder()
        if target.command == .timeline {
            guard let brief = try? decoder.decode(TimelineBrief.self, from: data),
                  brief.schema == Timeline.schemaID else { return }
            frames = brief.frames.count
            duration = brief.duration.seconds
        } else {
            guard let summary = try? decoder.decode(ConversionStats.self, from: data) else { return }
            (stats, frames, duration) = (summary, summary.frames, summary.durationSeconds)
        }
    }
}

/// The figures a timeline batch reports, read from the child's timeline JSON without decoding each frame's
/// fields: the whole `Timeline` decode was 40 % of a timeline batch's own CPU time (perf, 500 small GIFs),
/// all of it on the one thread that also starts the next job.
private struct TimelineBrief: Decodable {
    struct Duration: Decodable { var seconds: Double }
    /// A frame, counted and not read.
    struct Frame: Decodable { init(from decoder: any Decoder) throws {} }
    var schema: String
    var duration: Duration
    var frames: [Frame]
}
