import GifxFrames
import GifxTimeline

/// What gifx knows of one video codec, in one value in the codec's own folder (FFmpeg's `FFCodec` and
/// `FFBitStreamFilter` descriptors are the model): the containers it goes into; its encoders, with their
/// settings ladder and defaults; its key-frame policy; its levels; whether repeats are spliced, and the
/// splicer's factory; the decoders that prove it. `VideoPlan`, `EncoderTuning`, `LevelLimits`, `VideoSession`
/// and the verifiers read it and branch on no codec. Every requirement past the codec's identity, encoder
/// and quality scale has a default: a codec without levels, repeat pictures or encoder parameters leaves them.
package protocol VideoCodecDescriptor: Sendable {
    // MARK: Identity
    /// The name options and reports use (`h264`).
    var name: String { get }
    /// The name in messages (`H.264`).
    var displayName: String { get }
    /// libavcodec's name of the codec (`avcodec_get_name`): how a stream read back finds its descriptor.
    var libavName: String { get }

    // MARK: Containers
    /// The containers that hold the codec for players.
    var containers: Set<VideoContainer> { get }
    /// The containers whose default codec this is (when the registry lists no codec before it for them).
    var defaultIn: Set<VideoContainer> { get }
    /// Whether the stream can carry an alpha channel (in WebM).
    var carriesAlpha: Bool { get }
    /// The sample entry's four-character code in `container`, `nil` for the muxer's own.
    func codecTag(in container: VideoContainer) -> UInt32?

    // MARK: Encoders
    /// The libavcodec encoder at frame sizes every encoder of the codec opens.
    var encoderName: String { get }
    /// Every encoder the codec may open (the report's `encoder` names one).
    var encoderNames: [String] { get }
    /// The encoder for frames of `size`.
    func encoderName(for size: CanvasSize) -> String
    /// Smallest and largest frame side the encoder opens.
    var minimumSide: Int { get }
    var maximumSide: Int { get }
    /// The encoder's constant-quality scale, and the quality used when none is given.
    var crfRange: ClosedRange<Double> { get }
    var defaultCRF: Double { get }
    /// The CRFs `--target-size` searches; the CRF change that about halves the size; whether the encoder takes
    /// whole CRFs only; whether a second pass at a bitrate exists.
    var targetSizeRange: ClosedRange<Double> { get }
    var halvingCRFStep: Double { get }
    var takesWholeCRF: Bool { get }
    var hasTwoPass: Bool { get }
    /// The private option that takes `encoder`'s parameters (`x264-params`), `nil` where it has none.
    func parametersOption(encoder: String) -> String?
    /// The private options every ladder level of `encoder` sets before its own (preset, crf, ...).
    func baseOptions(_ settings: VideoSettings, encoder: String) -> [EncoderOption]
    /// The encoder's settings from the fastest to the leanest (`EncoderTuning.ladder` takes care of
    /// `lowMemory` and the default ceiling).
    func tuningLadder(_ ladder: TuningLadderBuilder) -> [EncoderTuning]
    /// Bytes one encoder frame costs at `size`, and what `encoder` holds whatever the size.
    func frameBytes(_ size: CanvasSize) -> Int
    func fixedBytes(encoder: String) -> Int
    /// Encoder bytes above which a leaner ladder level is used by default (when one exists).
    var defaultCeiling: Int { get }
    /// Whether `encoder` would run its threads at real-time priority where the process may (SVT-AV1).
    func takesRealtimePriority(encoder: String) -> Bool
    /// Why `encoder` cannot open at `timeBase` (seconds per frame at a constant rate), `nil` where it can.
    func frameLengthProblem(encoder: String, timeBase: Rational) -> String?
    /// `tuning` for a stream without reordering (a fragmented MP4 read from a pipe).
    func withoutBFrames(_ tuning: EncoderTuning) -> EncoderTuning

    // MARK: Key frames
    /// Whether key frames are forced where `KeyframeSchedule` places them with `tuning`.
    func forcesKeyframes(_ tuning: EncoderTuning) -> Bool
    /// With repeat pictures, whether the copy after a key frame is coded rather than repeated.
    var codesCopyAfterKeyframe: Bool { get }

    // MARK: Levels
    /// The levels `--level` takes, lowest first (none: the codec has no levels gifx sets).
    var levels: [LevelLimits.Row] { get }
    /// What a frame counts against a level.
    var levelUnit: LevelLimits.Unit { get }
    /// The encoder parameters that write `limits`' level and keep the stream within it at `frameSize`.
    func levelParameters(_ limits: LevelLimits, frameSize: CanvasSize, preset: String) -> EncoderParameters
    /// The H.264 level the stream needs at `size` and `rate`, `nil` for other codecs.
    func requiredH264Level(_ size: CanvasSize, rate: Rational) -> H264Level?
    /// The H.264 level written in the encoder's parameter sets (`extradata`), `nil` for other codecs.
    func signalledH264Level(extradata: [UInt8]) -> H264Level?

    // MARK: Repeat pictures
    /// Whether a stream in `container` at `timeBase` gets repeat pictures rather than encoding every copy.
    func splicesRepeats(in container: VideoContainer, timeBase: Rational) -> Bool
    /// Whether the codec has a repeat path that keeps the encoder's B-frames (its ladder counts their references).
    var hasReferenceRepeats: Bool { get }
    /// `tuning` with the settings that repeat path needs, `nil` where it cannot be taken with these settings.
    func referenceRepeatTuning(_ tuning: EncoderTuning) throws -> EncoderTuning?
    /// Whether the encoder as it opened keeps the repeat path with B-frames (its own validation may not).
    func keepsReferenceRepeats(_ encoder: VideoEncoder) -> Bool
    /// `tuning` with the settings repeat pictures need.
    func forRepeatPictures(_ tuning: EncoderTuning) -> EncoderTuning
    /// The splicer of an encoder opened for repeat pictures (it may replace the encoder's extradata).
    func makeRepeatSplicer(_ setup: RepeatSplicerSetup) throws -> RepeatSplicing

    // MARK: Samples
    /// How gifx frames the samples of an MP4 at `frameSize` itself (`nil`: libavformat's own framing).
    func mp4SampleFraming(frameSize: CanvasSize) -> (any MP4SampleFraming)?

    // MARK: Decoders
    /// What a packet of the codec is made of for the verifiers' digests.
    var packetUnits: PacketUnits { get }
    /// The libavcodec decoder that reads the stream's alpha (a decoder libavcodec's own ignores), `nil` where
    /// libavcodec's own decoder proves the stream.
    var alphaDecoderName: String? { get }
}

/// The units of a codec's packet that the verifiers compare.
package enum PacketUnits: Sendable {
    /// H.264 and HEVC NAL units (Annex B start codes or length prefixes, as the extradata says): the byte of the
    /// configuration record whose low 2 bits are `lengthSizeMinusOne` (`avcC` 4, `hvcC` 21).
    case nalUnits(lengthSizeOffset: Int)
    /// AV1 OBUs, without temporal delimiters and padding.
    case obus
    /// The packet whole.
    case whole
}

extension VideoCodecDescriptor {
    package var defaultIn: Set<VideoContainer> { [] }
    package var carriesAlpha: Bool { false }
    package func codecTag(in container: VideoContainer) -> UInt32? { nil }
    package var encoderNames: [String] { [encoderName] }
    package func encoderName(for size: CanvasSize) -> String { encoderName }
    /// libx264 refuses more than 16384 a side, as SVT-AV1 does and gifx's decoder by default; yuv420p needs 2.
    package var minimumSide: Int { 2 }
    package var maximumSide: Int { 16384 }
    package var targetSizeRange: ClosedRange<Double> { crfRange }
    package var halvingCRFStep: Double { 6 }
    package var takesWholeCRF: Bool { false }
    package var hasTwoPass: Bool { false }
    package func parametersOption(encoder: String) -> String? { nil }
    package func baseOptions(_ settings: VideoSettings, encoder: String) -> [EncoderOption] { [] }
    package func tuningLadder(_ ladder: TuningLadderBuilder) -> [EncoderTuning] {
        [ladder.tuning("\(ladder.encoder) preset \(ladder.settings.preset)", frames: 35)]
    }
    package func frameBytes(_ size: CanvasSize) -> Int { (size.width + 160) * (size.height + 160) * 3 / 2 }
    package func fixedBytes(encoder: String) -> Int { 20 << 20 }
    /// 320 MiB as estimated until the estimates met the peak RSS they bound (docs/memory.md).
    package var defaultCeiling: Int { 320 << 20 }
    package func takesRealtimePriority(encoder: String) -> Bool { false }
    package func frameLengthProblem(encoder: String, timeBase: Rational) -> String? { nil }
    package func withoutBFrames(_ tuning: EncoderTuning) -> EncoderTuning { tuning }
    package func forcesKeyframes(_ tuning: EncoderTuning) -> Bool { true }
    package var codesCopyAfterKeyframe: Bool { false }
    package var levels: [LevelLimits.Row] { [] }
    package var levelUnit: LevelLimits.Unit { .lumaSamples }
    package func levelParameters(_ limits: LevelLimits, frameSize: CanvasSize, preset: String) -> EncoderParameters { [] }
    package func requiredH264Level(_ size: CanvasSize, rate: Rational) -> H264Level? { nil }
    package func signalledH264Level(extradata: [UInt8]) -> H264Level? { nil }
    package func splicesRepeats(in container: VideoContainer, timeBase: Rational) -> Bool { false }
    package var hasReferenceRepeats: Bool { false }
    package func referenceRepeatTuning(_ tuning: EncoderTuning) throws -> EncoderTuning? { nil }
    package func keepsReferenceRepeats(_ encoder: VideoEncoder) -> Bool { true }
    package func forRepeatPictures(_ tuning: EncoderTuning) -> EncoderTuning { tuning }
    package func makeRepeatSplicer(_ setup: RepeatSplicerSetup) throws -> RepeatSplicing {
        throw LibavError("\(displayName) has no repeat pictures", failure: .internalError)
    }
    package func mp4SampleFraming(frameSize: CanvasSize) -> (any MP4SampleFraming)? { nil }
    package var packetUnits: PacketUnits { .whole }
    package var alphaDecoderName: String? { nil }
}
