import ArgumentParser
import Foundation
import GifxKit
import GifxTimeline

/// `gifx convert`: one decode of the GIF feeds every output asked for (MP4, WebM, WebP, poster, schedule,
/// sprite sheet), and all of them are committed together, or none.
struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert a GIF to several outputs at once, from one decode: \(OutputKind.phrase(OutputKind.all.map(\.name))).",
        discussion: """
            Each -o output's format follows its extension, or a prefix that names it (mp4:-): \
            \(EnglishList.joined(OutputKind.all.filter { !$0.prefixNames.isEmpty }
                .map { "\(EnglishList.joined($0.extensions, separator: " or ")) (\($0.summary))" }, separator: ", ")). \
            --sheet OUT.png [--json OUT.json] adds a sprite sheet with to-sprite's options. A poster shows \
            --poster-frame; a JPEG shows --background behind transparency. The GIF is decoded once for all of \
            them; every file is written under a hidden temporary name and all are renamed into place together \
            when every output is complete, or none is.
            """)

    @Argument(help: "Input \(InputFormat.helpPhrase()) (told by content), or - for standard input.") var input: String
    @Option(name: .shortAndLong, help: ArgumentHelp(ConvertCommand.outputHelp, valueName: "out"))
    var output: [OutputArgument] = []
    @OptionGroup var options: ConvertOptions

    func validate() throws {
        if output.isEmpty && options.sheet == nil { throw ValidationError("give at least one -o OUT or --sheet OUT.png") }
        if options.json != nil && options.sheet == nil { throw ValidationError("--json describes a sprite sheet: give --sheet too") }
        for argument in output { _ = try options.request(try self.output(argument)) }
        let outputs = try self.outputs()
        if let sheet = options.sheet, StandardOutput.isTarget(sheet), options.json == nil || options.json.map(StandardOutput.isTarget) == true {
            throw ValidationError("--sheet - sends the PNG to standard output: give --json FILE for its description")
        }
        let targets = outputs.flatMap(\.paths)
        try StandardOutputRules.validate(targets: targets, stats: options.common.stats)
        try options.validate(for: outputs)
        if Set(targets).count != targets.count { throw ValidationError("two outputs name the same file") }
    }

    /// The outputs, in command-line order (`-o`s first, then the sheet).
    func outputs() throws -> [ConversionOutput] {
        var outputs = try output.map(output)
        if let sheet = options.sheet, let sheetJSONPath = options.sheetJSONPath {
            outputs.append(ConversionOutput(kind: .sheet, path: sheet, description: sheetJSONPath))
        }
        return outputs
    }

    /// The output one `-o` names; refuses (`ValidationError`) one whose kind none names.
    func output(_ argument: OutputArgument) throws -> ConversionOutput {
        let value = argument.text
        let spec = try argument.parsedSpec()
        guard let kind = spec.kind else {
            throw ValidationError(spec.isStandardOutput
                ? "'\(value)': name the format of standard output with a prefix, e.g. mp4:- (\(OutputKind.prefixList))"
                : "'\(value)': unknown output format (use \(OutputKind.extensionList))")
        }
        return ConversionOutput(kind: kind, path: spec.path, own: spec.settings, label: value)
    }

    /// `validate` has read every output once already, so none fails here; a failure would be a usage error.
    func run() throws { try options.runConversion(input: input, outputs: try outputs()) }

    /// `-o`'s help, worded from the registry once per process: ArgumentParser makes the command eight times while it
    /// parses a command line (its reflection), and each made this text again (1.4 M instructions in every `convert`,
    /// issue 49 item 8; docs/benchmarks.md).
    private static let outputHelp = "An output; repeat for more. Format by extension: \(OutputKind.extensionList); "
        + "- is standard output, named by a prefix: mp4:-. A prefix also sets this output's own "
        + "\(OutputSettings.keys.joined(separator: ", ")): width=480,crf=28:small.mp4."
}

/// `convert`'s options: the poster's, the sheet's files, WebP and JPEG quality, the video's and the sheet's layout, then
/// the run's.
struct ConvertOptions: ConversionOptions {
    static let commandName = "convert"
    static var liftsOutputStats: Bool { false }

    @Option(help: ArgumentHelp("Poster frame: N (from 0), middle or last.", valueName: "frame"))
    var posterFrame: PosterFrameChoice = PosterFrameChoice(frame: .index(0))
    @Option(help: ArgumentHelp("Also write a sprite sheet PNG (pages beside it when needed).", valueName: "png"))
    var sheet: String?
    @Option(help: "The sprite sheet's JSON (default: the sheet's path with .json).") var json: String?
    @Option(help: ArgumentHelp(
        "Lossy .webp at this quality, 0-100 (default: lossless, exact pixels).", valueName: "quality"))
    var webpQuality: Float?
    @Option(help: ArgumentHelp("A .jpg poster's quality, 1-100.", valueName: "quality"))
    var jpegQuality = 90
    @OptionGroup(title: "Video options (.mp4, .webm, .avif)") var video: VideoOptions
    @OptionGroup(title: "Sprite sheet options (--sheet)") var sheetLayout: SheetLayoutOptions
    @OptionGroup var size: SizeOptions
    @Option(help: "Whose reading of delays and loop counts to follow: flanimated (iOS reference player) or browser.")
    var policy: TimelinePolicy = .flanimated
    @OptionGroup var common: RunOptions
    @OptionGroup(title: "Verification") var verification: VerifyOptions
    @OptionGroup(title: "Edits (every output)") var edits: EditOptions

    /// The sprite sheet's description: `--json`, or the sheet's path with `.json` (`.tres` for godot).
    var sheetJSONPath: String? {
        guard let sheet else { return nil }
        return json ?? replacingExtension(of: sheet, with: sheetLayout.descriptionExtension)
    }

    func validate(for outputs: [ConversionOutput]) throws {
        if verification.verify && (video.targetSize != nil || outputs.contains { $0.own.targetSize != nil }) {
            throw ValidationError("--verify does not check --target-size outputs yet; run gifx verify on the result")
        }
        for container in VideoContainer.allCases where outputs.contains(where: { $0.kind.name == container.rawValue }) {
            try video.validate(for: container)
        }
        if let webpQuality, !(0...100).contains(webpQuality) { throw ValidationError("--webp-quality must be 0...100") }
        if !(1...100).contains(jpegQuality) { throw ValidationError("--jpeg-quality must be 1...100") }
    }

    /// What an output has unless its own settings say otherwise: the command's options. A video without settings
    /// of its own is the command's options, which `VideoOptions` checks in their words.
    var defaults: OutputDefaults {
        let video = video, size = size.request, sheetLayout = sheetLayout
        var defaults = OutputDefaults { container, own in
            video.mp4Options(size: own.size ?? size, container: container, codec: own.codec)
        }
        defaults.video.checksPlain = false
        defaults.size = size
        defaults.webp = WebPDefaults(quality: webpQuality, targetSize: video.targetSize?.bytes)
        defaults.poster = PosterDefaults(
            frame: posterFrame.frame, jpeg: JPEGOptions(quality: jpegQuality, background: video.background))
        defaults.sheet.options = { png, json, size in sheetLayout.spriteOptions(png: png, json: json, size: size) }
        return defaults
    }
}
