import Foundation
import GifxFrames
import GifxTimeline

extension VideoCodec {
    /// H.264 through libx264: plays everywhere.
    public static let h264 = VideoCodec(H264Codec())
}

/// H.264 (`VideoCodecDescriptor`): libx264 in MP4, with levels (Table A-1), and two repeat paths: x264 driven
/// directly with B-frames whose held pictures stay references (`X264Encoder`, `H264ReferenceRepeatSplicer`),
/// or, where x264's settings cannot keep them, libavcodec's wrapper without B-frames (`H264RepeatSplicer`).
struct H264Codec: VideoCodecDescriptor {
    var name: String { "h264" }
    var displayName: String { "H.264" }
    var libavName: String { "h264" }
    var containers: Set<VideoContainer> { [.mp4] }
    var defaultIn: Set<VideoContainer> { [.mp4] }
    var encoderName: String { "libx264" }
    /// x264's `crf` scale; ffmpeg's default 23.
    var crfRange: ClosedRange<Double> { 0...51 }
    var defaultCRF: Double { 23 }
    var targetSizeRange: ClosedRange<Double> { 18...51 }
    var hasTwoPass: Bool { true }
    var packetUnits: PacketUnits { .nalUnits(lengthSizeOffset: 4) }

    /// 2-byte NAL unit lengths for pictures of up to 64 macroblocks (`AVCShortLengths`).
    func mp4SampleFraming(frameSize: CanvasSize) -> (any MP4SampleFraming)? {
        AVCShortLengths.applies(to: frameSize) ? AVCShortLengths() : nil
    }

    func parametersOption(encoder: String) -> String? { "x264-params" }

    func baseOptions(_ settings: VideoSettings, encoder: String) -> [EncoderOption] {
        [EncoderOption("preset", settings.preset), EncoderOption("crf", EncoderTuning.crfText(settings.crf))]
    }

    /// The preset; `rc-lookahead=10`; 1 B-frame, 1 reference, lookahead 1; the same with sliced threads (one
    /// frame in flight). Each level counts the frames it holds: the lookahead, the B-frames and the references
    /// of the preset (`X264Preset`), and with B-frame repeats (`referenceRepeats`) up to B-frames + 3 references
    /// for the B references (3 more than `medium`'s).
    ///
    /// A picture under one macroblock (16 pixels) high or wide: libx264's B-frames there are mostly direct or
    /// skipped blocks bi-predicted between their references, so a GIF frame held still shows a ramp from the
    /// previous frame to the next (a 1x1 gray of 190 held for 7 ticks decoded as 152, 186, 218, 200, 180, 200,
    /// 218; up to 66 levels of movement, the ffmpeg CLI too; docs/reliability.md, "Encoder matrix"). Without
    /// B-frames a held frame stays still (0 to 10 levels); such videos are a few hundred bytes either way.
    func tuningLadder(_ ladder: TuningLadderBuilder) -> [EncoderTuning] {
        let held = ladder.held
        let preset = ladder.settings.preset
        let lean: EncoderParameters = [.bframes(1), .ref(1), .rcLookahead(1), .syncLookahead(0)]
        // The preset's own frames (`X264Preset.frames`): 40 + 3 + 6 at `medium` with B-frame repeats, 60 + 8 +
        // 16 + 30 + 12 at `veryslow`.
        let x264 = X264Preset(preset)
        let bReferences = ladder.referenceRepeats && x264.bFrames >= 2
        var levels = [
            ladder.tuning("x264 preset \(preset)", frames: x264.frames(bReferences: bReferences) + held),
            ladder.tuning(
                "x264 lookahead 10", frames: x264.frames(lookahead: 10, bReferences: bReferences) + held,
                parameters: [.rcLookahead(10)]),
            ladder.tuning(
                "x264 1 B-frame, 1 reference, lookahead 1", frames: 1 + 1 + 1 + x264.analysisFrames + held,
                parameters: lean),
        ]
        if ladder.countedThreads > 1 {  // one frame in flight instead of one per thread (the same on one thread)
            levels.append(ladder.tuning(
                "x264 sliced threads, 1 B-frame, 1 reference, lookahead 1", frames: 1 + 1 + 1 + 3 + 3 + x264.analysisFrames,
                parameters: [.slicedThreads] + lean))
        }
        // Psychovisual optimisation off, chroma where x264 puts it with it on (issue 56's fifth stop,
        // docs/benchmarks.md): x264 lowers the chroma QP by 2 when psy-rd is on, so `psy-rd=0` alone moved bits
        // from chroma (−1 to −2 dB on 11 of 14 GIFs); with the offset kept, 4-6 % fewer bytes at the same luma
        // SSIM and PSNR, chroma within 0.25 dB, on every GIF of the tuning half.
        levels = levels.map { $0.withParameters(Self.psychovisual) }
        if min(ladder.frameSize.width, ladder.frameSize.height) < 16 {
            levels = levels.map {
                var level = $0.withParameters([.bframes(0)])
                level.setting += ", no B-frames (under 16 pixels)"
                return level
            }
        }
        return levels
    }

    /// x264's psychovisual settings on every level: psy-rd and psy-trellis off, the chroma QP offset psy-rd's.
    static let psychovisual: EncoderParameters = [.psyRD(0, 0), .chromaQPOffset(-2)]

    /// libx264 holds 3.9 bytes per pixel of the 32-pixel-padded picture (planes, half-resolution lookahead
    /// planes, half-pel planes, and what each frame's tables add: the peak RSS of every ladder level, 333×187 to
    /// 1440×900, was 0.6-0.9 bytes a pixel over 3, docs/memory.md), and 7 MiB whatever the size (tables, thread
    /// pools and their stacks touched: the peak RSS at each ladder level less the frames' estimate).
    func frameBytes(_ size: CanvasSize) -> Int { (size.width + 64) * (size.height + 64) * 39 / 10 }
    func fixedBytes(encoder: String) -> Int { 7 << 20 }

    /// The 320 MiB ceiling moved with the estimates, so the defaults choose the levels they chose: 7 MiB + 3.9
    /// bytes a pixel crosses 7 + 316 × 1.3 MiB where 4 MiB + 3 crossed 320.
    var defaultCeiling: Int { (7 << 20) + (316 << 20) * 13 / 10 }

    func withoutBFrames(_ tuning: EncoderTuning) -> EncoderTuning {
        var tuning = tuning.withParameters([.bframes(0)])
        tuning.setting += ", no B-frames (streamed)"
        return tuning
    }

    // MARK: Levels

    var levels: [LevelLimits.Row] {
        H264Level.table.map {
            LevelLimits.Row(
                tenths: $0.levelIDC, maxUnitsPerSecond: $0.maxMBPS, maxUnitsPerFrame: $0.maxFS, maxBR: $0.maxBR,
                maxCPB: $0.maxCPB, maxDpbMbs: $0.maxDpbMbs)
        }
    }

    var levelUnit: LevelLimits.Unit { .macroblocks }

    /// x264 `level`, `vbv-maxrate`, `vbv-bufsize` (Table A-1's MaxBR and MaxCPB as they stand, Baseline/Main;
    /// x264 counts 1000 bits a unit for them and 1250 for High: x264 picks the profile from the preset
    /// (ultrafast writes Constrained Baseline, the others High), and High's 1.25 × would break a Baseline
    /// stream's limit, so the lower bound is used for all: a High stream stays 20 % under its own), and for the
    /// decoded picture buffer (MaxDpbMbs / frame macroblocks frames) fewer references than `preset` uses and no
    /// B-pyramid when it needs 4 frames (x264 keeps max(references, 1 + reordered frames, 4 with a B-pyramid):
    /// it only warns "DPB size > level limit" otherwise).
    func levelParameters(_ limits: LevelLimits, frameSize: CanvasSize, preset: String) -> EncoderParameters {
        var parameters: EncoderParameters = [.level(limits.level), .vbvMaxRate(limits.vbvMaxRateKbps),
                                             .vbvBufferSize(limits.vbvBufferKbit)]
        let frames = min(16, limits.maxDpbMbs / max(1, limits.units(frameSize)))
        if frames < 4 { parameters.append(.bPyramid(.none)) }
        if frames < X264Preset(preset).references { parameters.append(.ref(max(1, frames))) }
        return parameters
    }

    func requiredH264Level(_ size: CanvasSize, rate: Rational) -> H264Level? {
        H264Level.required(width: size.width, height: size.height, fps: rate)
    }

    /// The level_idc of the first SPS in `extradata` (Annex B: `00 00 01 67 profile flags level`), as an
    /// `H264Level`; `nil` when there is no SPS.
    func signalledH264Level(extradata data: [UInt8]) -> H264Level? {
        var i = 0
        while i + 6 < data.count {
            if data[i] == 0 && data[i + 1] == 0 && data[i + 2] == 1 && data[i + 3] & 0x1F == 7 {
                let constraintSet3 = data[i + 5] & 0x10 != 0
                return H264Level(levelIDC: Int(data[i + 6]), constraintSet3: constraintSet3)
            }
            i += 1
        }
        return nil
    }

    // MARK: Repeat pictures

    /// P_Skip pictures in MP4 (the parameter sets in the container).
    func splicesRepeats(in container: VideoContainer, timeBase: Rational) -> Bool { container == .mp4 }

    var hasReferenceRepeats: Bool { true }

    /// The settings with which H.264 repeat pictures keep x264's B-frames (docs/repeats.md, "B-frames with
    /// repeats"), `nil` where these settings cannot: fewer than 2 B-frames or no B-pyramid (a held picture could
    /// not be a B reference), a `--level` (its DPB limit may not hold the references a B reference needs), two
    /// passes, or no libx264 of the build gifx was compiled against to open (libavcodec's wrapper may still find
    /// its own). Every held picture is a reference (`X264Encoder.PictureType.reference`); x264 keeps a B reference
    /// only with more references than B references + 3, so `ref` is at least B-frames + 3 (6 at `medium`);
    /// implicit weighted bi-prediction off and spatial direct prediction (`H264ReferenceRepeatSplicer`).
    func referenceRepeatTuning(_ tuning: EncoderTuning) throws -> EncoderTuning? {
        guard tuning.encoder == encoderName,
              !tuning.parameters.items.contains(where: { ["level", "pass", "sliced-threads"].contains($0.key) }),
              (try? X264Encoder.load()) != nil
        else { return nil }
        let base = try X264Encoder.settings(tuning: tuning, extra: [])
        guard base.bFrames >= 2, base.pyramid else { return nil }
        let extra: EncoderParameters = [
            .ref(max(base.references, base.bFrames + 3)), .weightedBiprediction(false), .directPrediction(.spatial),
        ]
        guard try X264Encoder.settings(tuning: tuning, extra: extra).allowReferenceRepeats else { return nil }
        var result = tuning.withParameters(extra)
        result.setting += ", B references (repeat pictures)"
        return result
    }

    /// x264's own validation may leave fewer B-frames than asked (lossless at `crf` 0 has none).
    func keepsReferenceRepeats(_ encoder: VideoEncoder) -> Bool {
        encoder.directX264Settings?.allowReferenceRepeats ?? true
    }

    /// No B-frames, so decode order is presentation order and x264 writes `pic_order_cnt_type` 2, and one
    /// reference frame, so x264's picture after a run of repeats predicts from the last repeat, an exact copy of
    /// what it predicted from.
    func forRepeatPictures(_ tuning: EncoderTuning) -> EncoderTuning {
        var tuning = tuning.withParameters([.bframes(0), .ref(1)])
        tuning.setting += ", no B-frames, 1 reference (repeat pictures)"
        return tuning
    }

    /// With B-frames, `H264ReferenceRepeatSplicer` (it rewrites the parameter sets); without, `H264RepeatSplicer`
    /// (it adds the repeat pictures' PPS), both before the muxer and a verifying decoder copy them.
    func makeRepeatSplicer(_ setup: RepeatSplicerSetup) throws -> RepeatSplicing {
        let encoder = setup.encoder
        if setup.referenceRepeats {
            let splicer = try H264ReferenceRepeatSplicer(
                extradata: encoder.extradata, longestHold: setup.longestHold(),
                bFrames: encoder.directX264Settings?.bFrames ?? 0)
            if let path = setup.encoderStreamPath {
                _ = FileManager.default.createFile(atPath: path, contents: Data(splicer.encoderParameterSets))
            }
            try encoder.replaceExtradata(splicer.extradata)
            return .reordered(splicer)
        }
        guard setup.parameterSetsInContainer else {
            throw LibavError("repeat pictures need the parameter sets in the container", failure: .internalError)
        }
        let splicer = try H264RepeatSplicer(extradata: encoder.extradata)
        try encoder.replaceExtradata(splicer.extradata)
        return .inOrder(splicer)
    }
}

extension H264RepeatSplicer: RepeatSplicer {}

/// What an x264 preset holds, in frames of `H264Codec.frameBytes`, as `param_apply_preset` (x264's
/// common/base.c) sets it: `rc-lookahead`, B-frames and references, and what the peak RSS of libx264 showed
/// beyond them (ffmpeg's libx264 on one thread at 800×600 and gifx's ladder at 333×187 to 1440×900,
/// docs/memory.md, "x264's presets"):
/// - B-frame decision by trellis (`b-adapt=2`, `slow` and slower) grows with the B-frames: +3, 20, 46, 83 and
///   122 MiB at 3, 5, 8, 12 and 16 B-frames at 800×600 (about 4.3 frames each past 2), counted as 5 frames
///   a B-frame past 2;
/// - `slower` and above (sub-pel refinement 9 or more, trellis quantization 2, every partition) held 3.6-5.4
///   MiB over the leanest level's plan at 333×187 and 480×270, counted as 12 frames at every level (16 at
///   `placebo`, which held 1.4-1.8 MiB more);
/// - exhaustive motion search (`placebo`'s `tesa`) keeps an integral image a reference: counted as 2 frames more
///   a reference (8 bytes a pixel, x264's frame.c).
struct X264Preset {
    var lookahead: Int, bFrames: Int, references: Int
    var trellisBFrames: Bool, analysisFrames: Int, integralImages: Bool

    /// One row a preset: lookahead, B-frames, references, b-adapt 2, analysis frames, integral images.
    private static let table: [String: X264Preset] = [
        "ultrafast": X264Preset(0, 0, 1, false, 0, false), "superfast": X264Preset(0, 3, 1, false, 0, false),
        "veryfast": X264Preset(10, 3, 1, false, 0, false), "faster": X264Preset(20, 3, 2, false, 0, false),
        "fast": X264Preset(30, 3, 2, false, 0, false), "medium": X264Preset(40, 3, 3, false, 0, false),
        "slow": X264Preset(50, 3, 5, true, 0, false), "slower": X264Preset(60, 3, 8, true, 12, false),
        "veryslow": X264Preset(60, 8, 16, true, 12, false), "placebo": X264Preset(60, 16, 16, true, 16, true),
    ]

    private init(
        _ lookahead: Int, _ bFrames: Int, _ references: Int, _ trellisBFrames: Bool, _ analysisFrames: Int,
        _ integralImages: Bool
    ) {
        (self.lookahead, self.bFrames, self.references) = (lookahead, bFrames, references)
        (self.trellisBFrames, self.analysisFrames, self.integralImages) = (trellisBFrames, analysisFrames, integralImages)
    }

    /// The x264 defaults (`medium`) for a name x264 does not know.
    init(_ preset: String) {
        self = Self.table[preset] ?? Self.table["medium"]!
    }

    /// The frames a level with the preset's B-frames holds: its lookahead (the preset's unless given), B-frames
    /// and references (at least B-frames + 3 with B-frame repeats: `bReferences`), and the terms above; the
    /// frames in flight are the ladder's.
    func frames(lookahead: Int? = nil, bReferences: Bool) -> Int {
        let references = bReferences ? max(self.references, bFrames + 3) : self.references
        return (lookahead ?? self.lookahead) + bFrames + references * (integralImages ? 3 : 1)
            + (trellisBFrames ? 5 * max(0, bFrames - 2) : 0) + analysisFrames
    }
}
