internal import CAV
import GifxFrames
import GifxTimeline

extension VideoCodec {
    /// HEVC through libx265, tagged `hvc1` so Apple players open it.
    public static let hevc = VideoCodec(HEVCCodec())
}

/// HEVC (`VideoCodecDescriptor`): libx265 in MP4, tagged `hvc1`, with the Main tier's levels (Tables A.8/A.9)
/// and skip pictures for repeats (`HEVCRepeatSplicer`).
struct HEVCCodec: VideoCodecDescriptor {
    var name: String { "hevc" }
    var displayName: String { "HEVC" }
    var libavName: String { "hevc" }
    var containers: Set<VideoContainer> { [.mp4] }
    var encoderName: String { "libx265" }
    /// libx265 refuses anything under 16×16 ("Image size is too small"), and corrupts its heap on some frames
    /// under 32 pixels high (36×16 to 48×30: aborts and segfaults under MALLOC_CHECK_=3, the ffmpeg CLI's too;
    /// 2026-11-25, libx265 3.5 of Debian 12, the version measured: docs/reliability.md, "Encoder matrix"), so
    /// HEVC takes 32×32 and up: a clear refusal rather than a crash.
    var minimumSide: Int { 32 }
    /// x265's `crf` scale; x264's default 23, kept.
    var crfRange: ClosedRange<Double> { 0...51 }
    var defaultCRF: Double { 23 }
    var targetSizeRange: ClosedRange<Double> { 18...51 }
    var hasTwoPass: Bool { true }
    var packetUnits: PacketUnits { .nalUnits(lengthSizeOffset: 21) }

    /// `hvc1` in MP4, so Apple players open it (the muxer's own is `hev1`).
    func codecTag(in container: VideoContainer) -> UInt32? {
        container == .mp4 ? gifx_mktag(0x68, 0x76, 0x63, 0x31) : nil  // "hvc1"
    }

    func parametersOption(encoder: String) -> String? { "x265-params" }

    /// `preset`, `crf`, and `forced-idr`: a key frame asked for (`pict_type` I, `KeyframeSchedule`) is an IDR,
    /// where libx265 otherwise makes it a plain I picture.
    func baseOptions(_ settings: VideoSettings, encoder: String) -> [EncoderOption] {
        [EncoderOption("preset", settings.preset), EncoderOption("crf", EncoderTuning.crfText(settings.crf)),
         EncoderOption("forced-idr", "1")]
    }

    /// The preset; `rc-lookahead=10`; lookahead 5, 2 B-frames, 1 reference, 1 frame thread. libx265's lookahead
    /// writes out of bounds in `Lookahead::cuTree` at widths up to 48 (valgrind: invalid writes at 34-48 wide,
    /// none at 50-72; the ffmpeg CLI with periodic key frames aborts with "free(): invalid next size"; libx265
    /// 3.5, the version measured): its CU-tree is off there (docs/repeats.md, "How (HEVC)").
    ///
    /// libx265 logs nothing (`log-level=none`): it writes its own lines to stderr, past libav's log, and gifx words
    /// every failure in one line of its own. At `error` a `--target-size` whose second pass libx265 refuses printed
    /// "x265 [error]: requested bitrate is too low. estimated minimum is -2147483648 kbps" before gifx's line.
    func tuningLadder(_ ladder: TuningLadderBuilder) -> [EncoderTuning] {
        let held = ladder.held, pools = ladder.pools
        let quiet: EncoderParameters = ladder.frameSize.width <= 48
            ? [.logLevel(.none), .cuTree(false)] : [.logLevel(.none)]
        return [
            ladder.tuning("x265 preset \(ladder.settings.preset)", frames: 20 + 4 + 3 + held, parameters: quiet + pools),
            ladder.tuning("x265 lookahead 10", frames: 10 + 4 + 3 + held, parameters: quiet + pools + [.rcLookahead(10)]),
            ladder.tuning("x265 1 frame thread, 2 B-frames, 1 reference, lookahead 5", frames: 5 + 2 + 1 + 3 + 3,
                          parameters: quiet + pools + [.frameThreads(1), .bframes(2), .ref(1), .rcLookahead(5)]),
        ]
    }

    /// libx265 holds about 4 bytes per pixel of 64-padded CTUs, and 34 MiB whatever the size (the peak RSS at
    /// each ladder level less the frames' estimate, 333×187 to 1440×900; libx265 3.5: 17-25 MiB over the 8 MiB
    /// measured on a 16×16 GIF; docs/memory.md, "Estimates").
    func frameBytes(_ size: CanvasSize) -> Int { (size.width + 128) * (size.height + 128) * 4 }
    func fixedBytes(encoder: String) -> Int { 34 << 20 }

    /// The 320 MiB ceiling moved with the estimates (34 MiB where 8 MiB was fixed), so the defaults choose the
    /// levels they chose.
    var defaultCeiling: Int { 346 << 20 }

    func withoutBFrames(_ tuning: EncoderTuning) -> EncoderTuning {
        var tuning = tuning.withParameters([.bframes(0)])
        tuning.setting += ", no B-frames (streamed)"
        return tuning
    }

    // MARK: Levels

    var levels: [LevelLimits.Row] { Self.mainTier }
    var levelUnit: LevelLimits.Unit { .lumaSamples }

    /// x265 `level-idc`, Main tier, and the VBV of the level (x265 lowers its references to the level itself).
    func levelParameters(_ limits: LevelLimits, frameSize: CanvasSize, preset: String) -> EncoderParameters {
        [.levelIDC(limits.level), .highTier(false), .vbvMaxRate(limits.vbvMaxRateKbps),
         .vbvBufferSize(limits.vbvBufferKbit)]
    }

    /// HEVC Tables A.8 (MaxLumaPs, MaxCPB Main tier, in 1000 bits) and A.9 (MaxLumaSr, MaxBR Main tier, in
    /// 1000 bit/s), Main profile (CpbVclFactor 1000): luma samples per second and per picture.
    static let mainTier: [LevelLimits.Row] = [
        row(10, maxLumaPs: 36_864, maxCPB: 350, maxLumaSr: 552_960, maxBR: 128),
        row(20, maxLumaPs: 122_880, maxCPB: 1_500, maxLumaSr: 3_686_400, maxBR: 1_500),
        row(21, maxLumaPs: 245_760, maxCPB: 3_000, maxLumaSr: 7_372_800, maxBR: 3_000),
        row(30, maxLumaPs: 552_960, maxCPB: 6_000, maxLumaSr: 16_588_800, maxBR: 6_000),
        row(31, maxLumaPs: 983_040, maxCPB: 10_000, maxLumaSr: 33_177_600, maxBR: 10_000),
        row(40, maxLumaPs: 2_228_224, maxCPB: 12_000, maxLumaSr: 66_846_720, maxBR: 12_000),
        row(41, maxLumaPs: 2_228_224, maxCPB: 20_000, maxLumaSr: 133_693_440, maxBR: 20_000),
        row(50, maxLumaPs: 8_912_896, maxCPB: 25_000, maxLumaSr: 267_386_880, maxBR: 25_000),
        row(51, maxLumaPs: 8_912_896, maxCPB: 40_000, maxLumaSr: 534_773_760, maxBR: 40_000),
        row(52, maxLumaPs: 8_912_896, maxCPB: 60_000, maxLumaSr: 1_069_547_520, maxBR: 60_000),
        row(60, maxLumaPs: 35_651_584, maxCPB: 60_000, maxLumaSr: 1_069_547_520, maxBR: 60_000),
        row(61, maxLumaPs: 35_651_584, maxCPB: 120_000, maxLumaSr: 2_139_095_040, maxBR: 120_000),
        row(62, maxLumaPs: 35_651_584, maxCPB: 240_000, maxLumaSr: 4_278_190_080, maxBR: 240_000),
    ]

    private static func row(_ tenths: Int, maxLumaPs: Int, maxCPB: Int, maxLumaSr: Int, maxBR: Int) -> LevelLimits.Row {
        LevelLimits.Row(tenths: tenths, maxUnitsPerSecond: maxLumaSr, maxUnitsPerFrame: maxLumaPs, maxBR: maxBR, maxCPB: maxCPB)
    }

    // MARK: Repeat pictures

    /// Skip pictures in MP4 (the parameter sets in the container).
    func splicesRepeats(in container: VideoContainer, timeBase: Rational) -> Bool { container == .mp4 }

    /// No B-frames and one reference, as H.264's, and no temporal motion vector prediction and no wavefronts:
    /// the repeats name x265's own PPS (docs/repeats.md, "How (HEVC)").
    func forRepeatPictures(_ tuning: EncoderTuning) -> EncoderTuning {
        var tuning = tuning.withParameters([.bframes(0), .ref(1), .temporalMVP(false), .wavefronts(false)])
        tuning.setting += ", no B-frames, 1 reference, no temporal MVP, no wavefronts (repeat pictures)"
        return tuning
    }

    /// `HEVCRepeatSplicer` on x265's parameter sets: the extradata stays as x265 wrote it.
    func makeRepeatSplicer(_ setup: RepeatSplicerSetup) throws -> RepeatSplicing {
        guard setup.parameterSetsInContainer else {
            throw LibavError("repeat pictures need the parameter sets in the container", failure: .internalError)
        }
        return .inOrder(try HEVCRepeatSplicer(extradata: setup.encoder.extradata))
    }
}

extension HEVCRepeatSplicer: RepeatSplicer {}
