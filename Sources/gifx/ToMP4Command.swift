import ArgumentParser
import Foundation
import GifxKit
import GifxTimeline

#if canImport(Glibc)
import Glibc
#endif

extension VideoCodec: ExpressibleByArgument {}

/// `gifx to-mp4`: an MP4 (H.264, HEVC or AV1; `convert` writes WebM) whose duration and frame timing are the GIF's: constant
/// rate at the tick by default, or another timing mode (`--fps`, `--vfr`, `--max-fps`).
struct ToMP4Command: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "to-mp4",
        abstract: "Convert a GIF to an MP4 with exact timing (constant frame rate at the GIF's tick).",
        discussion: """
            The video runs at 100/tick fps (tick: the GCD of all delays), each frame repeated for its delay, \
            so the duration equals the GIF's, last delay included; --fps N resamples without drift; \
            --fps auto picks the lowest common video rate that shows every frame within 10 ms; --vfr writes \
            one sample per GIF frame lasting its delay (exact, fewest frames); --max-fps caps the rate. \
            Transparency is composited over --background; odd sizes are padded to even with that colour. \
            The file is written beside the target under a temporary name and renamed when complete.
            """)

    @Argument(help: "Input \(InputFormat.helpPhrase()) (told by content), or - for standard input (then -o is required).") var input: String
    @Option(name: .shortAndLong, help: "Output MP4 (default: the input with .mp4); - (or mp4:-) for standard output, as fragmented MP4.")
    var output: OutputArgument?
    @OptionGroup var options: ToMP4Options

    func validate() throws {
        if input == "-" && output == nil { throw ValidationError("reading standard input needs -o OUT.mp4") }
        if let output, (try? output.parsedSpec())?.path.lowercased().hasSuffix(".avif") == true {
            throw ValidationError("to-mp4 writes MP4; for an animated AVIF use gifx convert IN -o OUT.avif")
        }
        if let output {
            let spec = try output.parsedSpec()
            if let kind = spec.namedKind, kind != .mp4 {
                throw ValidationError("'\(output.text)': to-mp4 writes MP4; use convert for \(kind.displayName)")
            }
            if !spec.settings.isEmpty { throw ValidationError("'\(output.text)': per-output settings are for convert") }
        }
        try StandardOutputRules.validate(targets: [outputPath], stats: options.common.stats)
        try options.validate(for: outputs)
    }

    /// `-o` (without its `mp4:` prefix), or the input with `.mp4` in place of its extension.
    var outputPath: String {
        if let output { return output.spec.path }
        return replacingExtension(of: input, with: "mp4")
    }

    var outputs: [ConversionOutput] { [ConversionOutput(kind: .mp4, path: outputPath)] }

    func run() throws { try options.runConversion(input: input, outputs: outputs) }
}

/// `to-mp4`'s options: the video's, then the run's.
struct ToMP4Options: ConversionOptions {
    static let commandName = "to-mp4"

    @OptionGroup var video: VideoOptions
    @Option(help: "Whose reading of delays to follow: flanimated (iOS reference player) or browser.")
    var policy: TimelinePolicy = .flanimated
    @OptionGroup var size: SizeOptions
    @OptionGroup var common: RunOptions
    @OptionGroup(title: "Verification") var verification: VerifyOptions
    @OptionGroup(title: "Edits (every output)") var edits: EditOptions

    func validate(for outputs: [ConversionOutput]) throws {
        if verification.verify && video.targetSize != nil {
            throw ValidationError("--verify does not check --target-size outputs yet; run gifx verify on the result")
        }
        try video.validate(for: .mp4)
    }

    /// Every output's defaults: an MP4 at `--width`/`--height`/`--scale`.
    var defaults: OutputDefaults {
        let video = video, size = size.request
        var defaults = OutputDefaults { container, own in
            video.mp4Options(size: own.size ?? size, container: container, codec: own.codec)
        }
        defaults.video.checksPlain = false
        defaults.size = size
        return defaults
    }
}

/// `--fps`: `auto`, `tick` (the GIF's tick: MP4's default, asked for explicitly where it is not, as in AVIF),
/// or a rate.
enum FrameRateChoice: ExpressibleByArgument {
    case auto
    case tick
    case rate(Rational)

    init?(argument: String) {
        if argument == "auto" {
            self = .auto
        } else if argument == "tick" {
            self = .tick
        } else if let rate = FrameRate(argument: argument) {
            self = .rate(rate.rate)
        } else {
            return nil
        }
    }
}

/// `--fps`: a whole number, a decimal (`29.97`) or an exact fraction (`30000/1001`).
struct FrameRate: ExpressibleByArgument {
    var rate: Rational

    init?(argument: String) {
        guard let rate = SettingText.frameRate(argument) else { return nil }
        self.rate = rate
    }
}

/// `--low-memory`: let gifx decide, or force the encoder's bounded settings on or off.
enum LowMemoryMode: String, ExpressibleByArgument, CaseIterable {
    case auto, on, off
    var forced: Bool? { self == .auto ? nil : self == .on }
}
