import ArgumentParser
import Foundation
import GifxKit
import GifxTimeline

/// `gifx timeline`: the authoritative playback schedule, read from metadata only (no pixel is decoded).
struct TimelineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timeline",
        abstract: "Print the exact playback schedule of a GIF (reads metadata only).")

    @Argument(help: "Input \(InputFormat.helpPhrase()) (told by content), or - for standard input.") var input: String
    @OptionGroup var options: TimelineOptions
    @Option(help: ArgumentHelp(
        "Write the schedule as an SVG picture (a bar per frame as wide as its delay, the rule that set it, the tick "
            + "grid and the loop count) to this file, or - for standard output, instead of the table.",
        valueName: "file"))
    var svg: String?
    @Flag(help: "Replace an existing --svg file.") var overwrite = false

    func validate() throws {
        guard svg != nil else {
            if overwrite { throw ValidationError("--overwrite goes with --svg") }
            return
        }
        if options.json { throw ValidationError("--svg and --json are two forms of the schedule: give one") }
        if options.fps != nil || options.maxFps != nil { throw ValidationError("--svg draws the schedule, not a plan: drop --fps and --max-fps") }
    }

    func run() throws { try options.run(input: input, svg: svg.map { (path: $0, overwrite: overwrite) }) }
}

/// `timeline`'s options: everything but the input (a batch parses them once for every input).
struct TimelineOptions: ParsableArguments {
    @Flag(help: "Print JSON (schema gifx.timeline/1) instead of a table.") var json = false
    @Option(help: "Whose reading of delays and loop counts to follow: flanimated (iOS reference player) or browser.")
    var policy: TimelinePolicy = .flanimated
    @Flag(help: "Fail on damaged data instead of keeping what decodes.") var strict = false
    @Flag(help: "No warnings on stderr.") var quiet = false
    @Option(help: ArgumentHelp(
        "Also print to-mp4's output plan for a mode: auto, vfr, tick or a rate (30, 30000/1001); with --json "
            + "as an added plan object.", valueName: "mode"))
    var fps: PlanModeArgument?
    @Option(help: ArgumentHelp(
        "Cap the plan's rate as to-mp4 --max-fps does (with --fps auto or tick, the default mode then).",
        valueName: "rate"))
    var maxFps: FrameRate?
    @OptionGroup(title: "Edits (the schedule shown is the edited one)") var edits: EditOptions

    func validate() throws {
        if let maxFps, case .request(let request)? = fps {
            switch request {
            case .vfr: throw ValidationError("--max-fps caps a constant rate; it does not apply to --fps vfr")
            case .rate: throw ValidationError("--max-fps caps the tick rate or --fps auto; with --fps N give a lower N instead")
            case .tick, .auto: _ = maxFps
            }
        }
    }

    /// Prints the schedule of `input` (a path, or `-` for standard input) as these options ask; with `svg`, writes
    /// it as a picture there instead of printing the table.
    func run(input: String, svg: (path: String, overwrite: Bool)? = nil) throws {
        try reportingErrors(input: input) {
            let metadata = try InputSource.withPath(input) { path in
                try readAnimationMetadata(path: path, limits: DecodeLimits(strict: strict))
            }
            let gifTimeline = Timeline(metadata.timelineInput, policy: policy)
            var edited: EditedTimeline?
            if let edit = try edits.edit() {
                do throws(TimelineEditError) { edited = try gifTimeline.applying(edit) } catch { throw EditError(error) }
            }
            let timeline = edited?.timeline ?? gifTimeline
            let mode = fps?.request ?? (maxFps != nil ? .tick : nil)
            let plan = mode.map { OutputPlan(timeline: timeline, request: $0, maxRate: maxFps?.rate) }
            if let svg {
                let title = input == "-" ? "standard input" : input
                let picture = TimelinePicture(timeline: timeline, title: title)
                try writeTextOutput(to: svg.path, overwrite: svg.overwrite) { write in
                    picture.write(declaration: true, to: write)
                }
            } else if json {
                // Streamed in 64 KiB pieces: a schedule of millions of frames is never one document in
                // memory. The plan (small, per output mode) is rendered by JSONEncoder and put in sorted place.
                var extra: [(key: String, prettyJSON: String)] = []
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                if let edited { extra.append(try TimelineEditJSON.member(edited)) }
                if let plan {
                    let rendered = try encoder.encode(PlanJSON(plan: plan, timeline: timeline))
                    extra.append(("plan", String(decoding: rendered, as: UTF8.self)))
                }
                try TimelineJSONWriter(timeline, extraMembers: extra).write { FileHandle.standardOutput.write(Data($0)) }
                FileHandle.standardOutput.write(Data("\n".utf8))
            } else if let plan {
                try PlanTable(plan: plan, timeline: timeline).write(to: FileHandle.standardOutput)
            } else {
                try TimelineTable(timeline, sources: edited?.sourceFrames).write(to: FileHandle.standardOutput)
            }
            printWarnings(timeline.warnings, input: input, quiet: quiet || json)
        }
    }
}

/// The human-readable form: one row per frame, then a summary line.
struct TimelineTable {
    let timeline: Timeline
    /// With an edit: the GIF frame each row shows (a last column, `source`).
    let sources: [Int]?
    init(_ timeline: Timeline, sources: [Int]? = nil) { self.timeline = timeline; self.sources = sources }

    /// Writes the table in 64 KiB pieces, so a GIF with a million frames never builds one huge string.
    /// Warnings go to stderr only (printed by the command).
    func write(to handle: FileHandle) throws {
        let output = TextOutput { handle.write(Data($0)) }
        if sources == nil {
            try output.writeLine(row("frame", "raw", "delay", "rule", "start(s)", "rect", "disposal"))
        } else {
            try output.writeLine(row("frame", "raw", "delay", "rule", "start(s)", "rect", "disposal", "source"))
        }
        for frame in timeline.frames {
            let r = frame.rect
            var cells = [
                "\(frame.index)", frame.rawDelay.map(String.init) ?? "-", "\(frame.delay)", frame.rule.rawValue,
                seconds(frame.start), "\(r.width)x\(r.height)+\(r.x)+\(r.y)", frame.disposal.rawValue,
            ]
            if let sources { cells.append("\(sources[frame.index])") }
            try output.writeLine(row(cells))
        }
        try output.writeLine(summary)
        try output.flush()
    }

    /// `12 frames, 1.17 s, tick 1 cs (100 fps), loop forever (count 0), policy flanimated`.
    var summary: String {
        let t = timeline
        let fps = t.tick.fps.den == 1 ? "\(t.tick.fps.num)" : "\(t.tick.fps.num)/\(t.tick.fps.den)"
        let plays = t.loop.plays.map { $0 == 1 ? "plays once" : "plays \($0) times" } ?? "loops forever"
        let count = t.loop.count.map { "loop count \($0)" } ?? "no loop extension"
        let unit = t.timescale == 100 ? "cs" : t.timescale == 1000 ? "ms" : "× 1/\(t.timescale) s"
        let format = t.format == .gif ? "" : ", \(t.format.rawValue)"
        return "\(t.frames.count) frames, \(seconds(t.duration.units)) s, \(t.canvas.width)x\(t.canvas.height), "
            + "tick \(t.tick.units) \(unit) (\(fps) fps), \(plays) (\(count)), policy \(t.policy.rawValue)\(format)"
    }

    /// A time in the schedule's units as seconds: two decimals for a GIF's cs, three for finer units.
    private func seconds(_ units: Int) -> String {
        let scale = timeline.timescale
        if scale == 100 { return String(format: "%d.%02d", units / 100, units % 100) }
        return String(format: "%.3f", Double(units) / Double(scale))
    }

    private func row(_ cells: String...) -> String { row(cells) }

    private func row(_ cells: [String]) -> String {
        // Padded by hand: Foundation's `padding(toLength:)` made a million-row table take half a minute.
        let widths = [6, 6, 6, 11, 9, 20, 10, 6]
        var line = ""
        for (cell, width) in zip(cells, widths) {
            line += cell
            let count = cell.utf8.count
            if count < width { line += String(repeating: " ", count: width - count) }
        }
        while line.last == " " { line.removeLast() }
        return line
    }
}
