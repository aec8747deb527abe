import ArgumentParser
import GifxEncoders
import GifxKit
import Foundation
import GifxFrames
import GifxTimeline

/// `gifx convert`: one decode of the GIF feeds every output asked for (MP4, WebM, WebP, poster, schedule,
/// sprite sheet), and all of them are committed together, or none.
struct ConvertCommand: ParsableCommand, ConvertingCommand {
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

    @Argument(help: "Input GIF, WebP or PNG/APNG (told by content), or - for standard input.") var input: String
    @Option(name: .shortAndLong, help: ArgumentHelp(
        "An output; repeat for more. Format by extension: \(OutputKind.extensionList); "
            + "- is standard output, named by a prefix: mp4:-. A prefix also sets this output's own "
            + "\(OutputSettings.keys.joined(separator: ", ")): width=480,crf=28:small.mp4.",
        valueName: "out"))
    var output: [OutputArgument] = []
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

    func validate() throws {
        if output.isEmpty && sheet == nil { throw ValidationError("give at least one -o OUT or --sheet OUT.png") }
        if json != nil && sheet == nil { throw ValidationError("--json describes a sprite sheet: give --sheet too") }
        for argument in output { _ = try request(for: argument) }
        if let sheet, StandardOutput.isTarget(sheet), json == nil || json.map(StandardOutput.isTarget) == true {
            throw ValidationError("--sheet - sends the PNG to standard output: give --json FILE for its description")
        }
        try StandardOutputRules.validate(targets: allTargets, stats: common.stats)
        if verification.verify && (video.targetSize != nil || specs.contains { $0.settings.targetSize != nil }) {
            throw ValidationError("--verify does not check --target-size outputs yet; run gifx verify on the result")
        }
        for container in VideoContainer.allCases where specs.contains(where: { $0.kind?.name == container.rawValue }) {
            try video.validate(for: container)
        }
        if let webpQuality, !(0...100).contains(webpQuality) { throw ValidationError("--webp-quality must be 0...100") }
        if !(1...100).contains(jpegQuality) { throw ValidationError("--jpeg-quality must be 1...100") }
        let targets = allTargets
        if Set(targets).count != targets.count { throw ValidationError("two outputs name the same file") }
    }

    /// The sprite sheet's description: `--json`, or the sheet's path with `.json` (`.tres` for godot).
    var sheetJSONPath: String? {
        guard let sheet else { return nil }
        return json ?? replacingExtension(of: sheet, with: sheetLayout.descriptionExtension)
    }

    /// Every file named on the command line (sheet pages beyond the first are named by the sheet).
    var allTargets: [String] { specs.map(\.path) + [sheet, sheetJSONPath].compactMap { $0 } }

    /// The `-o` values, parsed when the command line was read (`validate` has refused the ones that do not parse).
    var specs: [OutputSpec] { output.map(\.spec) }

    /// The requests, in command-line order (`-o`s first, then the sheet). `validate` has built each once already, so
    /// none fails here; a failure would be a usage error, never a crash.
    func requests() throws -> [OutputRequest] {
        var requests = try output.map { try request(for: $0) }
        if let sheet, let sheetJSONPath {
            requests.append(try OutputKind.sheet.request(OutputBuild(
                target: OutputTarget(commandLine: sheet), description: OutputTarget(commandLine: sheetJSONPath), defaults: defaults)))
        }
        return requests
    }

    /// The request one `-o` asks for: its kind's request (`OutputKind.request`, the one table of which settings each
    /// kind takes and why it refuses the others) over the command's options. Refuses (`ValidationError`) a kind that
    /// none names, and settings that do not apply to the kind or that its encoder cannot take.
    func request(for argument: OutputArgument) throws -> OutputRequest {
        let value = argument.text
        let spec = try argument.parsedSpec()
        guard let kind = spec.kind else {
            throw ValidationError(spec.isStandardOutput
                ? "'\(value)': name the format of standard output with a prefix, e.g. mp4:- (\(OutputKind.prefixList))"
                : "'\(value)': unknown output format (use \(OutputKind.extensionList))")
        }
        do {
            return try kind.request(OutputBuild(target: OutputTarget(commandLine: spec.path), own: spec.settings, defaults: defaults))
        } catch {
            throw ValidationError("'\(value)': \(error.wording(.commandLine))")
        }
    }

    /// What an output has unless its own settings say otherwise: the command's options. A video without settings
    /// of its own is the command's options, which `VideoOptions` checks in their words.
    var defaults: OutputDefaults {
        let video = video, size = size.request, sheetLayout = sheetLayout
        var defaults = OutputDefaults { container, own in
            video.mp4Options(size: own.size ?? size, container: container, codec: own.codec)
        }
        defaults.checksPlainVideo = false
        defaults.size = size
        defaults.webpQuality = webpQuality
        defaults.webpTargetSize = video.targetSize?.bytes
        defaults.jpeg = JPEGOptions(quality: jpegQuality, background: video.background)
        defaults.posterFrame = posterFrame.frame
        defaults.sheet = { png, json, size in sheetLayout.spriteOptions(png: png, json: json, size: size) }
        return defaults
    }

    func run() throws {
        let started = Date()
        installCleanupSignalHandlers()
        let progress = ProgressReporter(label: "convert", quiet: common.quiet, progress: common.progress)
        try reportingErrors(input: input, progress: progress.json, outputBytes: { JSONProgress.bytes(of: allTargets) }) {
            try StandardOutputRules.refuseTerminal(binaryFormat: specs.first(where: \.isStandardOutput).flatMap(\.kind)
                .flatMap { $0 == .timelineJSON ? nil : $0.displayName } ?? (sheet.map(StandardOutput.isTarget) == true ? "PNG" : nil))
            for target in allTargets where !StandardOutput.isTarget(target) { try ensureOutput(target, isNot: input) }
            let report = try runConversion(input: input, requests: try requests(), progress: progress)
            var warnings = report.warnings
            for case let result as VideoResult in report.outputs {
                warnings += [result.droppedFramesWarning, result.levelWarning, result.imageTimingAdvice].compactMap { $0 }
            }
            printWarnings(warnings, input: input, quiet: common.quiet)
            if common.stats {
                printStats(ConvertStats(
                    frames: report.frames, decodedFrames: report.decodedCanvases, outputs: report.outputs.map(OutputStats.init),
                    wallSeconds: (Date().timeIntervalSince(started) * 1000).rounded() / 1000,
                    peakCacheBytes: report.peakCacheBytes, cacheCapacity: report.cacheCapacity,
                    decode: report.decode, peakRSSBytes: peakResidentBytes(), memory: report.memory))
            }
        }
    }
}
