import GifxTimeline

/// An H.264 level (Annex A): what a decoder must sustain. Players guarantee only some (Android: Main 3.1;
/// many hardware decoders stop at 4.2), so gifx states the level of every stream and warns above 4.2.
package struct H264Level: Hashable, Sendable, Comparable, CustomStringConvertible, Codable {
    /// `level_idc` as written in the SPS: 10 × the level (31 for 3.1), 9 for 1b.
    package var levelIDC: Int

    package init(levelIDC: Int, constraintSet3: Bool = false) {
        // Baseline/Main signal 1b as level_idc 11 with constraint_set3_flag; High uses 9.
        self.levelIDC = levelIDC == 11 && constraintSet3 ? 9 : levelIDC
    }

    /// `3.1`, `4`, `1b`.
    package var description: String {
        if levelIDC == 9 { return "1b" }
        return levelIDC % 10 == 0 ? "\(levelIDC / 10)" : "\(levelIDC / 10).\(levelIDC % 10)"
    }

    /// Order by capability (1b sits between 1 and 1.1).
    package static func < (a: H264Level, b: H264Level) -> Bool { a.rank < b.rank }
    private var rank: Int { levelIDC == 9 ? 105 : levelIDC * 10 }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }

    package init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        if text == "1b" { self.init(levelIDC: 9); return }
        let parts = text.split(separator: ".").compactMap { Int($0) }
        self.init(levelIDC: (parts.first ?? 0) * 10 + (parts.count > 1 ? parts[1] : 0))
    }

    /// The highest level players can be counted on for (hardware decoders of the last decade).
    package static let widelySupported = H264Level(levelIDC: 42)

    /// Table A-1 limits: macroblocks per second and per frame, and the bit rate (1000 bit/s) and coded picture
    /// buffer (1000 bits) of Baseline/Main (High: × 1.25), and the decoded picture buffer in macroblocks.
    struct Limits {
        var levelIDC: Int, maxMBPS: Int, maxFS: Int, maxBR: Int, maxCPB: Int, maxDpbMbs: Int
    }

    static let table: [Limits] = [
        Limits(levelIDC: 10, maxMBPS: 1485, maxFS: 99, maxBR: 64, maxCPB: 175, maxDpbMbs: 396),
        Limits(levelIDC: 9, maxMBPS: 1485, maxFS: 99, maxBR: 128, maxCPB: 350, maxDpbMbs: 396),
        Limits(levelIDC: 11, maxMBPS: 3000, maxFS: 396, maxBR: 192, maxCPB: 500, maxDpbMbs: 900),
        Limits(levelIDC: 12, maxMBPS: 6000, maxFS: 396, maxBR: 384, maxCPB: 1000, maxDpbMbs: 2376),
        Limits(levelIDC: 13, maxMBPS: 11880, maxFS: 396, maxBR: 768, maxCPB: 2000, maxDpbMbs: 2376),
        Limits(levelIDC: 20, maxMBPS: 11880, maxFS: 396, maxBR: 2000, maxCPB: 2000, maxDpbMbs: 2376),
        Limits(levelIDC: 21, maxMBPS: 19800, maxFS: 792, maxBR: 4000, maxCPB: 4000, maxDpbMbs: 4752),
        Limits(levelIDC: 22, maxMBPS: 20250, maxFS: 1620, maxBR: 4000, maxCPB: 4000, maxDpbMbs: 8100),
        Limits(levelIDC: 30, maxMBPS: 40500, maxFS: 1620, maxBR: 10_000, maxCPB: 10_000, maxDpbMbs: 8100),
        Limits(levelIDC: 31, maxMBPS: 108_000, maxFS: 3600, maxBR: 14_000, maxCPB: 14_000, maxDpbMbs: 18_000),
        Limits(levelIDC: 32, maxMBPS: 216_000, maxFS: 5120, maxBR: 20_000, maxCPB: 20_000, maxDpbMbs: 20_480),
        Limits(levelIDC: 40, maxMBPS: 245_760, maxFS: 8192, maxBR: 20_000, maxCPB: 25_000, maxDpbMbs: 32_768),
        Limits(levelIDC: 41, maxMBPS: 245_760, maxFS: 8192, maxBR: 50_000, maxCPB: 62_500, maxDpbMbs: 32_768),
        Limits(levelIDC: 42, maxMBPS: 522_240, maxFS: 8704, maxBR: 50_000, maxCPB: 62_500, maxDpbMbs: 34_816),
        Limits(levelIDC: 50, maxMBPS: 589_824, maxFS: 22080, maxBR: 135_000, maxCPB: 135_000, maxDpbMbs: 110_400),
        Limits(levelIDC: 51, maxMBPS: 983_040, maxFS: 36864, maxBR: 240_000, maxCPB: 240_000, maxDpbMbs: 184_320),
        Limits(levelIDC: 52, maxMBPS: 2_073_600, maxFS: 36864, maxBR: 240_000, maxCPB: 240_000, maxDpbMbs: 184_320),
        Limits(levelIDC: 60, maxMBPS: 4_177_920, maxFS: 139_264, maxBR: 240_000, maxCPB: 240_000, maxDpbMbs: 696_320),
        Limits(levelIDC: 61, maxMBPS: 8_355_840, maxFS: 139_264, maxBR: 480_000, maxCPB: 480_000, maxDpbMbs: 696_320),
        Limits(levelIDC: 62, maxMBPS: 16_711_680, maxFS: 139_264, maxBR: 800_000, maxCPB: 800_000, maxDpbMbs: 696_320),
    ]

    /// The lowest level whose frame size (in 16×16 macroblocks, and each side at most √(8·MaxFS)) and
    /// macroblock rate (`MBs × fps`, x264's integer arithmetic) allow `width`×`height` at `fps`: how libx264
    /// picks it (x264_validate_levels; bit rate is unbounded under CRF without VBV). x264 also checks the
    /// decoded picture buffer, which only matters with many references at small sizes (not at the presets'
    /// defaults), so the level actually written is read back from the SPS (`VideoPlan.signalledLevel`).
    /// Beyond 6.2: 6.2.
    package static func required(width: Int, height: Int, fps: Rational) -> H264Level {
        let mbWidth = (width + 15) / 16, mbHeight = (height + 15) / 16
        let frameMBs = mbWidth * mbHeight
        for limits in table {
            let side = Int(Double(limits.maxFS * 8).squareRoot())
            guard frameMBs <= limits.maxFS, mbWidth <= side, mbHeight <= side else { continue }
            // frameMBs · num / den <= maxMBPS, as x264 computes it (integer division).
            guard frameMBs * fps.num / fps.den <= limits.maxMBPS else { continue }
            return H264Level(levelIDC: limits.levelIDC)
        }
        return H264Level(levelIDC: 62)
    }
}
