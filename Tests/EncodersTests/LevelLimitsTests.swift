import GifxEncoders
import GifxFrames
import GifxTimeline
import Testing

/// `LevelRequest` parsing and `LevelLimits` arithmetic (H.264 Table A-1, HEVC Tables A.8/A.9 Main tier).
@Suite struct LevelLimitsTests {
    @Test func parsesLevelsInEitherForm() {
        #expect(LevelRequest(text: "4.1")?.tenths == 41)
        #expect(LevelRequest(text: "41")?.tenths == 41)
        #expect(LevelRequest(text: "4")?.tenths == 40)
        #expect(LevelRequest(text: "1b")?.tenths == 9)
        #expect(LevelRequest(text: "1b")?.description == "1b")
        #expect(LevelRequest(text: "5.2")?.description == "5.2")
        for bad in ["", "7", "4.", ".1", "4.12", "x", "4.1.1", "0"] { #expect(LevelRequest(text: bad) == nil, "\(bad)") }
    }

    @Test func codecsHaveTheirOwnLevels() {
        #expect(LevelLimits(LevelRequest(tenths: 11), codec: .h264) != nil)
        #expect(LevelLimits(LevelRequest(tenths: 11), codec: .hevc) == nil)
        #expect(LevelLimits(LevelRequest(tenths: 9), codec: .hevc) == nil)
        #expect(LevelLimits(LevelRequest(tenths: 41), codec: .vp9) == nil)
        #expect(LevelLimits.levels(of: .hevc).count == 13)
        #expect(LevelLimits.levels(of: .h264).count == 20)
    }

    @Test func ratesAndSizes() throws {
        let h264 = try #require(LevelLimits(LevelRequest(tenths: 41), codec: .h264))
        let hd = CanvasSize(width: 1920, height: 1080)
        #expect(h264.maxFrameRate(at: hd) == Rational(245_760, 8160))  // 120 × 68 macroblocks
        #expect(h264.sizeProblem(hd) == nil)
        #expect(h264.sizeProblem(CanvasSize(width: 2560, height: 1440)) != nil)  // 14400 > 8192 macroblocks
        #expect(h264.sizeProblem(CanvasSize(width: 4096, height: 256)) == nil)  // 256 MBs wide: √(8 · 8192) = 256
        #expect(h264.sizeProblem(CanvasSize(width: 4112, height: 16)) != nil)  // 257 MBs wide
        #expect(h264.vbvMaxRateKbps == 50_000 && h264.vbvBufferKbit == 62_500)
        let hevc = try #require(LevelLimits(LevelRequest(tenths: 41), codec: .hevc))
        #expect(hevc.maxFrameRate(at: hd) == Rational(133_693_440, 2_073_600))
        #expect(hevc.vbvMaxRateKbps == 20_000)
        #expect(hevc.sizeProblem(CanvasSize(width: 4224, height: 64)) != nil)  // side > √(8 · 2228224) = 4222
    }
}
