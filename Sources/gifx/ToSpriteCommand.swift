import ArgumentParser
import Foundation
import GifxKit
import GifxTimeline

/// `gifx to-sprite`: a sprite sheet PNG (pages when it would exceed `--max-size`) plus its JSON, written
/// a row of cells at a time and committed together.
struct ToSpriteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "to-sprite",
        abstract: "Lay a GIF's frames out on a sprite sheet PNG with a JSON description.",
        discussion: """
            The grid is the most square sheet that fits --max-size per side; when the frames do not fit one \
            sheet, pages OUT-0.png, OUT-1.png, ... are written and the JSON says which page each frame is on. \
            A frame that alone exceeds --max-size is a usage error (exit 64), reported before anything is written.
            The PNG is indexed (palette + tRNS) when the sheet holds at most 256 distinct RGBA values, RGB when \
            every frame pixel is opaque, RGBA otherwise. --dedupe, --trim and --pack maxrects read the GIF twice \
            (a pre-pass, then the sheet); so does a GIF whose palettes cannot settle the colour type.
            """)

    @Argument(help: "Input \(InputFormat.helpPhrase()) (told by content), or - for standard input (then -o is required).") var input: String
    @Option(name: .shortAndLong, help: "Sheet PNG (default: the input with .png); - (or png:-) for standard output, with --json FILE.")
    var output: OutputArgument?
    @Option(help: "JSON file (default: the PNG's path with .json).") var json: String?
    @OptionGroup var options: ToSpriteOptions

    func validate() throws {
        if input == "-" && output == nil { throw ValidationError("reading standard input needs -o OUT.png") }
        if let output {
            let spec = try output.parsedSpec()
            if let kind = spec.namedKind, kind != .pngPoster {
                throw ValidationError("'\(output.text)': to-sprite writes a PNG sheet; use convert for \(kind.displayName)")
            }
            if !spec.settings.isEmpty { throw ValidationError("'\(output.text)': per-output settings are for convert") }
        }
        if StandardOutput.isTarget(pngPath) && (json == nil || json.map(StandardOutput.isTarget) == true) {
            throw ValidationError("-o - sends the sheet to standard output: give --json FILE for its description")
        }
        try StandardOutputRules.validate(targets: [pngPath, jsonPath], stats: options.common.stats)
    }

    /// `-o` (without its `png:` prefix), or the input with `.png` in place of `.gif`.
    var pngPath: String {
        if let output { return output.spec.path }
        return replacingExtension(of: input, with: "png")
    }

    /// `--json`, or the PNG's path with `.json` (`.tres` for godot).
    var jsonPath: String {
        if let json { return json }
        return replacingExtension(of: pngPath, with: options.sheet.descriptionExtension)
    }

    var outputs: [ConversionOutput] { [ConversionOutput(kind: .sheet, path: pngPath, description: jsonPath)] }

    func run() throws {
        try options.runConversion(input: input, outputs: outputs) {
            if jsonPath == pngPath { throw ValidationErrorLine(path: jsonPath, "the JSON and the PNG are the same file") }
        }
    }
}

/// `to-sprite`'s options: the sheet's layout, then the run's.
struct ToSpriteOptions: ConversionOptions {
    static let commandName = "to-sprite"

    @OptionGroup var sheet: SheetLayoutOptions
    @OptionGroup var size: SizeOptions
    @Option(help: "Whose reading of delays and loop counts to follow: flanimated (iOS reference player) or browser.")
    var policy: TimelinePolicy = .flanimated
    @OptionGroup var common: RunOptions
    @OptionGroup(title: "Verification") var verification: VerifyOptions
    @OptionGroup(title: "Edits (every output)") var edits: EditOptions

    /// The sheet's defaults.
    var defaults: OutputDefaults {
        let sheet = sheet
        var defaults = OutputDefaults()
        defaults.size = size.request
        defaults.sheet.options = { png, json, size in sheet.spriteOptions(png: png, json: json, size: size) }
        return defaults
    }

    /// `--dedupe`: how many frames reuse an earlier cell (unless `--quiet`).
    func describe(_ report: ConversionReport, input: String) {
        guard sheet.dedupe && !common.quiet, let result = report.outputs.first as? SpriteResult else { return }
        printError(
            displayName(input),
            "dedupe: \(result.cellsSaved) of \(result.frames) frames reuse an earlier cell (\(result.cells) cells)")
    }
}

/// A usage problem found while running (not by the parser): one line, exit 64.
private struct ValidationErrorLine: GifxError {
    let path: String
    let message: String
    init(path: String, _ message: String) { self.path = path; self.message = message }
    var description: String { message }
    var failureClass: FailureClass { .usage }
    var subjectPath: String? { path }
}
