import Testing
import GifxTimeline

/// Single delay rules (timeline.md §1, §4) and edge-case schedules, under both policies.
@Suite struct DelayRuleTests {
    @Test(arguments: TimelinePolicy.allCases)
    func longestDelayIsNotClamped(_ policy: TimelinePolicy) {
        let timeline = Timeline(input([65535, 5]), policy: policy)
        #expect(timeline.frames.map(\.delay) == [65535, 5])
        #expect(timeline.frames.map(\.rule) == [.raw, .raw])
        #expect(timeline.tick.units == 5)  // gcd(65535, 5) = 5: 65535 = 5 × 13107
        #expect(timeline.duration.units == 65540)
        #expect(timeline.duration.seconds == 655.4)
    }

    @Test(arguments: TimelinePolicy.allCases)
    func oneFrameTickIsItsDelay(_ policy: TimelinePolicy) {
        let timeline = Timeline(input([37]), policy: policy)
        #expect(timeline.tick.units == 37)
        #expect(timeline.tick.fps == Rational(100, 37))
        #expect(timeline.duration.units == 37)
        #expect(timeline.outputFrameCount(at: timeline.tickRate) == 1)
        #expect(timeline.repeatCounts(at: timeline.tickRate) == [1])

        let still = Timeline(input([nil]), policy: policy)
        #expect(still.frames.map(\.delay) == [10])
        #expect(still.frames.map(\.rule) == [.default])
        #expect(still.tick.units == 10)
    }

    @Test(arguments: TimelinePolicy.allCases)
    func zeroFrames(_ policy: TimelinePolicy) {
        let timeline = Timeline(input([]), policy: policy)
        #expect(timeline.frames.isEmpty)
        #expect(timeline.duration.units == 0)
        #expect(timeline.duration.seconds == 0)
        #expect(timeline.tick.units > 0)  // no delay to divide by: still a usable tick
        #expect(timeline.tick.fps == Rational(100, timeline.tick.units))
        #expect(timeline.repeatCounts(at: timeline.tickRate).isEmpty)
    }

    @Test(arguments: TimelinePolicy.allCases)
    func subMinimumDelaysRoundUpToTenAndTwoStays(_ policy: TimelinePolicy) {
        let timeline = Timeline(input([0, 1, 2, 3]), policy: policy)
        #expect(timeline.frames.map(\.delay) == [10, 10, 2, 3])
        #expect(timeline.frames.map(\.rule) == [.roundedUp, .roundedUp, .raw, .raw])
        #expect(timeline.duration.units == 25)
        #expect(timeline.tick.units == 1)
    }

    @Test func carryOverUsesTheResolvedDelay() {
        // The frame without GCE after a 0 cs frame carries the resolved 10 cs, not the raw 0.
        let flanimated = Timeline(input([0, nil, 7, nil, nil]), policy: .flanimated)
        #expect(flanimated.frames.map(\.delay) == [10, 10, 7, 7, 7])
        #expect(flanimated.frames.map(\.rule) == [.roundedUp, .carried, .raw, .carried, .carried])
        let browser = Timeline(input([0, nil, 7, nil, nil]), policy: .browser)
        #expect(browser.frames.map(\.delay) == [10, 10, 7, 10, 10])
        #expect(browser.frames.map(\.rule) == [.roundedUp, .default, .raw, .default, .default])
    }

    @Test func frameAfterADroppedFrameGetsTheDefault() {
        // Frames 0 and 1 were decodable; an image between them was dropped. Frame 2 follows frame 1 normally.
        let dropped = input([25, nil, nil], followsDroppedFrame: [1])
        let flanimated = Timeline(dropped, policy: .flanimated)
        #expect(flanimated.frames.map(\.delay) == [25, 10, 10])
        #expect(flanimated.frames.map(\.rule) == [.raw, .default, .carried])
        #expect(flanimated.frames.map(\.start) == [0, 25, 35])
        let browser = Timeline(dropped, policy: .browser)
        #expect(browser.frames.map(\.delay) == [25, 10, 10])
        #expect(browser.frames.map(\.rule) == [.raw, .default, .default])
        // A frame with its own GCE after a dropped one keeps its raw delay.
        let withGCE = Timeline(input([25, 4], followsDroppedFrame: [1]), policy: .flanimated)
        #expect(withGCE.frames.map(\.delay) == [25, 4])
        #expect(withGCE.frames.map(\.rule) == [.raw, .raw])
    }

    @Test func resolveDelayDirectly() {
        for policy in TimelinePolicy.allCases {
            #expect(Timeline.resolveDelay(0, carryFrom: 30, policy: policy) == (10, .roundedUp))
            #expect(Timeline.resolveDelay(1, carryFrom: nil, policy: policy) == (10, .roundedUp))
            #expect(Timeline.resolveDelay(2, carryFrom: 30, policy: policy) == (2, .raw))
            #expect(Timeline.resolveDelay(65535, carryFrom: nil, policy: policy) == (65535, .raw))
            #expect(Timeline.resolveDelay(nil, carryFrom: nil, policy: policy) == (10, .default))
        }
        #expect(Timeline.resolveDelay(nil, carryFrom: 30, policy: .flanimated) == (30, .carried))
        #expect(Timeline.resolveDelay(nil, carryFrom: 30, policy: .browser) == (10, .default))
    }

    @Test func warningsAndCanvasPassThrough() {
        let source = TimelineInput(
            canvas: CanvasSize(width: 640, height: 360), loopCount: nil, frames: [frame(5)], warnings: ["a", "b"])
        let timeline = Timeline(source)
        #expect(timeline.schema == "gifx.timeline/1")
        #expect(timeline.policy == .flanimated)  // the default policy
        #expect(timeline.canvas == CanvasSize(width: 640, height: 360))
        #expect(timeline.warnings == ["a", "b"])
    }
}

/// Loop counts (timeline.md §3): raw count kept, plays interpreted per policy.
@Suite struct LoopCountTests {
    /// (raw count, plays under flanimated, plays under browser); `nil` plays = forever.
    static let cases: [(count: Int?, flanimated: Int?, browser: Int?)] = [
        (nil, nil, 1),
        (0, nil, nil),
        (1, 1, 2),
        (65535, 65535, 65536),
    ]

    @Test(arguments: 0..<cases.count)
    func playsPerPolicy(_ row: Int) {
        let (count, flanimatedPlays, browserPlays) = Self.cases[row]
        #expect(Timeline.plays(loopCount: count, policy: .flanimated) == flanimatedPlays)
        #expect(Timeline.plays(loopCount: count, policy: .browser) == browserPlays)
        let flanimated = Timeline(input([10], loopCount: count), policy: .flanimated)
        #expect(flanimated.loop.count == count)
        #expect(flanimated.loop.plays == flanimatedPlays)
        let browser = Timeline(input([10], loopCount: count), policy: .browser)
        #expect(browser.loop.count == count)
        #expect(browser.loop.plays == browserPlays)
    }
}
