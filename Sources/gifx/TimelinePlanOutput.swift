import ArgumentParser
import Foundation
import GifxKit
import GifxTimeline

/// `timeline --fps`: `auto`, `vfr`, or a rate (`30`, `30000/1001`).
enum PlanModeArgument: ExpressibleByArgument {
    case request(OutputPlan.Request)

    init?(argument: String) {
        switch argument {
        case "vfr": self = .request(.vfr)
        case "tick": self = .request(.tick)
        default:
            guard let choice = FrameRateChoice(argument: argument) else { return nil }
            switch choice {
            case .auto: self = .request(.auto)
            case .tick: self = .request(.tick)
            case .rate(let rate): self = .request(.rate(rate))
            }
        }
    }

    var request: OutputPlan.Request {
        switch self { case .request(let request): request }
    }
}

/// The `plan` object `timeline --json --fps …` adds beside the `gifx.timeline/1` fields (docs/guide.md: "The
/// output plan"). Per-frame entries are computed while encoding, from the timeline, none kept.
struct PlanJSON: Encodable {
    let plan: OutputPlan
    let timeline: Timeline

    private enum Keys: String, CodingKey {
        case mode, kind, rate, timeBase, outputFrames, duration, worstStartErrorMicroseconds, framesNeverShown
        case peakRate, reason, frames
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(plan.mode, forKey: .mode)
        try c.encode(plan.kind, forKey: .kind)
        try c.encode(plan.rate, forKey: .rate)
        try c.encode(plan.timeBase, forKey: .timeBase)
        try c.encode(plan.outputFrames, forKey: .outputFrames)
        try c.encode(plan.duration, forKey: .duration)
        try c.encode(plan.worstStartErrorMicroseconds, forKey: .worstStartErrorMicroseconds)
        try c.encode(plan.framesNeverShown, forKey: .framesNeverShown)
        try c.encode(plan.peakRate, forKey: .peakRate)
        try c.encode(plan.reason.commandLineWording, forKey: .reason)
        var frames = c.nestedUnkeyedContainer(forKey: .frames)
        for index in timeline.frames.indices {
            try frames.encode(PlanFrameJSON(plan: plan, timeline: timeline, index: index))
        }
    }
}

/// One GIF frame in the plan: where it lands in the video and how far off its schedule.
private struct PlanFrameJSON: Encodable {
    let plan: OutputPlan
    let timeline: Timeline
    let index: Int

    private enum Keys: String, CodingKey { case index, start, outputStart, samples, errorMicroseconds }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        let placement = plan.placement(of: index, in: timeline)
        try c.encode(index, forKey: .index)
        try c.encode(timeline.frames[index].start, forKey: .start)
        try c.encode(plan.outputStart(of: index, in: timeline), forKey: .outputStart)
        try c.encode(placement.samples, forKey: .samples)
        try c.encode(
            plan.startError(of: index, in: timeline).map { microseconds($0, timescale: timeline.timescale) },
            forKey: .errorMicroseconds)
    }
}

/// A rational in timeline units (cs for a GIF) in whole microseconds, rounded to nearest (half away from zero).
private func microseconds(_ units: Rational, timescale: Int = 100) -> Int {
    let scaled = 1_000_000 * units.num
    let den = units.den * timescale
    let half = den / 2
    return scaled >= 0 ? (scaled + half) / den : -((-scaled + half) / den)
}

/// The human-readable plan: one row per GIF frame (start, output start, error, samples), then the plan line.
struct PlanTable {
    let plan: OutputPlan
    let timeline: Timeline

    /// Writes in 64 KiB pieces (`TextOutput`), like `TimelineTable`.
    func write(to handle: FileHandle) throws {
        let output = TextOutput { handle.write(Data($0)) }
        try output.writeLine(row("frame", "start(s)", "out(s)", "error(ms)", "samples"))
        for index in timeline.frames.indices {
            let start = timeline.frames[index].start
            let out = plan.outputStart(of: index, in: timeline)
            let error = plan.startError(of: index, in: timeline)
            try output.writeLine(row(
                "\(index)", String(format: "%.3f", timeline.milliseconds(start) / 1000),
                out.map { String(format: "%.4f", $0.doubleValue / Double(timeline.timescale)) } ?? "never",
                error.map { String(format: "%+.2f", $0.doubleValue * 1000 / Double(timeline.timescale)) } ?? "-",
                "\(plan.placement(of: index, in: timeline).samples)"))
        }
        try output.writeLine(summary)
        try output.flush()
    }

    /// `plan auto: 30 fps, 30 output frames, worst start error 6.667 ms, 0 GIF frames never shown (…)`.
    var summary: String {
        let rate = plan.rate.map { "\($0) fps" } ?? "vfr (peak \(plan.peakRate) fps, time base \(plan.timeBase) s)"
        let worst = String(format: "%.3f", Double(plan.worstStartErrorMicroseconds) / 1000)
        return "plan \(plan.mode): \(rate), \(plan.outputFrames) output frames, worst start error \(worst) ms, "
            + "\(plan.framesNeverShown) GIF frames never shown (\(plan.reason.commandLineWording))"
    }

    private func row(_ cells: String...) -> String {
        let widths = [7, 10, 10, 11, 8]
        return zip(cells, widths).map { $0.padding(toLength: max($1, $0.count), withPad: " ", startingAt: 0) }
            .joined().trimmingCharacters(in: .whitespaces)
    }
}
