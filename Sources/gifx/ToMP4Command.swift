import ArgumentParser
import GifxEncoders
import GifxKit
import Foundation
import GifxFrames
import GifxTimeline

#if canImport(Glibc)
import Glibc
#endif

extension VideoCodec: ExpressibleByArgument {}

/// `gifx to-mp4`: an MP4 (H.264, HEVC or AV1; `convert` writes WebM) whose duration and frame timing are the GIF's: constant
/// rate at the tick by default, or another timing mode (`--fps`, `--vfr`, `--max-fps`).
struct ToMP4Command: ParsableCommand, ConvertingCommand {
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

    @Argument(help: "Input GIF, WebP or PNG/APNG (told by content), or - for standard input (then -o is required).") var input: String
    @Option(name: .shortAndLong, help: "Output MP4 (default: the input with .mp4); - (or mp4:-) for standard output, as fragmented MP4.")
    var output: OutputArgument?
    @OptionGroup var video: VideoOptions
    @Option(help: "Whose reading of delays to follow: flanimated (iOS reference player) or browser.")
    var policy: TimelinePolicy = .flanimated
    @OptionGroup var size: SizeOptions
    @OptionGroup var common: RunOptions
    @OptionGroup(title: "Verification") var verification: VerifyOptions
    @OptionGroup(title: "Edits (every output)") var edits: EditOptions

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
        try StandardOutputRules.validate(targets: [outputPath], stats: common.stats)
        if verification.verify && video.targetSize != nil {
            throw ValidationError("--verify does not check --target-size outputs yet; run gifx verify on the result")
        }
        try video.validate(for: .mp4)
    }

    /// `-o` (without its `mp4:` prefix), or the input with `.mp4` in place of its extension.
    var outputPath: String {
        if let output { return output.spec.path }
        return replacingExtension(of: input, with: "mp4")
    }

    func run() throws {
        let started = Date()
        installCleanupSignalHandlers()
        let progress = ProgressReporter(label: "to-mp4", quiet: common.quiet, progress: common.progress)
        try reportingErrors(input: input, progress: progress.json, outputBytes: { JSONProgress.bytes(of: [outputPath]) }) {
            let target = outputPath
            if StandardOutput.isTarget(target) {
                try StandardOutputRules.refuseTerminal(binaryFormat: "MP4")
            } else {
                try ensureOutput(target, isNot: input)
            }
            let options = video.mp4Options(size: size.request)
            let report = try runConversion(
                input: input, requests: [.video(target: OutputTarget(commandLine: target), options: options)], progress: progress)
            guard let result = report.outputs[0] as? VideoResult else { return }
            printWarnings(
                report.warnings + [result.droppedFramesWarning, result.levelWarning].compactMap { $0 }, input: input,
                quiet: common.quiet)
            if common.stats {
                let plan = result.plan
                printStats(ToMP4Stats(
                    frames: report.frames, outputFrames: result.summary.outputFrames,
                    fps: plan.rate?.description ?? "vfr", loops: video.loops,
                    width: result.outputSize.width, height: result.outputSize.height,
                    durationSeconds: plan.durationSeconds * Double(video.loops),
                    wallSeconds: Date().timeIntervalSince(started), peakCacheBytes: report.peakCacheBytes,
                    cacheCapacity: report.cacheCapacity, decode: report.decode, peakRSSBytes: peakResidentBytes(),
                    encoder: result.tuning, timing: ToMP4TimingStats(result: result),
                    mp4Layout: result.layout, memory: report.memory, targetSize: result.targetSize,
                    pictures: VideoPictureStats(result.summary), keyframes: KeyframeStats(result)))
            }
        }
    }
}

/// The `--stats` summary of `to-mp4` (decoded again by `batch`, see `JobFacts`).
struct ToMP4Stats: Codable {
    var frames: Int
    var outputFrames: Int
    var fps: String
    var loops: Int
    var width: Int
    var height: Int
    var durationSeconds: Double
    var wallSeconds: Double
    var peakCacheBytes: Int
    var cacheCapacity: Int
    /// Decoding threads, decode-ahead window (frames) and its peak bytes.
    var decode: DecodeStats
    var peakRSSBytes: Int
    var encoder: EncoderTuning
    var timing: ToMP4TimingStats
    /// `faststart`, or `fragmented` above 250,000 output frames (`null` for WebM).
    var mp4Layout: MP4Layout?
    /// How the memory budget was shared, beside `peakRSSBytes` (`nil` from gifx before issue 24).
    var memory: MemoryPlan?
    /// With `--target-size`: the encodes spent and the one kept.
    var targetSize: TargetSizeReport?
    /// Pictures the encoder coded and repeat pictures spliced in, with their bytes (`nil` before issue 34).
    var pictures: VideoPictureStats?
    /// The key frames' times and the interval asked for (`nil` before issue 51).
    var keyframes: KeyframeStats?
}

/// `--stats`' `timing` object: how the plan laid the video out and what the stream demands of players.
struct ToMP4TimingStats: Codable {
    /// `tick`, `fps`, `auto`, `vfr`, with `+max-fps` when the cap applied.
    var mode: String
    /// The constant rate, or `vfr`.
    var rate: String
    /// 100 / shortest delay for VFR; the rate for CFR.
    var peakRate: String
    var outputFramesPerPlay: Int
    var worstStartErrorMs: Double
    var gifFramesNeverShown: Int
    /// The level libx264 wrote in the SPS (`null` for HEVC).
    var h264Level: String?
    /// `--level`: the level asked (H.264 or HEVC, written in the stream) and the highest rate it allows at
    /// the output size (exact, and in decimals), the cap the plan was made under; `null` without `--level`.
    var levelAsked: String?
    var levelMaxFps: String?
    var levelMaxFpsDecimal: Double?
    var reason: String

    init(result: VideoResult) {
        let plan = result.plan
        mode = plan.mode
        rate = plan.rate?.description ?? "vfr"
        peakRate = plan.peakRate.description
        outputFramesPerPlay = plan.outputFrames
        worstStartErrorMs = Double(plan.worstStartErrorMicroseconds) / 1000
        gifFramesNeverShown = plan.framesNeverShown
        h264Level = (result.signalledH264Level ?? result.requiredH264Level)?.description
        levelAsked = result.settings.level?.description
        levelMaxFps = result.levelRateCap?.description
        levelMaxFpsDecimal = result.levelRateCap.map { ($0.doubleValue * 1000).rounded(.down) / 1000 }
        if case .capped(let limit, let asked, let chosen) = plan.reason, limit == result.levelRateCap,
           let level = result.settings.level {
            reason = "--level \(level) (at most \(limit) fps at \(result.outputSize.width)x\(result.outputSize.height)): "
                + RateReason.cappedDetail(asked: asked, chosen: chosen)
        } else {
            reason = plan.reason.commandLineWording
        }
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
