import GifxKit
import GifxTimeline


/// `X-Gifx-Timeline`: the schedule an output follows, in seconds from the timeline's own units.
enum TimelineHeader {
    /// `frames=N, duration=S.SS, tick=S.SS`: the schedule the output follows, in seconds. The timeline's
    /// duration and tick are in its own units, `1 / timescale` s (cs for a GIF, ms for a WebP, as fine as
    /// 1/3000 s for an APNG), never cs by assumption.
    static func value(_ timeline: Timeline) -> String {
        let scale = timeline.timescale
        return "frames=\(timeline.frames.count), duration=\(seconds(timeline.duration.units, per: scale)), "
            + "tick=\(seconds(timeline.tick.units, per: scale))"
    }

    /// `units / timescale` seconds in decimal: at least two places (a GIF's whole cs, `0.28`), more where the
    /// value needs them (a WebP's ms, `0.245`), exact to six places; finer than a microsecond (an APNG's 1/30 s)
    /// it is rounded to the nearest microsecond (`0.033333`).
    static func seconds(_ units: Int, per timescale: Int) -> String {
        (try? MediaTime(units, timescale: timescale).decimalSeconds()) ?? "inf"
    }
}
