import Foundation
import GifxTimeline

/// What a finished child's `--stats` (or, for `timeline`, its JSON) says about the conversion, decoded
/// with the types the child encoded it from: `ToMP4Stats`, `SpriteStats`, `ConvertStats`, `Timeline`.
struct JobFacts {
    var frames: Int?
    /// Seconds of animation (to-mp4: the video's, all loops; timeline: the schedule's).
    var duration: Double?
    /// The child's whole `--stats` summary, passed into the report as `stats` (none for timeline).
    var stats: (any Encodable)?

    /// Leaves every field empty when the output is missing or is not the command's summary.
    init(json data: Data, target: BatchTarget) {
        let decoder = JSONDecoder()
        switch target.command {
        case .timeline:
            guard let timeline = try? decoder.decode(Timeline.self, from: data) else { return }
            frames = timeline.frames.count
            duration = timeline.duration.seconds
        case .toMP4:
            guard let summary = try? decoder.decode(ToMP4Stats.self, from: data) else { return }
            (stats, frames, duration) = (summary, summary.frames, summary.durationSeconds)
        case .toSprite:
            guard let summary = try? decoder.decode(SpriteStats.self, from: data) else { return }
            (stats, frames) = (summary, summary.frames)
        case .convert:
            guard let summary = try? decoder.decode(ConvertStats.self, from: data) else { return }
            (stats, frames) = (summary, summary.frames)
        }
    }
}
