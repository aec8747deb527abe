import ArgumentParser
import Foundation

/// The subcommand a batch runs on every input, and what it writes where.
enum BatchTarget: String, ExpressibleByArgument, CaseIterable, Sendable {
    case toMP4 = "to-mp4"
    case toSprite = "to-sprite"
    case timeline

    /// `OUT-DIR/sub/a.gif` → `OUT-DIR/sub/a` + this.
    var outputExtension: String {
        switch self {
        case .toMP4: ".mp4"
        case .toSprite: ".png"
        case .timeline: ".timeline.json"
        }
    }

    /// The file whose existence and modification time say "this input is done": the MP4, the
    /// timeline JSON (`NAME.timeline.json`, so a timeline batch and a sprite batch can share an
    /// out-dir), or the sprite sheet's JSON (it describes every page, so it is the one a sheet split
    /// into `NAME-0.png`, `NAME-1.png`… and a single `NAME.png` have in common).
    func markerPath(base: String) -> String {
        switch self {
        case .toMP4: base + ".mp4"
        case .toSprite: base + ".json"
        case .timeline: base + ".timeline.json"
        }
    }

    /// Done: the marker exists and is not older than the input (and, for a sprite sheet, a page exists too).
    func isUpToDate(base: String, input: String) -> Bool {
        guard BatchRunner.isUpToDate(markerPath(base: base), input: input) else { return false }
        return self != .toSprite || existingOutputs(base: base).count > 1
    }

    /// The timeline subcommand prints its JSON on stdout: the batch writes it to the output file.
    var outputIsStandardOutput: Bool { self == .timeline }

    /// Whether the subcommand takes `--memory-budget` (timeline reads metadata only).
    var takesMemoryBudget: Bool { self != .timeline }

    /// Options the batch sets itself for every child; given after `--` they are a usage error
    /// (`--quiet`, `--stats` and `--overwrite` are dropped silently: the batch always sets them).
    var reservedOptions: [String] {
        switch self {
        case .toMP4: ["-o", "--output", "--memory-budget"]
        case .toSprite: ["-o", "--output", "--json", "--memory-budget"]
        case .timeline: ["--json"]
        }
    }
    static let impliedFlags: Set<String> = ["--quiet", "--stats", "--overwrite"]

    /// The child's arguments (without the executable): outputs named by the batch, `--overwrite`
    /// because an existing output reaching this point is older than its input (stale), `--quiet`
    /// (no bar, no warnings) and `--stats` (the JSON summary the report takes frames and duration from).
    func childArguments(input: String, base: String, memoryBudget: Int?, passthrough: [String]) -> [String] {
        // A path that starts with `-` would read as an option (or `-` as standard input).
        let safeInput = input.hasPrefix("-") ? "./" + input : input
        var arguments: [String]
        switch self {
        case .toMP4:
            arguments = ["to-mp4", safeInput, "-o", base + ".mp4", "--overwrite", "--quiet", "--stats"]
        case .toSprite:
            arguments = ["to-sprite", safeInput, "-o", base + ".png", "--json", base + ".json",
                         "--overwrite", "--quiet", "--stats"]
        case .timeline:
            arguments = ["timeline", safeInput, "--json", "--quiet"]
        }
        if takesMemoryBudget, let memoryBudget { arguments += ["--memory-budget", String(memoryBudget)] }
        return arguments + passthrough
    }

    /// The files a finished conversion left for `base`, for the report's `outputs`.
    func existingOutputs(base: String) -> [String] {
        let manager = FileManager.default
        switch self {
        case .toMP4:
            return [base + ".mp4"].filter { manager.fileExists(atPath: $0) }
        case .timeline:
            return [base + ".timeline.json"].filter { manager.fileExists(atPath: $0) }
        case .toSprite:
            var pages: [String] = []
            if manager.fileExists(atPath: base + ".png") {
                pages.append(base + ".png")
            } else {
                var page = 0
                while manager.fileExists(atPath: "\(base)-\(page).png") {
                    pages.append("\(base)-\(page).png")
                    page += 1
                }
            }
            return pages + [base + ".json"].filter { manager.fileExists(atPath: $0) }
        }
    }

    /// Splits the options given after `--` into what is passed on and what is refused.
    func filterPassthrough(_ options: [String]) -> (kept: [String], refused: [String]) {
        var kept: [String] = [], refused: [String] = []
        for option in options {
            let name = option.split(separator: "=", maxSplits: 1).first.map(String.init) ?? option
            if Self.impliedFlags.contains(option) { continue }
            if reservedOptions.contains(name) || (name.hasPrefix("-o") && !name.hasPrefix("--") && name.count > 2) {
                refused.append(option)
            } else {
                kept.append(option)
            }
        }
        return (kept, refused)
    }
}

/// What a finished child's `--stats` (or, for `timeline`, its JSON) says about the conversion.
struct JobFacts {
    var frames: Int?
    /// Seconds of animation.
    var duration: Double?
    /// The child's whole `--stats` object, passed into the report as `stats`.
    var stats: [String: Any]?

    /// Reads whatever fields are there; a missing or unparsable summary just leaves them empty.
    init(json data: Data, target: BatchTarget) {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return }
        if target == .timeline {
            frames = (object["frames"] as? [Any])?.count
            duration = Self.seconds(object["duration"])
            return
        }
        stats = object
        frames = (object["frames"] as? Int) ?? (object["frames"] as? [Any])?.count
        duration = Self.seconds(object["duration"]) ?? Self.seconds(object["durationSeconds"])
            ?? Self.seconds(object["seconds"])
    }

    private static func seconds(_ value: Any?) -> Double? {
        if let number = value as? NSNumber, !(value is Bool) { return number.doubleValue }
        if let object = value as? [String: Any] {
            if let seconds = object["seconds"] as? NSNumber { return seconds.doubleValue }
            if let centiseconds = object["centiseconds"] as? NSNumber { return centiseconds.doubleValue / 100 }
        }
        return nil
    }
}
