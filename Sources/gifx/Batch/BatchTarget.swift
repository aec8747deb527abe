import ArgumentParser
import Foundation
import GifxKit

/// The subcommand a batch runs on every input.
enum BatchSubcommand: String, ExpressibleByArgument, CaseIterable, Codable, Sendable {
    case toMP4 = "to-mp4"
    case toSprite = "to-sprite"
    case timeline
    case convert

    /// The subcommand's own type (its help).
    var commandType: any ParsableCommand.Type {
        switch self {
        case .toMP4: ToMP4Command.self
        case .toSprite: ToSpriteCommand.self
        case .timeline: TimelineCommand.self
        case .convert: ConvertCommand.self
        }
    }
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
}

/// One output of every input of a batch: a kind of the registry, and what its files add to the input's base path
/// (`OUT-DIR/sub/a` + `infix` + the kind's endings, `OutputFiles`).
struct BatchOutput: Sendable, Equatable {
    var kind: OutputKind
    var infix: String

    var files: OutputFiles { kind.files }
    func stem(_ base: String) -> String { base + infix }
    func main(_ base: String) -> String { stem(base) + files.main }
    func description(_ base: String) -> String? { files.description.map { stem(base) + $0 } }
    /// The file whose existence and modification time say this output is done (a sheet's JSON describes every
    /// page, so it is the file a sheet of one page and one of several have in common).
    func marker(_ base: String) -> String { files.marker(stem: stem(base)) }
    /// The main file's pages that exist (none for a kind without pages).
    func pages(_ base: String) -> [String] {
        files.pages ? files.existingPages(stem: stem(base)) { FileManager.default.fileExists(atPath: $0) } : []
    }
}

/// What a batch runs on every input, and what it writes where.
struct BatchTarget: Sendable, Equatable {
    var command: BatchSubcommand
    /// `convert`'s outputs (`--formats`); empty for the other commands.
    var formats: [OutputKind] = []

    /// What every conversion writes: the command's one kind, its files named by the base itself (`a.mp4`, to-sprite's
    /// `a.png` + `a.json`, `a.timeline.json`); for convert each `--formats` kind, with the infix its kind asks
    /// (`a.sheet.png` + `a.sheet.json`).
    var outputs: [BatchOutput] {
        switch command {
        case .toMP4: [BatchOutput(kind: .mp4, infix: "")]
        case .toSprite: [BatchOutput(kind: .sheet, infix: "")]
        case .timeline: [BatchOutput(kind: .timelineJSON, infix: "")]
        case .convert: formats.map { BatchOutput(kind: $0, infix: $0.files.batchInfix) }
        }
    }

    /// `OUT-DIR/sub/a.gif` → `OUT-DIR/sub/a` + this: the first output's main file's.
    var outputExtension: String { outputs.first.map { $0.infix + $0.files.main } ?? "" }

    /// The files whose existence and modification time say "this input is done", one per output.
    func markerPaths(base: String) -> [String] { outputs.map { $0.marker(base) } }

    /// Done: every marker exists and is not older than the input, and every output with pages has one.
    func isUpToDate(base: String, input: String) -> Bool {
        guard markerPaths(base: base).allSatisfy({ BatchFiles.isUpToDate($0, input: input) }) else { return false }
        return outputs.allSatisfy { !$0.files.pages || !$0.pages(base).isEmpty }
    }

    /// The timeline subcommand prints its JSON on stdout: the batch writes it to the output file.
    var outputIsStandardOutput: Bool { command == .timeline }

    /// Where the batch writes a child's standard output (when `outputIsStandardOutput`).
    func standardOutputPath(base: String) -> String { outputs[0].main(base) }

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

    /// The job for one input: its outputs named from `base`, each conversion's streams on `stdout` and `stderr`.
    func job(input: String, base: String, stdout: String, stderr: String) -> BatchJob {
        // A path that starts with `-` would read as standard input (`-`) or, as before, an option.
        let safeInput = input.hasPrefix("-") ? "./" + input : input
        let outputs = outputIsStandardOutput ? [] : self.outputs.map {
            BatchJob.Output(kind: $0.kind.name, path: $0.main(base), description: $0.description(base))
        }
        return BatchJob(input: safeInput, outputs: outputs, stdout: stdout, stderr: stderr)
    }

    /// The files a finished conversion left for `base`, for the report's `outputs`: each output's pages, then its
    /// marker.
    func existingOutputs(base: String) -> [String] {
        outputs.flatMap { output in
            output.pages(base) + [output.marker(base)].filter { FileManager.default.fileExists(atPath: $0) }
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
