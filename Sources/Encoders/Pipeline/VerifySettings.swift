import GifxTimeline

/// What a verification accepts. `nil` tolerances take the defaults of each output (`VerifyDefaults`).
public struct VerifySettings: Sendable, Equatable {
    /// The largest timing error accepted, in ms; `nil`: the tolerance of the output's own timing mode.
    public var maxTimingErrorMs: Double?
    /// The lowest PSNR accepted for a lossy output, in dB; `nil`: the codec's default. Lossless outputs are
    /// always compared exactly.
    public var minPSNR: Double?
    /// The colour transparent pixels were composited over in outputs without alpha (gifx's default: white).
    public var background: RGBColor = .white
    /// Whether each report keeps every output frame's start, match and PSNR (`OutputVerification.frames`: what
    /// `gifx verify --report` draws); off by default, since the verifier otherwise keeps nothing per frame.
    public var recordsFrames = false

    public init(
        maxTimingErrorMs: Double? = nil, minPSNR: Double? = nil, background: RGBColor = .white, recordsFrames: Bool = false
    ) {
        self.maxTimingErrorMs = maxTimingErrorMs
        self.minPSNR = minPSNR
        self.background = background
        self.recordsFrames = recordsFrames
    }
}

/// The defaults, documented in docs/guide.md's "verify" section.
package enum VerifyDefaults {
    /// Timing slack of an exact mode (VFR, the tick, a rate whose period divides every delay): container
    /// timestamps are rounded to their time base (WebM keeps whole ms, MP4 the muxer's timescale).
    package static let exactTimingMs = 1.0
    /// The identification window: an output frame that does not show the expected GIF frame is looked for
    /// among the GIF frames scheduled within this many ms of it, so a frame shown early or late is named
    /// with its error instead of counting as wrong pixels.
    package static let searchWindowMs = 1000.0

    /// The lowest PSNR (dB) a lossy output must reach: RGB as a player shows it (the stream's own matrix and range),
    /// against the GIF frame taken through the same YUV format and back, so what is measured is the encoder's loss,
    /// not the chroma subsampling every 4:2:0 output shares. gifx's own outputs at their default quality score
    /// 33-55 dB on the Examples and the test fixtures (worst frames); a frame replaced by a distant one, or the wrong
    /// colours, score 5-20 dB. 30 dB is the usual threshold of a visibly faithful encode.
    package static let minPSNR = 30.0
}
