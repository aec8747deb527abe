import GifxFrames
import GifxTimeline

/// A level asked for with `--level` (`4.1`, `4`, `1b`): the decoder the stream must play on. In tenths of a
/// level (41 for 4.1), 9 for H.264's 1b, as H.264's `level_idc`; HEVC's `general_level_idc` is 3 × this.
public struct LevelRequest: Hashable, Sendable, Codable, CustomStringConvertible {
    public let tenths: Int

    public init(tenths: Int) { self.tenths = tenths }

    /// `4.1`, `4`, `41`, `1b`; nil for anything else (whether the codec has that level is `LevelLimits`'s).
    public init?(text: String) {
        if text.lowercased() == "1b" { tenths = 9; return }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) }),
              let major = Int(parts[0]) else { return nil }
        if parts.count == 2 {
            guard parts[1].count == 1, let minor = Int(parts[1]), (1...6).contains(major) else { return nil }
            tenths = major * 10 + minor
        } else if (10...62).contains(major) {
            tenths = major  // level_idc form: 41
        } else {
            guard (1...6).contains(major) else { return nil }
            tenths = major * 10
        }
    }

    public var description: String {
        if tenths == 9 { return "1b" }
        return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let level = LevelRequest(text: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "level \(text)"))
        }
        self = level
    }
}

/// What a level allows a stream (H.264 Table A-1; HEVC Tables A.8/A.9, Main tier) and how gifx keeps to it:
/// the largest frame rate at a frame size (the cap the output plan resamples under, as `--max-fps`), the
/// frame size itself, and the VBV (maximum bit rate and buffer) that makes the encoder's bit stream conform.
package struct LevelLimits: Sendable, Hashable {
    package let level: LevelRequest
    package let codec: VideoCodec
    /// H.264: macroblocks per second and per frame. HEVC: luma samples per second and per picture.
    let maxUnitsPerSecond: Int
    let maxUnitsPerFrame: Int
    /// The VBV: kbit/s and kbit. H.264: Table A-1's MaxBR and MaxCPB as they stand (Baseline/Main; x264
    /// counts 1000 bits a unit for them and 1250 for High): x264 picks the profile from the preset
    /// (ultrafast writes Constrained Baseline, the others High), and High's 1.25 × would break a Baseline
    /// stream's limit, so the lower bound is used for all (a High stream stays 20 % under its own).
    /// HEVC Main: MaxBR and MaxCPB of the Main tier (CpbVclFactor 1000).
    package let vbvMaxRateKbps: Int
    package let vbvBufferKbit: Int
    /// H.264's decoded picture buffer in macroblocks (x264 warns and writes a stream beyond it otherwise);
    /// 0 for HEVC, where x265 lowers its references to the level itself.
    let maxDpbMbs: Int

    /// The limits of `level` for `codec`; nil when the codec has no such level (or no levels gifx sets: VP9, AV1).
    package init?(_ level: LevelRequest, codec: VideoCodec) {
        self.level = level
        self.codec = codec
        switch codec {
        case .h264:
            guard let row = H264Level.table.first(where: { $0.levelIDC == level.tenths }) else { return nil }
            maxUnitsPerSecond = row.maxMBPS
            maxUnitsPerFrame = row.maxFS
            vbvMaxRateKbps = row.maxBR
            vbvBufferKbit = row.maxCPB
            maxDpbMbs = row.maxDpbMbs
        case .hevc:
            guard let row = Self.hevcMainTier.first(where: { $0.tenths == level.tenths }) else { return nil }
            maxUnitsPerSecond = row.maxLumaSr
            maxUnitsPerFrame = row.maxLumaPs
            vbvMaxRateKbps = row.maxBR
            vbvBufferKbit = row.maxCPB
            maxDpbMbs = 0
        case .vp9, .av1:
            return nil
        }
    }

    /// The levels `codec` has, lowest first (what `--level` takes).
    package static func levels(of codec: VideoCodec) -> [LevelRequest] {
        switch codec {
        case .h264: H264Level.table.map { LevelRequest(tenths: $0.levelIDC) }
        case .hevc: hevcMainTier.map { LevelRequest(tenths: $0.tenths) }
        case .vp9, .av1: []
        }
    }

    /// What a frame counts against the level: H.264 16×16 macroblocks, HEVC luma samples (x265's count).
    func units(_ size: CanvasSize) -> Int {
        codec == .h264 ? ((size.width + 15) / 16) * ((size.height + 15) / 16) : size.width * size.height
    }

    /// Why `size` cannot be coded at this level (the picture size, or a side beyond √(8 × the maximum)), or nil.
    package func sizeProblem(_ size: CanvasSize) -> String? {
        let frame = units(size)
        let side = Int(Double(maxUnitsPerFrame * 8).squareRoot())
        let sides = codec == .h264 ? [(size.width + 15) / 16, (size.height + 15) / 16] : [size.width, size.height]
        let unit = codec == .h264 ? "macroblocks" : "luma samples"
        let name = "\(codec == .h264 ? "H.264" : "HEVC") level \(level)"
        if frame > maxUnitsPerFrame {
            return "\(size.width)x\(size.height) (\(frame) \(unit) a frame) exceeds \(name)'s \(maxUnitsPerFrame)"
        }
        if sides.contains(where: { $0 > side }) {
            let limit = codec == .h264 ? "\(side * 16) pixels" : "\(side) pixels"
            return "\(size.width)x\(size.height) has a side beyond \(name)'s \(limit) (sqrt of 8 x its frame size)"
        }
        return nil
    }

    /// The highest frame rate the level allows at `size`, exact: MaxMBPS / macroblocks (H.264), MaxLumaSr /
    /// luma samples (HEVC).
    package func maxFrameRate(at size: CanvasSize) -> Rational {
        Rational(maxUnitsPerSecond, max(1, units(size)))
    }

    /// The encoder's private parameters that write the level into the stream and keep it within the level:
    /// x264 `level`, `vbv-maxrate`, `vbv-bufsize`, and for the decoded picture buffer (MaxDpbMbs / frame
    /// macroblocks frames) fewer references than `preset` uses and no B-pyramid when it needs 4 frames
    /// (x264 keeps max(references, 1 + reordered frames, 4 with a B-pyramid): it only warns "DPB size > level
    /// limit" otherwise). x265: `level-idc`, Main tier, the same VBV (it lowers its references itself).
    func encoderParameters(frameSize: CanvasSize, preset: String) -> EncoderParameters {
        let vbv: EncoderParameters = [.vbvMaxRate(vbvMaxRateKbps), .vbvBufferSize(vbvBufferKbit)]
        guard codec == .h264 else { return [.levelIDC(level), .highTier(false)] + vbv }
        var parameters: EncoderParameters = [.level(level)] + vbv
        let frames = min(16, maxDpbMbs / max(1, units(frameSize)))
        let presetReferences = [1, 1, 1, 2, 2, 3, 5, 8, 16, 16][VideoCodec.presets.firstIndex(of: preset) ?? 5]
        if frames < 4 { parameters.append(.bPyramid(.none)) }
        if frames < presetReferences { parameters.append(.ref(max(1, frames))) }
        return parameters
    }

    /// HEVC Tables A.8 (MaxLumaPs, MaxCPB Main tier, in 1000 bits) and A.9 (MaxLumaSr, MaxBR Main tier, in
    /// 1000 bit/s), Main profile (CpbVclFactor 1000).
    struct HEVCRow: Hashable, Sendable {
        var tenths: Int, maxLumaPs: Int, maxCPB: Int, maxLumaSr: Int, maxBR: Int
    }

    static let hevcMainTier: [HEVCRow] = [
        HEVCRow(tenths: 10, maxLumaPs: 36_864, maxCPB: 350, maxLumaSr: 552_960, maxBR: 128),
        HEVCRow(tenths: 20, maxLumaPs: 122_880, maxCPB: 1_500, maxLumaSr: 3_686_400, maxBR: 1_500),
        HEVCRow(tenths: 21, maxLumaPs: 245_760, maxCPB: 3_000, maxLumaSr: 7_372_800, maxBR: 3_000),
        HEVCRow(tenths: 30, maxLumaPs: 552_960, maxCPB: 6_000, maxLumaSr: 16_588_800, maxBR: 6_000),
        HEVCRow(tenths: 31, maxLumaPs: 983_040, maxCPB: 10_000, maxLumaSr: 33_177_600, maxBR: 10_000),
        HEVCRow(tenths: 40, maxLumaPs: 2_228_224, maxCPB: 12_000, maxLumaSr: 66_846_720, maxBR: 12_000),
        HEVCRow(tenths: 41, maxLumaPs: 2_228_224, maxCPB: 20_000, maxLumaSr: 133_693_440, maxBR: 20_000),
        HEVCRow(tenths: 50, maxLumaPs: 8_912_896, maxCPB: 25_000, maxLumaSr: 267_386_880, maxBR: 25_000),
        HEVCRow(tenths: 51, maxLumaPs: 8_912_896, maxCPB: 40_000, maxLumaSr: 534_773_760, maxBR: 40_000),
        HEVCRow(tenths: 52, maxLumaPs: 8_912_896, maxCPB: 60_000, maxLumaSr: 1_069_547_520, maxBR: 60_000),
        HEVCRow(tenths: 60, maxLumaPs: 35_651_584, maxCPB: 60_000, maxLumaSr: 1_069_547_520, maxBR: 60_000),
        HEVCRow(tenths: 61, maxLumaPs: 35_651_584, maxCPB: 120_000, maxLumaSr: 2_139_095_040, maxBR: 120_000),
        HEVCRow(tenths: 62, maxLumaPs: 35_651_584, maxCPB: 240_000, maxLumaSr: 4_278_190_080, maxBR: 240_000),
    ]
}
