import Foundation
import GifxTimeline
import Testing

/// WebP and APNG schedules (issue 35): the expected values are the player table worked by hand —
/// YYImage (`flanimated`): WebP `ms/1000` s, APNG `num/den` s (den 0: `num/100`), below 0.011 s → 0.1 s,
/// fractions kept; Chromium and Firefox (`browser`): WebP raw ms, APNG `num*1000/den` truncated to whole ms
/// (den 0: `num*10`), at most 10 ms → 100 ms. Both play a stored loop count N as N plays, 0 forever.
@Suite struct OtherFormatTimelineTests {
    func input(_ format: SourceFormat, _ delays: [(Int, UInt16)], loop: Int? = 0) -> TimelineInput {
        var input = TimelineInput(
            canvas: CanvasSize(width: 4, height: 4), loopCount: loop,
            frames: delays.map { FrameDescriptor(rawDelay: $0.0, rect: PixelRect(x: 0, y: 0, width: 4, height: 4)) })
        input.format = format
        if format == .apng { input.delayDenominators = delays.map(\.1) }
        return input
    }

    /// Seconds of each delay, exact, as `delay / timescale`.
    func seconds(_ t: Timeline) -> [Rational] { t.frames.map { Rational($0.delay, t.timescale) } }

    @Test(arguments: TimelinePolicy.allCases)
    func webPDelaysAreMillisecondsWithTheTenMillisecondClamp(_ policy: TimelinePolicy) {
        let t = Timeline(input(.webp, [(0, 0), (5, 0), (10, 0), (11, 0), (20, 0), (65535, 0)]), policy: policy)
        #expect(t.format == .webp && t.timescale == 1000)
        #expect(t.frames.map(\.delay) == [100, 100, 100, 11, 20, 65535])
        #expect(t.frames.map(\.rule) == [.roundedUp, .roundedUp, .roundedUp, .raw, .raw, .raw])
        #expect(t.tick.units == 1)  // gcd in ms
        #expect(t.tick.fps == Rational(1000))
        #expect(t.duration.units == 65866)
        #expect(t.duration.seconds == 65.866)
        #expect(t.frames.map(\.start) == [0, 100, 200, 300, 311, 331])
    }

    @Test func apngUnderFlanimatedKeepsFractionalMilliseconds() {
        // 1/30 s, 1/60 s, 0/0 (0 s), 1/100 (10 ms < 11), 11/1000, 3/0 (30 ms), 2/1.
        let t = Timeline(input(.apng, [(1, 30), (1, 60), (0, 0), (1, 100), (11, 1000), (3, 0), (2, 1)]), policy: .flanimated)
        #expect(t.timescale == 3000)  // lcm(1000, 30, 60, 100)
        #expect(seconds(t) == [Rational(1, 30), Rational(1, 60), Rational(1, 10), Rational(1, 10), Rational(11, 1000), Rational(3, 100), Rational(2)])
        #expect(t.frames.map(\.rule) == [.raw, .raw, .roundedUp, .roundedUp, .raw, .raw, .raw])
        // Exact duration: 1/30 + 1/60 + 1/10 + 1/10 + 11/1000 + 3/100 + 2 = 2.241 + 1/20 s.
        #expect(Rational(t.duration.units, t.timescale) == Rational(2241, 1000) + Rational(1, 20))
    }

    @Test func apngUnderBrowserTruncatesToWholeMilliseconds() {
        let t = Timeline(input(.apng, [(1, 30), (1, 60), (0, 0), (1, 100), (11, 1000), (3, 0), (2, 1), (1, 3)]), policy: .browser)
        #expect(t.timescale == 1000)
        #expect(t.frames.map(\.delay) == [33, 16, 100, 100, 11, 30, 2000, 333])
        #expect(t.frames.map(\.rule) == [.truncated, .truncated, .roundedUp, .roundedUp, .raw, .raw, .raw, .truncated])
        #expect(t.tick.units == 1)
    }

    @Test(arguments: TimelinePolicy.allCases)
    func loopCountsAreTotalPlays(_ policy: TimelinePolicy) {
        for format in [SourceFormat.webp, .apng] {
            #expect(Timeline(input(format, [(50, 1000)], loop: 0), policy: policy).loop.plays == nil)
            #expect(Timeline(input(format, [(50, 1000)], loop: 1), policy: policy).loop.plays == 1)
            #expect(Timeline(input(format, [(50, 1000)], loop: 3), policy: policy).loop.plays == 3)
            // A still image (no loop field) shows once.
            #expect(Timeline(input(format, [(50, 1000)], loop: nil), policy: policy).loop.plays == 1)
        }
    }

    @Test func denominatorsTooFineFallBackToMillisecondsWithAWarning() {
        // lcm(1000, 997, 991) is far beyond the finest time base: delays round to the nearest ms.
        let t = Timeline(input(.apng, [(1, 997), (500, 991)]), policy: .flanimated)
        #expect(t.timescale == 1000)
        #expect(t.frames.map(\.delay) == [100, 505])  // 1/997 s < 11 ms → 100 ms; 500/991 s = 504.54 ms → 505
        #expect(t.warnings.count == 1)
    }

    @Test func outputPlanIsExactInTheTimelinesUnits() {
        // 1/30 s frames: the tick is 1/30 s, 30 fps, every start exact; VFR's time base is 1/3000 s.
        let t = Timeline(input(.apng, [(1, 30), (2, 30), (1, 30)]), policy: .flanimated)
        let tick = OutputPlan(timeline: t, request: .tick)
        #expect(tick.rate == Rational(30))
        #expect(tick.outputFrames == 4)
        #expect(tick.worstStartErrorMicroseconds == 0)
        #expect(tick.durationSeconds == 4.0 / 30)
        #expect(tick.reason.description == "tick 100/3 ms: every delay exact")
        let vfr = OutputPlan(timeline: t, request: .vfr)
        #expect(vfr.timeBase == Rational(1, 3000))
        #expect(vfr.placement(of: 2, in: t).firstTimestamp == 300)
        #expect(abs(vfr.durationSeconds - 4.0 / 30) < 1e-12)
        // 30 fps for WebP delays of 33, 33, 34 ms: every frame within 10 ms, so auto picks 30 over the 1 ms tick.
        let w = Timeline(input(.webp, [(33, 0), (33, 0), (34, 0)]))
        #expect(OutputPlan(timeline: w, request: .auto).rate == Rational(30))
    }

    @Test func jsonNamesTheFormatAndUnitsAndRoundTrips() throws {
        let t = Timeline(input(.webp, [(40, 0), (70, 0)], loop: 2))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var written = Data()
        try TimelineJSONWriter(t).write { written.append(contentsOf: $0) }
        #expect(written == (try encoder.encode(t)))
        let json = try #require(try JSONSerialization.jsonObject(with: written) as? [String: Any])
        #expect(json["format"] as? String == "webp")
        #expect(json["timescale"] as? Int == 1000)
        #expect(json["tick"] as? NSDictionary == ["units": 10, "fps": ["num": 100, "den": 1]] as NSDictionary)
        #expect(json["duration"] as? NSDictionary == ["units": 110, "seconds": 0.11] as NSDictionary)
        #expect(try JSONDecoder().decode(Timeline.self, from: written) == t)
        #expect((json["frames"] as? [[String: Any]])?.allSatisfy { $0["rawDelayDenominator"] == nil } == true)

        // APNG: each frame's stored delay_den beside rawDelay (delay_num), through an edit too.
        let a = Timeline(input(.apng, [(1, 30), (7, 100), (3, 0)]), policy: .browser)
        var apng = Data()
        try TimelineJSONWriter(a).write { apng.append(contentsOf: $0) }
        #expect(apng == (try encoder.encode(a)))
        let frames = try #require((try JSONSerialization.jsonObject(with: apng) as? [String: Any])?["frames"] as? [[String: Any]])
        #expect(frames.map { $0["rawDelay"] as? Int } == [1, 7, 3])
        #expect(frames.map { $0["rawDelayDenominator"] as? Int } == [30, 100, 0])
        #expect(try JSONDecoder().decode(Timeline.self, from: apng) == a)
        let cut = try a.applying(TimelineEdit(from: 3)).timeline  // from 30 ms
        #expect(cut.frames.map(\.rawDelayDenominator) == [30, 100, 0])
    }
}

extension Rational {
    static func + (a: Rational, b: Rational) -> Rational { Rational(a.num * b.den + b.num * a.den, a.den * b.den) }
}
