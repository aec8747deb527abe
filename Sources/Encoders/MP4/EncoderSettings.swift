import Timeline

/// The video codecs `to-mp4` can write, each through its libav wrapper.
public enum VideoCodec: String, CaseIterable, Codable, Sendable {
    /// H.264 through libx264: plays everywhere.
    case h264
    /// HEVC through libx265, tagged `hvc1` so Apple players open it.
    case hevc

    /// The libavcodec encoder's name.
    public var encoderName: String { self == .h264 ? "libx264" : "libx265" }

    /// The speed/size presets both x264 and x265 accept.
    public static let presets = [
        "ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo",
    ]

    /// Largest frame side the encoder opens (libx264 refuses more than 16384 either way; so does our decoder
    /// by default, and x265's level limits are far below it anyway).
    public var maximumSide: Int { 16384 }

    /// Smallest frame side: libx265 refuses anything under 16×16 ("Image size is too small"); yuv420p needs 2.
    public var minimumSide: Int { self == .h264 ? 2 : 16 }
}

/// What the user asked of the MP4: codec, quality, colours, size and rate.
public struct MP4Options: Sendable, Hashable {
    public var codec: VideoCodec = .h264
    /// Constant rate factor, 0...51 (x264's and x265's quality scale; 23 is ffmpeg's default too).
    public var crf: Double = 23
    /// One of `VideoCodec.presets`.
    public var preset: String = "medium"
    /// What transparent pixels and the padding of odd sizes show.
    public var background: RGBColor = .white
    /// How many times the whole animation is written.
    public var loops: Int = 1
    /// Output size (aspect kept, rounded to even).
    public var size: SizeRequest = .original
    /// How video frames are laid out in time (`OutputPlan`): the tick (default, every delay exact), a fixed
    /// rate, `auto` (the source video's rate) or `vfr` (one sample per GIF frame).
    public var timing: OutputPlan.Request = .tick
    /// A cap on a constant rate (`--max-fps`): above it, the plan resamples at the best rate below.
    public var maxFrameRate: Rational?
    /// Force (true) or forbid (false) the encoder's low-memory settings; `nil` decides from the budget.
    public var lowMemory: Bool?

    /// A fixed output rate (`--fps N`); `nil` when `timing` is not `.rate`. Setting `nil` restores the tick.
    public var frameRate: Rational? {
        get { if case .rate(let rate) = timing { rate } else { nil } }
        set { timing = newValue.map { .rate($0) } ?? .tick }
    }

    public init(
        codec: VideoCodec = .h264, crf: Double = 23, preset: String = "medium", background: RGBColor = .white,
        loops: Int = 1, size: SizeRequest = .original, frameRate: Rational? = nil, lowMemory: Bool? = nil,
        timing: OutputPlan.Request? = nil, maxFrameRate: Rational? = nil
    ) {
        self.codec = codec; self.crf = crf; self.preset = preset; self.background = background
        self.loops = loops; self.size = size; self.lowMemory = lowMemory
        self.timing = timing ?? frameRate.map { .rate($0) } ?? .tick
        self.maxFrameRate = maxFrameRate
    }
}
