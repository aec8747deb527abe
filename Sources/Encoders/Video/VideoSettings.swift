import GifxPipeline
import GifxTimeline

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
