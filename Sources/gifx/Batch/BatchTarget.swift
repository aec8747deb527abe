import ArgumentParser
import Foundation
import GifxEncoders

/// The subcommand a batch runs on every input.
enum BatchSubcommand: String, ExpressibleByArgument, CaseIterable, Sendable {
    case toMP4 = "to-mp4"
    case toSprite = "to-sprite"
    case timeline
    case convert
}

/// `batch convert --formats`: each output named by the suffix it gives the input's base name.
extension OutputKind {
    /// `mp4,webm,png`: each a kind of the registry by its name (`timeline` or `timeline.json`, `sheet`), none twice;
    /// nil when a name is unknown or repeated.
    static func list(parsing text: String) -> [OutputKind]? {
        let kinds = text.split(separator: ",").map { OutputKind.named(String($0)) }
        guard !kinds.isEmpty, !kinds.contains(nil), Set(kinds).count == kinds.count else { return nil }
        return kinds.compactMap { $0 }
    }

    /// What it adds to the base path: the output itself (`NAME.mp4`, `NAME.timeline.json`), or for the sheet its JSON
    /// (`NAME.sheet.json`, which describes every page: `NAME.sheet.png`, or `NAME.sheet-0.png`, …).
    var suffix: String { self == .sheet ? ".sheet.json" : extensions[0] }
}

/// What a batch runs on every input, and what it writes where.
struct BatchTarget: Sendable, Equatable {
    var command: BatchSubcommand
    /// `convert`'s outputs (`--formats`); empty for the other commands.
    var formats: [OutputKind] = []

    /// `OUT-DIR/sub/a.gif` → `OUT-DIR/sub/a` + this (convert: its first output's).
    var outputExtension: String {
        switch command {
        case .toMP4: ".mp4"
        case .toSprite: ".png"
        case .timeline: ".timeline.json"
        case .convert: formats.first.map { $0 == .sheet ? ".sheet.png" : $0.suffix } ?? ""
        }
    }

    /// The files whose existence and modification time say "this input is done": the MP4, the timeline
    /// JSON (`NAME.timeline.json`, so a timeline batch and a sprite batch can share an out-dir), or the
    /// sprite sheet's JSON (it describes every page, so it is the one a sheet split into `NAME-0.png`,
    /// `NAME-1.png`… and a single `NAME.png` have in common); for convert, every output's.
    func markerPaths(base: String) -> [String] {
        switch command {
        case .toMP4: [base + ".mp4"]
        case .toSprite: [base + ".json"]
        case .timeline: [base + ".timeline.json"]
        case .convert: formats.map { base + $0.suffix }
        }
    }

    /// Done: every marker exists and is not older than the input (and, for a sprite sheet, a page exists too).
    func isUpToDate(base: String, input: String) -> Bool {
        guard markerPaths(base: base).allSatisfy({ BatchFiles.isUpToDate($0, input: input) }) else { return false }
        switch command {
        case .toSprite: return !Self.sheetPages(base: base).isEmpty
        case .convert where formats.contains(.sheet): return !Self.sheetPages(base: base + ".sheet").isEmpty
        default: return true
        }
    }

    /// The timeline subcommand prints its JSON on stdout: the batch writes it to the output file.
    var outputIsStandardOutput: Bool { command == .timeline }

    /// Where the batch writes a child's standard output (when `outputIsStandardOutput`).
    func standardOutputPath(base: String) -> String { base + ".timeline.json" }

    /// Whether the subcommand takes `--memory-budget` (timeline reads metadata only).
    var takesMemoryBudget: Bool { command != .timeline }

    /// Options the batch sets itself for every child; given after `--` they are a usage error
    /// (`--quiet`, `--stats` and `--overwrite` are dropped silently: the batch always sets them).
    var reservedOptions: [String] {
        switch command {
        case .toMP4: ["-o", "--output", "--memory-budget", "--progress", "--progress-fd"]
        case .toSprite: ["-o", "--output", "--json", "--memory-budget", "--progress", "--progress-fd"]
        case .timeline: ["--json"]
        case .convert: ["-o", "--output", "--sheet", "--json", "--memory-budget", "--progress", "--progress-fd"]
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
        switch command {
        case .toMP4:
            arguments = ["to-mp4", safeInput, "-o", base + ".mp4", "--overwrite", "--quiet", "--stats"]
        case .toSprite:
            arguments = ["to-sprite", safeInput, "-o", base + ".png", "--json", base + ".json",
                         "--overwrite", "--quiet", "--stats"]
        case .timeline:
            arguments = ["timeline", safeInput, "--json", "--quiet"]
        case .convert:
            arguments = ["convert", safeInput]
            for format in formats {
                if format == .sheet {
                    arguments += ["--sheet", base + ".sheet.png", "--json", base + ".sheet.json"]
                } else {
                    arguments += ["-o", base + format.suffix]
                }
            }
            arguments += ["--overwrite", "--quiet", "--stats"]
        }
        if takesMemoryBudget, let memoryBudget { arguments += ["--memory-budget", String(memoryBudget)] }
        return arguments + passthrough
    }

    /// The files a finished conversion left for `base`, for the report's `outputs`.
    func existingOutputs(base: String) -> [String] {
        let manager = FileManager.default
        switch command {
        case .toMP4, .timeline:
            return markerPaths(base: base).filter { manager.fileExists(atPath: $0) }
        case .toSprite:
            return Self.sheetPages(base: base) + [base + ".json"].filter { manager.fileExists(atPath: $0) }
        case .convert:
            return formats.flatMap { format -> [String] in
                let pages = format == .sheet ? Self.sheetPages(base: base + ".sheet") : []
                return pages + [base + format.suffix].filter { manager.fileExists(atPath: $0) }
            }
        }
    }

    /// A sheet's page files: `base.png`, or `base-0.png`, `base-1.png`… when it has several.
    static func sheetPages(base: String) -> [String] {
        let manager = FileManager.default
        if manager.fileExists(atPath: base + ".png") { return [base + ".png"] }
        var pages: [String] = []
        while manager.fileExists(atPath: "\(base)-\(pages.count).png") { pages.append("\(base)-\(pages.count).png") }
        return pages
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
