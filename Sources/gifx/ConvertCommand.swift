import ArgumentParser
import GifxEncoders
import GifxKit
import Foundation
import GifxFrames
import GifxTimeline

/// `gifx convert`: one decode of the GIF feeds every output asked for (MP4, WebM, WebP, poster, schedule,
/// sprite sheet), and all of them are committed together, or none.
struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert a GIF to several outputs at once: MP4, WebM, WebP, poster, timeline JSON, sprite sheet.",
        discussion: """
            Each -o output's format follows its extension: .mp4 (as to-mp4, with its options), .webm (VP9, \
            keeping the GIF's transparency as alpha; --codec av1 for AV1; the same timing modes), .avif (animated \
            AVIF: AV1 through SVT-AV1, or libaom under 64 pixels a side; the same timing modes, by default one \
            frame per GIF frame as --vfr, since browsers stretch image frames of 10 ms; transparency \
            composited over --background, as FFmpeg 5.1's AVIF muxer carries no alpha track), .webp \
            (animated, lossless unless --webp-quality; exact delays, loop count, alpha), .png or .jpg (a \
            poster: one frame; PNG keeps transparency, JPEG shows --background; --poster-frame), \
            .timeline.json (the schedule, as timeline --json prints it). --sheet OUT.png [--json OUT.json] adds a sprite sheet with to-sprite's \
            options. The GIF is decoded once for all of them; every file is written under a hidden temporary \
            name and all are renamed into place together when every output is complete, or none is.
            """)

    @Argument(help: "Input GIF, WebP or PNG/APNG (told by content), or - for standard input.") var input: String
    @Option(name: .shortAndLong, help: ArgumentHelp(
        "An output; repeat for more. Format by extension: .mp4, .webm, .avif, .webp, .png/.jpg (poster), .timeline.json; "
            + "- is standard output, named by a prefix: mp4:-. A prefix also sets this output's own "
            + "width/height/scale, codec, crf, fps, max-fps, quality, target-size: width=480,crf=28:small.mp4.",
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
        let formats = Set(specs.compactMap(\.format))
        if formats.contains(.mp4) { try video.validate(for: .mp4) }
        if formats.contains(.webm) { try video.validate(for: .webm) }
        if formats.contains(.avif) { try video.validate(for: .avif) }
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
            requests.append(.spriteSheet(sheetLayout.spriteOptions(png: sheet, json: sheetJSONPath, size: size.request)))
        }
        return requests
    }

    /// The request one `-o` asks for: its format's settings from the command's options with the output's own
    /// over them. Refuses (`ValidationError`) a format that none names, and settings that do not apply to the
    /// format or that its encoder cannot take.
    func request(for argument: OutputArgument) throws -> OutputRequest {
        let value = argument.text
        let spec = try argument.parsedSpec()
        let path = OutputTarget(commandLine: spec.path)
        let own = spec.settings
        guard let format = spec.format else {
            throw ValidationError(spec.isStandardOutput
                ? "'\(value)': name the format of standard output with a prefix, e.g. mp4:- (\(OutputFormat.prefixList))"
                : "'\(value)': unknown output format (use .mp4, .webm, .avif, .webp, .png or .jpg for a poster, or .timeline.json)")
        }
        if format != .mp4 && format != .webm && format != .avif {
            if own.targetSize != nil && format != .webp {
                throw ValidationError("'\(value)': target-size= is for .mp4, .webm and .webp")
            }
            if own.codec != nil || own.crf != nil || own.timing != nil || own.maxFps != nil || own.keyframeInterval != nil {
                throw ValidationError("'\(value)': codec, crf, fps, max-fps and keyframe-interval are for .mp4, .webm and .avif")
            }
        }
        switch format {
        case .mp4, .webm, .avif:
            if own.quality != nil { throw ValidationError("'\(value)': quality= is for .webp and .jpg; use crf=") }
            let settings = videoSettings(own, container: format == .mp4 ? .mp4 : format == .webm ? .webm : .avif)
            // Without settings of its own the output is the command's options, which `VideoOptions` checks.
            if !own.isEmpty, let problem = settings.problem ?? settings.timingProblem {
                throw ValidationError("'\(value)': \(problem.description)")
            }
            return .video(target: path, options: settings)
        case .png, .jpg:
            if own.size != nil {
                throw ValidationError("'\(value)': a poster is written at the GIF's size; width/height/scale are for .mp4, .webm and .webp")
            }
            if format == .png {
                if own.quality != nil { throw ValidationError("'\(value)': a PNG poster is lossless; quality= is for .webp and .jpg") }
                return .poster(target: path, frame: posterFrame.frame)
            }
            if let quality = own.quality, quality < 1 { throw ValidationError("'\(value)': quality must be 1...100 for a JPEG") }
            return .jpegPoster(
                target: path, frame: posterFrame.frame,
                options: JPEGOptions(quality: own.quality.map { Int($0.rounded()) } ?? jpegQuality, background: video.background))
        case .timelineJSON:
            if !own.isEmpty { throw ValidationError("'\(value)': the timeline JSON takes no settings") }
            return .timelineJSON(target: path)
        case .webp:
            return .webp(target: path, options: WebPOptions(
                quality: own.quality ?? webpQuality, size: own.size ?? size.request,
                targetSize: own.targetSize ?? video.targetSize?.bytes))
        case .sheet:
            preconditionFailure("OutputSpec.format never names a sheet (--sheet writes it)")
        }
    }

    /// A video output's settings: the command's video and size options, with the output's own over them.
    func videoSettings(_ own: OutputSettings, container: VideoContainer) -> VideoSettings {
        var settings = video.mp4Options(size: own.size ?? size.request, container: container, codec: own.codec)
        if let targetSize = own.targetSize { video.capSize(&settings, at: targetSize) }
        if let crf = own.crf { settings.crf = crf }
        if let timing = own.timing { settings.timing = timing.request }
        if let maxFps = own.maxFps { settings.maxFrameRate = maxFps }
        if let seconds = own.keyframeInterval { settings.keyframeInterval = seconds }
        return settings
    }

    func run() throws {
        let started = Date()
        installCleanupSignalHandlers()
        let progress = ProgressReporter(label: "convert", quiet: common.quiet, progress: common.progress)
        try reportingErrors(input: input, progress: progress.json, outputBytes: { JSONProgress.bytes(of: allTargets) }) {
            try StandardOutputRules.refuseTerminal(binaryFormat: specs.first(where: \.isStandardOutput).flatMap(\.format)
                .flatMap { $0 == .timelineJSON ? nil : $0.displayName } ?? (sheet.map(StandardOutput.isTarget) == true ? "PNG" : nil))
            for target in allTargets where !StandardOutput.isTarget(target) { try ensureOutput(target, isNot: input) }
            let report: ConversionReport
            do {
                report = try printingVerificationReport {
                    try InputSource.withPath(input) { path in
                        try GifConverter(settings: edits.applied(to: verification.applied(to: common.settings(policy: policy))))
                            .convert(path: path, to: try requests(), progress: progress.update)
                    }
                }
                progress.finish()
            } catch {
                progress.finish()
                throw error
            }
            var warnings = report.warnings
            for case .video(let result) in report.outputs {
                warnings += [result.droppedFramesWarning, result.levelWarning, result.imageTimingAdvice].compactMap { $0 }
            }
            printWarnings(warnings, input: input, quiet: common.quiet)
            if common.stats {
                printStats(ConvertStats(
                    frames: report.frames, decodedFrames: report.decodedCanvases, outputs: report.outputs.map(ConvertOutputStats.init),
                    wallSeconds: (Date().timeIntervalSince(started) * 1000).rounded() / 1000,
                    peakCacheBytes: report.peakCacheBytes, cacheCapacity: report.cacheCapacity,
                    decode: report.decode, peakRSSBytes: peakResidentBytes(), memory: report.memory))
            }
        }
    }
}
