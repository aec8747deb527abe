import GifxEncoders
import GifxFrames
import GifxPipeline
import Testing
import GifxTimeline

/// Run-wide and video settings are checked in one place each, in the library, and refused before any
/// file is touched.
@Suite struct RunSettingsTests {
    @Test func rangesAreCheckedOnce() {
        #expect(RunSettings().problem == nil)
        #expect(RunSettings(threads: 1).problem == nil)
        #expect(RunSettings(threads: 256).problem == nil)
        #expect(RunSettings(threads: 0).problem == .threads(0))
        #expect(RunSettings(threads: 257).problem == .threads(257))
        #expect(RunSettings(memoryBudget: 0).problem == .memoryBudget(0))
    }

    @Test func conversionRefusesBadSettingsBeforeReadingTheInput() {
        #expect(throws: RunSettingsProblem.threads(0)) {
            try Conversion(inputPath: "/nonexistent/input.gif", settings: RunSettings(threads: 0))
        }
        #expect((try? Conversion(inputPath: "/nonexistent/input.gif")) != nil)
    }

    @Test func timingRulesLiveWithTheVideoOptions() {
        #expect(VideoSettings(timing: .tick, maxFrameRate: Rational(30)).timingProblem == nil)
        #expect(VideoSettings(timing: .auto, maxFrameRate: Rational(30)).timingProblem == nil)
        #expect(VideoSettings(timing: .vfr, maxFrameRate: Rational(30)).timingProblem == .capDoesNotApply(.vfr))
        #expect(VideoSettings(timing: .rate(Rational(25)), maxFrameRate: Rational(30)).problem
            == .capDoesNotApply(.rate(Rational(25))))
        #expect(VideoSettings(timing: .rate(Rational(0, 1))).problem == .rateOutOfRange(Rational(0, 1)))
        #expect(VideoSettings(timing: .rate(Rational(1, Int(Int32.max) + 1))).problem != nil)
    }
}
