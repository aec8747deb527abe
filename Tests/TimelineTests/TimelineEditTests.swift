import Testing
import GifxTimeline

/// `Timeline.applying(_:)` against schedules computed by hand (docs/edits.md): every expected value below is
/// written out, none is derived from the code under test.
@Suite struct TimelineEditTests {
    /// A 40x30 schedule of the raw delays given (nil: no GCE), loop count 3.
    static func timeline(_ raw: [Int?], policy: TimelinePolicy = .flanimated) -> Timeline {
        let frames = raw.enumerated().map { i, delay in
            FrameDescriptor(rawDelay: delay, rect: PixelRect(x: i, y: 0, width: 4, height: 3))
        }
        return Timeline(TimelineInput(canvas: CanvasSize(width: 40, height: 30), loopCount: 3, frames: frames), policy: policy)
    }

    static func check(
        _ edited: EditedTimeline, sources: [Int], delays: [Int], starts: [Int], tick: Int, duration: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(edited.sourceFrames == sources, sourceLocation: sourceLocation)
        #expect(edited.timeline.frames.map(\.delay) == delays, sourceLocation: sourceLocation)
        #expect(edited.timeline.frames.map(\.start) == starts, sourceLocation: sourceLocation)
        #expect(edited.timeline.frames.map(\.index) == Array(0..<sources.count), sourceLocation: sourceLocation)
        #expect(edited.timeline.tick.units == tick, sourceLocation: sourceLocation)
        #expect(edited.timeline.tick.fps == Rational(100, tick), sourceLocation: sourceLocation)
        #expect(edited.timeline.duration.units == duration, sourceLocation: sourceLocation)
        #expect(edited.timeline.duration.seconds == Double(duration) / 100, sourceLocation: sourceLocation)
    }

    // Delays 20 30 10 40, starts 0 20 50 60, end 100.
    let base = timeline([20, 30, 10, 40])

    @Test func noEditIsTheSameSchedule() throws {
        let edited = try base.applying(TimelineEdit())
        #expect(edited.timeline == base)
        #expect(edited.sourceFrames == [0, 1, 2, 3])
        #expect(edited.framesDroppedBySpeed == 0)
        #expect(edited.isMonotone)
    }

    @Test func cutInsideDelaysAtBothEnds() throws {
        // [25, 75): frame 1 keeps 25..50 (25 cs), frame 2 all 10, frame 3 keeps 60..75 (15 cs); frame 0 dropped.
        let edited = try base.applying(TimelineEdit(from: 25, to: 75))
        Self.check(edited, sources: [1, 2, 3], delays: [25, 10, 15], starts: [0, 25, 35], tick: 5, duration: 50)
        #expect(edited.timeline.frames.map(\.rect.x) == [1, 2, 3])  // the source frames' descriptors
        #expect(edited.timeline.loop == base.loop)
        #expect(edited.timeline.canvas == base.canvas)
        #expect(edited.isMonotone)
        #expect(edited.sourceRange == 1...3)
    }

    @Test func cutOnFrameBoundariesDropsFramesWithoutOverlap() throws {
        // [20, 60): frames 1 and 2 whole; frame 0 ends at 20 and frame 3 starts at 60: no overlap.
        let edited = try base.applying(TimelineEdit(from: 20, to: 60))
        Self.check(edited, sources: [1, 2], delays: [30, 10], starts: [0, 30], tick: 10, duration: 40)
    }

    @Test func cutInsideOneFrame() throws {
        // [61, 62): 1 cs of frame 3.
        let edited = try base.applying(TimelineEdit(from: 61, to: 62))
        Self.check(edited, sources: [3], delays: [1], starts: [0], tick: 1, duration: 1)
    }

    @Test func toBeyondTheEndClampsAndFromAloneCuts() throws {
        Self.check(
            try base.applying(TimelineEdit(from: 55, to: 1000)), sources: [2, 3], delays: [5, 40], starts: [0, 5],
            tick: 5, duration: 45)
        Self.check(
            try base.applying(TimelineEdit(to: 30)), sources: [0, 1], delays: [20, 10], starts: [0, 20], tick: 10,
            duration: 30)
    }

    @Test func cutUsesTheResolvedDelays() throws {
        // Raw 0 - 5: resolved 10 (rounded up), 10 (carried), 5; starts 0 10 20, end 25. [5, 22): 5, 10, 2.
        let t = Self.timeline([0, nil, 5])
        let edited = try t.applying(TimelineEdit(from: 5, to: 22))
        Self.check(edited, sources: [0, 1, 2], delays: [5, 10, 2], starts: [0, 5, 15], tick: 1, duration: 17)
        #expect(edited.timeline.frames.map(\.rule) == [.roundedUp, .carried, .raw])
        #expect(edited.timeline.frames.map(\.rawDelay) == [0, nil, 5])
    }

    @Test func badCutsAreRefused() {
        #expect(throws: TimelineEditError.cutAfterEnd(from: 100, duration: 100)) { try base.applying(TimelineEdit(from: 100)) }
        #expect(throws: TimelineEditError.cutAfterEnd(from: 150, duration: 100)) {
            try base.applying(TimelineEdit(from: 150, to: 200))
        }
        #expect(throws: TimelineEditError.emptyCut(from: 30, to: 30)) { try base.applying(TimelineEdit(from: 30, to: 30)) }
        #expect(throws: TimelineEditError.emptyCut(from: 40, to: 30)) { try base.applying(TimelineEdit(from: 40, to: 30)) }
        #expect(throws: TimelineEditError.negativeTime(-1)) { try base.applying(TimelineEdit(from: -1)) }
    }

    @Test func speedTwo() throws {
        // Starts 0 20 50 60, end 100, halved: 0 10 25 30, end 50.
        let edited = try base.applying(TimelineEdit(speed: Rational(2)))
        Self.check(edited, sources: [0, 1, 2, 3], delays: [10, 15, 5, 20], starts: [0, 10, 25, 30], tick: 5, duration: 50)
    }

    @Test func speedComesAfterTheSubMinimumRule() throws {
        // Raw 0 1 3: resolved 10 10 3 (starts 0 10 20, end 23). At speed 2: 0 5 10, end round(11.5) = 12.
        let edited = try Self.timeline([0, 1, 3]).applying(TimelineEdit(speed: Rational(2)))
        Self.check(edited, sources: [0, 1, 2], delays: [5, 5, 2], starts: [0, 5, 10], tick: 1, duration: 12)
    }

    @Test func speedThreeHalvesRoundsCumulativeStartsHalfUp() throws {
        // Delays 5 5 5 5: starts 0 5 10 15, end 20; × 2/3: 0, 3.33→3, 6.67→7, 10, end 13.33→13.
        let edited = try Self.timeline([5, 5, 5, 5]).applying(TimelineEdit(speed: Rational(3, 2)))
        Self.check(edited, sources: [0, 1, 2, 3], delays: [3, 4, 3, 3], starts: [0, 3, 7, 10], tick: 1, duration: 13)
        // Delays 3 3 3: starts 0 3 6, end 9; × 2/3: 0 2 4, end 6.
        Self.check(
            try Self.timeline([3, 3, 3]).applying(TimelineEdit(speed: Rational(3, 2))), sources: [0, 1, 2],
            delays: [2, 2, 2], starts: [0, 2, 4], tick: 2, duration: 6)
        // Delays 2 3 4 (starts 0 2 5, end 9) at 4/3: ×3/4 = 0, 1.5→2, 3.75→4, end 6.75→7.
        Self.check(
            try Self.timeline([2, 3, 4]).applying(TimelineEdit(speed: Rational(4, 3))), sources: [0, 1, 2],
            delays: [2, 2, 3], starts: [0, 2, 4], tick: 1, duration: 7)
    }

    @Test func speedOneThirdSlowsDown() throws {
        // Delays 20 30 10 40 × 3 = 60 90 30 120.
        let edited = try base.applying(TimelineEdit(speed: Rational(1, 3)))
        Self.check(edited, sources: [0, 1, 2, 3], delays: [60, 90, 30, 120], starts: [0, 60, 150, 180], tick: 30, duration: 300)
        // A delay of 30000 cs × 3 = 90000, beyond 16 bits: kept exactly.
        let long = try Self.timeline([30000, 2]).applying(TimelineEdit(speed: Rational(1, 3)))
        Self.check(long, sources: [0, 1], delays: [90000, 6], starts: [0, 90000], tick: 6, duration: 90006)
    }

    @Test func framesRoundingToZeroAreDroppedAndCounted() throws {
        // Delays 2 2 2 2 2 (starts 0 2 4 6 8, end 10) at speed 3: 0, 0.67→1, 1.33→1, 2, 2.67→3, end 3.33→3.
        // Delays 1 0 1 0 1: frames 1 and 4 dropped, and nothing drifts: the end is still 3.
        let edited = try Self.timeline([2, 2, 2, 2, 2]).applying(TimelineEdit(speed: Rational(3)))
        Self.check(edited, sources: [0, 2, 3], delays: [1, 1, 1], starts: [0, 1, 2], tick: 1, duration: 3)
        #expect(edited.framesDroppedBySpeed == 2)
    }

    @Test func tooFastIsRefused() {
        // 100 cs at speed 201: 0.4975 cs rounds to 0.
        #expect(throws: TimelineEditError.tooFast(speed: Rational(201), duration: 100)) {
            try base.applying(TimelineEdit(speed: Rational(201)))
        }
        // At 200: 0.5 rounds half up to 1 cs, all in frame 3 (starts 0, 0.1, 0.25, 0.3 → 0 0 0 0).
        let edited = try? base.applying(TimelineEdit(speed: Rational(200)))
        #expect(edited?.sourceFrames == [3])
        #expect(edited?.timeline.frames.map(\.delay) == [1])
        #expect(edited?.framesDroppedBySpeed == 3)
        #expect(throws: TimelineEditError.speed(Rational(0))) { try base.applying(TimelineEdit(speed: Rational(0))) }
        #expect(throws: TimelineEditError.speed(Rational(-2))) { try base.applying(TimelineEdit(speed: Rational(-2))) }
    }

    @Test func reverseKeepsEachDelay() throws {
        let edited = try base.applying(TimelineEdit(reverse: true))
        Self.check(edited, sources: [3, 2, 1, 0], delays: [40, 10, 30, 20], starts: [0, 40, 50, 80], tick: 10, duration: 100)
        #expect(!edited.isMonotone)
        #expect(edited.timeline.frames.map(\.rect.x) == [3, 2, 1, 0])
    }

    @Test func boomerangForOneTwoThreeAndFiveFrames() throws {
        Self.check(
            try Self.timeline([7]).applying(TimelineEdit(boomerang: true)), sources: [0], delays: [7], starts: [0],
            tick: 7, duration: 7)
        // Two frames: 0 1, then back to 0, which is the loop's next first frame: 0 1 stays.
        Self.check(
            try Self.timeline([7, 3]).applying(TimelineEdit(boomerang: true)), sources: [0, 1], delays: [7, 3],
            starts: [0, 7], tick: 1, duration: 10)
        Self.check(
            try Self.timeline([10, 20, 30]).applying(TimelineEdit(boomerang: true)), sources: [0, 1, 2, 1],
            delays: [10, 20, 30, 20], starts: [0, 10, 30, 60], tick: 10, duration: 80)
        Self.check(
            try Self.timeline([2, 4, 6, 8, 10]).applying(TimelineEdit(boomerang: true)),
            sources: [0, 1, 2, 3, 4, 3, 2, 1], delays: [2, 4, 6, 8, 10, 8, 6, 4], starts: [0, 2, 6, 12, 20, 30, 38, 44],
            tick: 2, duration: 48)
    }

    @Test func reverseThenBoomerangIsBackwardThenForward() throws {
        Self.check(
            try Self.timeline([2, 4, 6, 8]).applying(TimelineEdit(reverse: true, boomerang: true)),
            sources: [3, 2, 1, 0, 1, 2], delays: [8, 6, 4, 2, 4, 6], starts: [0, 8, 14, 18, 20, 24], tick: 2, duration: 30)
    }

    @Test func cutThenBoomerangThenSpeed() throws {
        // Cut [25, 75): sources 1 2 3, delays 25 10 15. Boomerang: 1 2 3 2, delays 25 10 15 10, starts 0 25 35 50,
        // end 60. Speed 3/2 (×2/3): 0, 16.67→17, 23.33→23, 33.33→33, end 40.
        let edited = try base.applying(TimelineEdit(from: 25, to: 75, speed: Rational(3, 2), boomerang: true))
        Self.check(edited, sources: [1, 2, 3, 2], delays: [17, 6, 10, 7], starts: [0, 17, 23, 33], tick: 1, duration: 40)
    }

    @Test func cutThenReverseThenSpeedTwo() throws {
        // Cut [10, 95): 0 keeps 10, 1: 30, 2: 10, 3: 35. Reverse: 3 2 1 0 with 35 10 30 10, starts 0 35 45 75,
        // end 85. Halved: 0, 17.5→18, 22.5→23, 37.5→38, end 42.5→43.
        let edited = try base.applying(TimelineEdit(from: 10, to: 95, speed: Rational(2), reverse: true))
        Self.check(edited, sources: [3, 2, 1, 0], delays: [18, 5, 15, 5], starts: [0, 18, 23, 38], tick: 1, duration: 43)
    }

    @Test func cropChangesTheCanvasOnly() throws {
        let edited = try base.applying(TimelineEdit(crop: PixelRect(x: 10, y: 5, width: 30, height: 25)))
        #expect(edited.timeline.canvas == CanvasSize(width: 30, height: 25))
        #expect(edited.timeline.frames == base.frames)
        #expect(edited.timeline.duration == base.duration)
        // The whole canvas is a crop too; one pixel more is outside.
        #expect(try base.applying(TimelineEdit(crop: PixelRect(x: 0, y: 0, width: 40, height: 30))).timeline.canvas
            == base.canvas)
        #expect(throws: TimelineEditError.cropOutside(PixelRect(x: 1, y: 0, width: 40, height: 30), canvas: base.canvas)) {
            try base.applying(TimelineEdit(crop: PixelRect(x: 1, y: 0, width: 40, height: 30)))
        }
        #expect(throws: TimelineEditError.cropOutside(PixelRect(x: 0, y: 25, width: 4, height: 6), canvas: base.canvas)) {
            try base.applying(TimelineEdit(crop: PixelRect(x: 0, y: 25, width: 4, height: 6)))
        }
        #expect(throws: TimelineEditError.emptyCrop(PixelRect(x: 0, y: 0, width: 0, height: 6))) {
            try base.applying(TimelineEdit(crop: PixelRect(x: 0, y: 0, width: 0, height: 6)))
        }
    }

    @Test func browserPolicyResolvesFirst() throws {
        // Raw 20 -: flanimated 20 20 (end 40); browser 20 10 (end 30). Cut [15, 35) clamps differently.
        let flan = try Self.timeline([20, nil]).applying(TimelineEdit(from: 15, to: 35))
        Self.check(flan, sources: [0, 1], delays: [5, 15], starts: [0, 5], tick: 5, duration: 20)
        let browser = try Self.timeline([20, nil], policy: .browser).applying(TimelineEdit(from: 15, to: 35))
        Self.check(browser, sources: [0, 1], delays: [5, 10], starts: [0, 5], tick: 5, duration: 15)
        #expect(browser.timeline.policy == .browser)
    }

    @Test func editRoundTripsThroughCodable() throws {
        let edit = TimelineEdit(from: 5, to: 80, speed: Rational(3, 2), reverse: true, boomerang: true,
                                crop: PixelRect(x: 1, y: 2, width: 3, height: 4))
        let data = try JSONEncoder().encode(edit)
        #expect(try JSONDecoder().decode(TimelineEdit.self, from: data) == edit)
    }
}

import Foundation
