import GifxPipeline
import GifxTimeline

// The video kinds: MP4, WebM and AVIF, one descriptor each, written by the one `VideoSink`.

extension OutputKind {
    package static let mp4 = video(
        .mp4, displayName: "MP4", mediaType: "video/mp4", streams: true,
        summary: "H.264 (hevc, vp9 or av1 by codec) at the GIF's tick as exact constant frame rate, or fps auto, a rate or vfr")
    package static let webm = video(
        .webm, displayName: "WebM", mediaType: "video/webm", streams: true,
        summary: "VP9 keeping the GIF's transparency as alpha (av1 by codec), the same timing modes")
    package static let avif = video(
        .avif, displayName: "AVIF", mediaType: "image/avif", streams: false,
        summary: "animated AVIF: AV1 (SVT-AV1, libaom under 64 pixels a side), one frame per GIF frame unless a rate is "
            + "asked (browsers stretch image frames of 10 ms), transparency composited over the background")

    private static func video(
        _ container: VideoContainer, displayName: String, mediaType: String, streams: Bool, summary: String
    ) -> OutputKind {
        OutputKind(
            name: container.rawValue, displayName: displayName, summary: summary, prefixNames: [container.rawValue],
            extensions: ["." + container.rawValue], mediaType: mediaType,
            settings: [.width, .height, .scale, .codec, .crf, .fps, .maxFps, .targetSize, .keyframeInterval],
            refusals: [.quality: OutputRefusal(instead: "use crf=")], stats: VideoStats.self, streams: streams,
            reader: .video
        ) { build throws(OutputRuleError) in
            let own = build.own
            var settings = build.defaults.video.settings(container, own)
            if let targetSize = own.targetSize { settings.targetSize = targetSize }
            if let crf = own.crf { settings.crf = crf }
            if let timing = own.timing { settings.timing = timing.request }
            if let maxFps = own.maxFps { settings.maxFrameRate = maxFps }
            if let seconds = own.keyframeInterval { settings.keyframeInterval = seconds }
            if !own.isEmpty || build.defaults.video.checksPlain, let problem = settings.problem ?? settings.timingProblem {
                throw .invalid(problem.description)
            }
            return .video(target: build.target, options: settings)
        }
    }
}

/// A video's settings before its own (`OutputDefaults.video`): the command's options, or the service's defaults.
package struct VideoDefaults: Sendable {
    /// The settings of a video in `container` (and the output's own settings for the ones the defaults follow: codec,
    /// size, whether a rate cap is given).
    package var settings: @Sendable (_ container: VideoContainer, _ own: OutputSettings) -> VideoSettings
    /// Whether a video's settings are checked when the output has none of its own (the command line checks its
    /// own options as options, in their words).
    package var checksPlain = true

    /// `gifx serve`'s: the library's defaults, a video at the tick (AVIF: one frame per GIF frame, unless capped).
    package init() {
        settings = { container, own in
            VideoSettings(container: container, codec: own.codec, size: own.size ?? .original,
                          timing: container.defaultTiming(capped: own.maxFps != nil))
        }
    }

    package init(settings: @escaping @Sendable (_ container: VideoContainer, _ own: OutputSettings) -> VideoSettings) {
        self.settings = settings
    }
}

extension OutputReader {
    /// A video (or anything else libavformat opens), decoded with libavcodec and matched to the schedule.
    package static let video = OutputReader(name: "video") { try $0.verifyVideo($1, expected: $2) }
}

extension OutputRequest {
    /// An MP4, WebM or AVIF at `target` (the container is in the options).
    public static func video(target: OutputTarget, options: VideoSettings) -> OutputRequest {
        OutputRequest(kind: options.container.outputKind.name, target: target) { try VideoSink(target: target, options: options, context: $0) }
    }
}

extension VideoContainer {
    /// The kind of an output in this container.
    package var outputKind: OutputKind {
        switch self {
        case .mp4: .mp4
        case .webm: .webm
        case .avif: .avif
        }
    }

    /// The timing of an output that asks for none: the tick, except for AVIF: one sample per GIF frame (VFR), unless a
    /// rate cap is given. An AVIF is an image, and browsers time image frames their way: Firefox shows a frame
    /// of 10 ms or less for 100 ms (the GIF rule it applies to every animated image format) and rounds each
    /// duration to whole ms, so a 1 cs tick plays 10 times slow there. VFR durations are the GIF's delays (20 ms or
    /// more after the sub-minimum rule, whole multiples of 10 ms): exact in Chromium and Firefox. Firefox 153 is
    /// the version measured (docs/browsers.md, "Animated AVIF").
    package func defaultTiming(capped: Bool) -> OutputPlan.Request {
        self == .avif && !capped ? .vfr : .tick
    }
}

extension VideoResult: ReportedOutput {
    public var paths: [String] { [target] }

    package var stats: OutputStats {
        var stats = OutputStats(kind: settings.container.outputKind.statsName, paths: paths)
        stats.frames = summary.outputFrames
        stats.width = outputSize.width
        stats.height = outputSize.height
        stats.durationSeconds = plan.durationSeconds * Double(settings.loops)
        stats.figures = VideoStats(
            fps: plan.rate?.description ?? "vfr", encoder: tuning, codec: settings.codec.rawValue, alpha: keepsAlpha,
            mp4Layout: layout, targetSize: targetSize, pictures: VideoPictureStats(summary), keyframes: KeyframeStats(self),
            loops: settings.loops, timing: VideoTimingStats(self))
        return stats
    }
}

/// A video's own figures in `--stats` (MP4, WebM, AVIF): its rate (`vfr` without one), encoder settings, codec and
/// whether the stream kept the GIF's transparency (VP9 in WebM); an MP4's layout (`faststart`, or `fragmented` above
/// 250,000 output frames); with a size cap the encodes spent and the one kept; its pictures encoded and repeat
/// pictures spliced in, with their bytes; its key frames; how many times the animation is written; and how its plan
/// laid it out in time.
package struct VideoStats: OutputKindStats {
    package var fps: String?
    package var encoder: EncoderTuning?
    package var codec: String?
    package var alpha: Bool?
    package var mp4Layout: MP4Layout?
    package var targetSize: TargetSizeReport?
    package var pictures: VideoPictureStats?
    package var keyframes: KeyframeStats?
    package var loops: Int?
    package var timing: VideoTimingStats?

    /// `timing`'s reason in `wording`'s words.
    package func worded(_ wording: some StatsWording) -> VideoStats {
        var figures = self
        if let choice = timing?.rateChoice { figures.timing?.reason = wording.rateReason(choice) }
        return figures
    }

    /// At the top level (`to-mp4`): all but the codec and alpha.
    package var topLevel: VideoStats {
        var figures = self
        figures.codec = nil
        figures.alpha = nil
        return figures
    }
}

/// `--stats`' `timing` object: how the plan laid the video out and what the stream demands of players.
package struct VideoTimingStats: Codable, Sendable {
    /// `tick`, `fps`, `auto`, `vfr`, with `+max-fps` when the cap applied.
    package var mode: String
    /// The constant rate, or `vfr`.
    package var rate: String
    /// 100 / shortest delay for VFR; the rate for CFR.
    package var peakRate: String
    package var outputFramesPerPlay: Int
    package var worstStartErrorMs: Double
    package var gifFramesNeverShown: Int
    /// The level libx264 wrote in the SPS (absent for HEVC).
    package var h264Level: String?
    /// `--level`: the level asked (H.264 or HEVC, written in the stream) and the highest rate it allows at
    /// the output size (exact, and in decimals), the cap the plan was made under; absent without `--level`.
    package var levelAsked: String?
    package var levelMaxFps: String?
    package var levelMaxFpsDecimal: Double?
    /// Why the plan chose its rate, in the words of whoever prints the figures (`StatsWording.rateReason`: the command
    /// line names its flags); the library's own words (`RateReason.description`) until then.
    package var reason: String
    /// The facts `reason` words; not encoded (a report read back keeps its words).
    package var rateChoice: VideoRateChoice?

    private enum CodingKeys: String, CodingKey {
        case mode, rate, peakRate, outputFramesPerPlay, worstStartErrorMs, gifFramesNeverShown, h264Level, levelAsked
        case levelMaxFps, levelMaxFpsDecimal, reason
    }

    package init(_ result: VideoResult) {
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
            rateChoice = .levelCap(level: level, limit: limit, size: result.outputSize, asked: asked, chosen: chosen)
        } else {
            rateChoice = .plan(plan.reason)
        }
        reason = plan.reason.description
    }
}

/// Why a video's plan has its rate, as facts, for whoever words them (`StatsWording`).
package enum VideoRateChoice: Sendable {
    /// The plan's own reason.
    case plan(RateReason)
    /// The rate cap of the level asked (`VideoSettings.level`) at the output size, which capped the plan.
    case levelCap(level: LevelRequest, limit: Rational, size: CanvasSize, asked: Rational, chosen: Rational)
}

/// `--stats`' `pictures` object: how the video's samples were made (docs/repeats.md). `encoded` pictures went
/// through the encoder; `repeats` are codec-level repeat pictures (H.264 P_Skip pictures) written for the
/// output frames that show the picture before them again. `encoded + repeats` is the sample count.
package struct VideoPictureStats: Codable, Sendable {
    package var encoded: Int
    package var repeats: Int
    package var encodedBytes: Int
    package var repeatBytes: Int

    package init(_ summary: VideoSummary) {
        encoded = summary.encodedPictures
        repeats = summary.repeatPictures
        encodedBytes = summary.encodedBytes
        repeatBytes = summary.repeatBytes
    }
}

/// `--stats`' `keyframes` object (docs/repeats.md, "Key frames"): `interval`, the longest gap asked for in
/// seconds (`--keyframe-interval`), or else `maxPictures`, the coded pictures after which one is due; and
/// `times`, when each key frame is shown, in seconds from the video's start: the packets the encoder flagged,
/// which the container marks as sync samples.
package struct KeyframeStats: Codable, Sendable {
    package var interval: Double?
    package var maxPictures: Int?
    package var times: [Double]

    package init(_ video: VideoResult) {
        interval = video.settings.keyframeInterval
        maxPictures = interval == nil ? VideoSettings.keyframePictureLimit : nil
        times = video.summary.keyframeTimes
    }
}
