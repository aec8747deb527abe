import GifxPipeline
import GifxTimeline

/// The video codecs gifx writes, each through its libav wrapper.
public enum VideoCodec: String, CaseIterable, Codable, Sendable {
    /// H.264 through libx264: plays everywhere.
    case h264
    /// HEVC through libx265, tagged `hvc1` so Apple players open it.
    case hevc
    /// VP9 through libvpx-vp9: WebM's codec, and the one that carries alpha (yuva420p) to browsers.
    case vp9
    /// AV1 through SVT-AV1 (libsvtav1), or libaom for frames SVT-AV1 refuses: the smallest files at a given
    /// quality; MP4 or WebM.
    case av1

    /// The libavcodec encoder's name (for AV1, at frame sizes SVT-AV1 opens: see `encoderName(for:)`).
    public var encoderName: String {
        switch self {
        case .h264: "libx264"
        case .hevc: "libx265"
        case .vp9: "libvpx-vp9"
        case .av1: "libsvtav1"
        }
    }

    /// The speed/size preset names gifx takes for every codec (x264's); `EncoderTuning` maps them onto
    /// libvpx's `cpu-used` and SVT-AV1's numbered presets.
    public static let presets = [
        "ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo",
    ]

    /// Largest frame side the encoder opens (libx264 refuses more than 16384 either way; so does our decoder
    /// by default, and x265's level limits are far below it anyway). SVT-AV1 stops at 16384 too; libvpx at 65536.
    public var maximumSide: Int { 16384 }

    /// Smallest frame side: yuv420p needs 2. libx265 refuses anything under 16×16 ("Image size is too small"),
    /// and libx265 corrupts its heap on some frames under 32 pixels high (36×16 to 48×30: aborts and segfaults
    /// under MALLOC_CHECK_=3, the ffmpeg CLI's too; 2026-11-25, libx265 3.5 of Debian 12, the version measured:
    /// docs/reliability.md, "Encoder matrix"), so HEVC takes 32×32 and up: a clear refusal rather than a crash.
    public var minimumSide: Int { self == .hevc ? 32 : 2 }

    /// The encoder for frames of `size`: SVT-AV1 refuses pictures under 64 pixels a side ("Source Width must
    /// be at least 64"), and stickers and emoji are often smaller, so AV1 goes through libaom there rather
    /// than being padded to a bigger picture.
    public func encoderName(for size: CanvasSize) -> String {
        self == .av1 && min(size.width, size.height) < 64 ? "libaom-av1" : encoderName
    }

    /// The encoder's constant-quality scale: x264/x265 `crf` 0...51, libvpx and SVT-AV1 `crf` 0...63.
    public var crfRange: ClosedRange<Double> { self == .h264 || self == .hevc ? 0...51 : 0...63 }

    /// The quality used when no CRF is given: ffmpeg's 23 for x264 (kept for x265 as before), and for
    /// VP9 and AV1 the values measured to give about the SSIM of x264 at 23 on the benchmark GIFs
    /// (docs/benchmarks.md, kind `convert`).
    public var defaultCRF: Double {
        switch self {
        case .h264, .hevc: 23
        case .vp9: 32
        case .av1: 35
        }
    }

    /// Only libvpx-vp9 encodes an alpha channel (yuva420p, as a second stream in Matroska BlockAdditions,
    /// which browsers composite); H.264, HEVC and AV1 in these containers cannot carry one.
    public var carriesAlpha: Bool { self == .vp9 }

    /// The containers that hold this codec for players: WebM is VP9 or AV1 only, AVIF AV1 only.
    public func fits(_ container: VideoContainer) -> Bool {
        switch container {
        case .mp4: true
        case .webm: self == .vp9 || self == .av1
        case .avif: self == .av1
        }
    }
}

/// The file format around the video stream.
public enum VideoContainer: String, CaseIterable, Codable, Sendable {
    /// MP4 (ISO BMFF) with `+faststart`.
    case mp4
    /// WebM (Matroska's web subset): VP9 or AV1.
    case webm
    /// Animated AVIF (an AV1 image sequence in ISO BMFF, brand `avis`): AV1 only. FFmpeg's muxer takes one
    /// stream (in 5.1, the version gifx is built and measured against; an alpha auxiliary track came in 6.0), so
    /// transparency is composited over the background.
    case avif

    /// The codec used when none is asked for: H.264 in MP4, VP9 in WebM, AV1 in AVIF.
    public var defaultCodec: VideoCodec {
        switch self {
        case .mp4: .h264
        case .webm: .vp9
        case .avif: .av1
        }
    }

    /// Whether the file is ISO BMFF with a `moov` (MP4, AVIF): its durations can be checked and patched.
    var isISOBMFF: Bool { self != .webm }

    /// libavformat's muxer name.
    var muxerName: String { rawValue }
}

/// What the user asked of the video: container, codec, quality, colours, size and rate.
public struct VideoSettings: Sendable, Hashable {
    /// MP4, WebM or AVIF.
    public var container: VideoContainer = .mp4
    public var codec: VideoCodec = .h264
    /// Constant rate factor in the codec's scale (`VideoCodec.crfRange`; 23 is ffmpeg's x264 default too).
    public var crf: Double = 23
    /// One of `VideoCodec.presets`.
    public var preset: String = "medium"
    /// What transparent pixels and the padding of odd sizes show (VP9 keeps transparency instead, as alpha).
    public var background: RGBColor = .white
    /// How many times the whole animation is written.
    public var loops: Int = 1
    /// Output size (aspect kept, rounded to even).
    public var size: SizeRequest = .original
    /// How video frames are laid out in time (`OutputPlan`): the tick (default, every delay exact), a fixed
    /// rate, `auto` (the source video's rate) or `vfr` (one sample per GIF frame).
    public var timing: OutputPlan.Request = .tick
    /// A cap on a constant rate (a maximum rate): above it, the plan resamples at the best rate below.
    public var maxFrameRate: Rational?
    /// Force (true) or forbid (false) the encoder's low-memory settings; `nil` decides from the budget.
    public var lowMemory: Bool?
    /// `--target-size`: the output must fit in this many bytes, at the best quality that does (the search starts
    /// at `crf` and stays within `codec.targetSizeRange`); `nil` for plain CRF.
    public var targetSize: Int?
    /// The level the stream must play at (H.264, HEVC): its rate caps the plan's, sizes beyond it are refused,
    /// the encoder writes it and keeps its bit rate within it (`LevelLimits`). `nil`: the encoder's own choice.
    public var level: LevelRequest?
    /// The longest gap between key frames in seconds of output, whatever the frame rate, where one is needed
    /// (HLS-style segments of a fixed length); `nil` (the default): a key frame once
    /// ``keyframePictureLimit`` pictures have been coded since the last, whatever the seconds, since a seek
    /// costs the pictures a decoder must decode from the key frame before it. Either way a key frame goes at the
    /// first new picture at or after it is due, never inside a run of copies of one picture (docs/repeats.md,
    /// "Key frames"). `VideoSettingsProblem.keyframeIntervalRange` bounds it.
    public var keyframeInterval: Double?

    /// Coded pictures after which a key frame is due when no `keyframeInterval` is set: x264's own `keyint`
    /// default. A seek decodes at most this many pictures (repeat pictures, which copy the picture before, are
    /// not counted).
    public static let keyframePictureLimit = 250

    /// A fixed output rate (a requested rate); `nil` when `timing` is not `.rate`. Setting `nil` restores the tick.
    public var frameRate: Rational? {
        get { if case .rate(let rate) = timing { rate } else { nil } }
        set { timing = newValue.map { .rate($0) } ?? .tick }
    }

    /// `codec` and `crf` default to the container's codec and that codec's `defaultCRF`; `keyframeInterval` to
    /// none (key frames by ``keyframePictureLimit``); `timing` to the container's, as the CLI's: the tick, but one
    /// sample per frame for an AVIF unless a rate or a rate cap is given (browsers time image frames their way).
    public init(
        container: VideoContainer = .mp4, codec: VideoCodec? = nil, crf: Double? = nil, preset: String = "medium",
        background: RGBColor = .white, loops: Int = 1, size: SizeRequest = .original, frameRate: Rational? = nil,
        lowMemory: Bool? = nil, timing: OutputPlan.Request? = nil, maxFrameRate: Rational? = nil,
        level: LevelRequest? = nil, targetSize: Int? = nil, keyframeInterval: Double? = nil
    ) {
        self.targetSize = targetSize
        self.keyframeInterval = keyframeInterval
        let codec = codec ?? container.defaultCodec
        self.container = container; self.codec = codec; self.crf = crf ?? codec.defaultCRF; self.preset = preset
        self.background = background; self.loops = loops; self.size = size; self.lowMemory = lowMemory
        self.timing = timing ?? frameRate.map { .rate($0) } ?? container.defaultTiming(capped: maxFrameRate != nil)
        self.maxFrameRate = maxFrameRate
        self.level = level
    }

    /// The limits of the level asked for (`nil` when none was, or the codec has no such level: `problem`).
    package var levelLimits: LevelLimits? { level.flatMap { LevelLimits($0, codec: codec) } }
}
