import ArgumentParser
import GifxKit
import GifxTimeline

/// The video options `to-mp4` and `convert` share (MP4, WebM and AVIF): timing mode, codec, quality, background, loops.
struct VideoOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Output frame rate: auto (the source video's rate, every frame within 10 ms), tick (the GIF's tick rate), "
            + "or e.g. 30 or 30000/1001 (default: the tick; for .avif one frame per GIF frame, as --vfr).",
        valueName: "rate"))
    var fps: FrameRateChoice?
    @Flag(help: "Variable frame rate: one video frame per GIF frame, each lasting exactly its delay.")
    var vfr = false
    @Option(help: ArgumentHelp(
        "Cap the frame rate: above it, resample at the rate <= N with the smallest timing error (reports drops).",
        valueName: "rate"))
    var maxFps: FrameRate?
    @Option(help: ArgumentHelp(
        "Video codec: h264 (libx264), hevc (libx265, tagged hvc1), vp9 (libvpx; keeps alpha in .webm) or av1 "
            + "(SVT-AV1). Default: h264 for .mp4, vp9 for .webm, av1 for .avif (its only codec).", valueName: "codec"))
    var codec: VideoCodec?
    @Option(help: ArgumentHelp(
        "Constant rate factor, lower is better: 0-51 for h264/hevc (default 23), 0-63 for vp9 (32) and av1 (35).",
        valueName: "crf"))
    var crf: Double?
    @Option(help: ArgumentHelp(
        "H.264/HEVC level the stream must play at, e.g. 3.1 or 4.1: caps the rate as --max-fps does, refuses "
            + "larger sizes, writes the level and a VBV within its bit rate.", valueName: "level"))
    var level: LevelRequest?
    @Option(help: "Encoder preset, ultrafast ... placebo.") var preset = "medium"
    @Option(help: "Colour behind transparent pixels and odd-size padding: #RRGGBB, #RGB, white or black.")
    var background: RGBColor = .white
    @Option(help: ArgumentHelp(
        "Write the animation this many times into a video. MP4 and WebM have no loop count (players loop them by "
            + "their own setting), so this is how a video plays N times; an AVIF plays as the GIF does, and with "
            + "--loops its N copies once."))
    var loops = 1
    @Option(help: ArgumentHelp(
        "Fit the video under this size, e.g. 10M (MiB) or 8000000, at the best quality that fits: at most 3 encodes, "
            + "the CRF of each predicted from the ones before (--crf is where the search starts); refused when even "
            + "the lowest quality does not fit.", valueName: "size"))
    var targetSize: ByteCount?
    @Option(help: ArgumentHelp(
        "Longest gap between key frames, in seconds of video (for fixed-length segments). Default: a key frame "
            + "every 250 coded pictures, whatever the seconds. Either way a key frame goes on the first new "
            + "picture at or after it is due, never inside a held frame.", valueName: "seconds"))
    var keyframeInterval: Double?
    @Option(help: ArgumentHelp("Bound the encoder's buffers: auto, on or off.", visibility: .hidden))
    var lowMemory: LowMemoryMode = .auto

    func validate() throws {
        if vfr && fps != nil { throw ValidationError("give either --vfr or --fps, not both") }
        if let problem = mp4Options(size: .original).timingProblem { throw ValidationError(problem.commandLineWording) }
    }

    /// Refuses options the encoder of a `container` output cannot take (codec, crf range, preset, loops):
    /// the commands call it for each kind of video output they write.
    func validate(for container: VideoContainer) throws {
        let options = VideoSettings(
            container: container, codec: codec, crf: crf, preset: preset, loops: loops, level: level,
            keyframeInterval: keyframeInterval)
        if let problem = options.problem { throw ValidationError(problem.commandLineWording) }
    }

    /// The timing the options ask for.
    var timing: OutputPlan.Request { timing(for: .mp4) }

    /// The timing of a `container` output: the options' own, and when none is asked (no --fps or --vfr) the
    /// container's default, capped or not by --max-fps (`VideoContainer.defaultTiming`: VFR for an AVIF).
    func timing(for container: VideoContainer) -> OutputPlan.Request {
        if vfr { return .vfr }
        switch fps {
        case nil: return container.defaultTiming(capped: maxFps != nil)
        case .tick?: return .tick
        case .auto?: return .auto
        case .rate(let rate)?: return .rate(rate)
        }
    }

    /// The encoder's options for a `container` output at output size `size`.
    /// `codec`: an output's own codec in place of `--codec` (the crf default follows it, in `VideoSettings.init`).
    func mp4Options(size: SizeRequest, container: VideoContainer = .mp4, codec: VideoCodec? = nil) -> VideoSettings {
        var settings = VideoSettings(
            container: container, codec: codec ?? self.codec, crf: crf, preset: preset, background: background, loops: loops,
            size: size, lowMemory: lowMemory.forced, timing: timing(for: container), maxFrameRate: maxFps?.rate,
            level: level, keyframeInterval: keyframeInterval)
        if let targetSize { capSize(&settings, at: targetSize.bytes) }
        return settings
    }

    /// A size cap on `settings` (the search starts at `--crf`, docs/delivery.md).
    func capSize(_ settings: inout VideoSettings, at bytes: Int) {
        settings.targetSize = bytes
    }
}

extension LevelRequest: ExpressibleByArgument {
    public init?(argument: String) { self.init(text: argument) }
}

extension VideoResult {
    /// The AVIF timing warning with its remedy.
    var imageTimingAdvice: String? {
        imageTimingWarning.map { "\($0); the default (one frame per GIF frame, as --vfr) is exact" }
    }

    /// The level warning in this command line's terms: the problem, and the options that lower the level.
    var levelWarning: String? {
        levelProblem.map { "\($0); " + (plan.kind == .vfr ? "--max-fps 60 (instead of --vfr)" : "--vfr or --max-fps 60") + " lowers it" }
    }
}

extension VideoSettingsProblem {
    /// The problem in this command line's terms: each option by its flag.
    var commandLineWording: String {
        switch self {
        case .capDoesNotApply(.vfr): return "--max-fps caps a constant rate; it does not apply to --vfr"
        case .capDoesNotApply: return "--max-fps caps the tick rate or --fps auto; with --fps N give a lower N instead"
        case .rateOutOfRange: return "--fps/--max-fps: \(description)"
        case .container: return description.replacingOccurrences(of: "codec ", with: "--codec ")
        case .loops, .crf, .preset: return "--\(description)"
        case .level(_, let codec) where LevelLimits.levels(of: codec).isEmpty:
            return "--level applies to h264 and hevc, not \(codec.rawValue)"
        case .level: return "--\(description)"
        case .keyframeInterval:
            let range = VideoSettingsProblem.keyframeIntervalRange
            return "--keyframe-interval must be \(range.lowerBound)...\(Int(range.upperBound)) seconds"
        }
    }
}
