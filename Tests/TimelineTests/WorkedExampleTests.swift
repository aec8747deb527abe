import Testing
import GifxTimeline

/// One row of the worked-example table (timeline.md §5), with every value written out by hand.
struct WorkedExample: Sendable, CustomTestStringConvertible {
    var raw: [Int?]
    var policy: TimelinePolicy
    var delays: [Int]
    var rules: [DelayRule]
    var starts: [Int]
    var tick: Int
    var fps: (num: Int, den: Int)
    var duration: Int
    var cfrFrames: Int

    var testDescription: String {
        "\(raw.map { $0.map(String.init) ?? "-" }.joined(separator: " ")) (\(policy.rawValue))"
    }
}

let workedExamples: [WorkedExample] = [
    // Row 1: 70 5 5 5 0 1 2 3 - 4.
    WorkedExample(
        raw: [70, 5, 5, 5, 0, 1, 2, 3, nil, 4], policy: .flanimated,
        delays: [70, 5, 5, 5, 10, 10, 2, 3, 3, 4],
        rules: [.raw, .raw, .raw, .raw, .roundedUp, .roundedUp, .raw, .raw, .carried, .raw],
        starts: [0, 70, 75, 80, 85, 95, 105, 107, 110, 113], tick: 1, fps: (100, 1), duration: 117, cfrFrames: 117),
    // Browser: the frame without GCE gets 10 cs instead of carrying 3 cs over: 117 - 3 + 10 = 124.
    WorkedExample(
        raw: [70, 5, 5, 5, 0, 1, 2, 3, nil, 4], policy: .browser,
        delays: [70, 5, 5, 5, 10, 10, 2, 3, 10, 4],
        rules: [.raw, .raw, .raw, .raw, .roundedUp, .roundedUp, .raw, .raw, .default, .raw],
        starts: [0, 70, 75, 80, 85, 95, 105, 107, 110, 120], tick: 1, fps: (100, 1), duration: 124, cfrFrames: 124),
    // Row 2: 10 10 10, the same under both policies.
    WorkedExample(
        raw: [10, 10, 10], policy: .flanimated, delays: [10, 10, 10], rules: [.raw, .raw, .raw],
        starts: [0, 10, 20], tick: 10, fps: (10, 1), duration: 30, cfrFrames: 3),
    WorkedExample(
        raw: [10, 10, 10], policy: .browser, delays: [10, 10, 10], rules: [.raw, .raw, .raw],
        starts: [0, 10, 20], tick: 10, fps: (10, 1), duration: 30, cfrFrames: 3),
    // Row 3: - - 20: carried under flanimated, default twice under browser (same numbers).
    WorkedExample(
        raw: [nil, nil, 20], policy: .flanimated, delays: [10, 10, 20], rules: [.default, .carried, .raw],
        starts: [0, 10, 20], tick: 10, fps: (10, 1), duration: 40, cfrFrames: 4),
    WorkedExample(
        raw: [nil, nil, 20], policy: .browser, delays: [10, 10, 20], rules: [.default, .default, .raw],
        starts: [0, 10, 20], tick: 10, fps: (10, 1), duration: 40, cfrFrames: 4),
    // Row 4: 4 6.
    WorkedExample(
        raw: [4, 6], policy: .flanimated, delays: [4, 6], rules: [.raw, .raw],
        starts: [0, 4], tick: 2, fps: (50, 1), duration: 10, cfrFrames: 5),
    WorkedExample(
        raw: [4, 6], policy: .browser, delays: [4, 6], rules: [.raw, .raw],
        starts: [0, 4], tick: 2, fps: (50, 1), duration: 10, cfrFrames: 5),
    // Not in the table: a tick of 3 cs is 100/3 fps exactly.
    WorkedExample(
        raw: [3, 6, nil], policy: .flanimated, delays: [3, 6, 6], rules: [.raw, .raw, .carried],
        starts: [0, 3, 9], tick: 3, fps: (100, 3), duration: 15, cfrFrames: 5),
    WorkedExample(
        raw: [3, 6, nil], policy: .browser, delays: [3, 6, 10], rules: [.raw, .raw, .default],
        starts: [0, 3, 9], tick: 1, fps: (100, 1), duration: 19, cfrFrames: 19),
]

@Suite struct WorkedExampleTests {
    @Test(arguments: workedExamples)
    func resolvesTheRow(_ example: WorkedExample) {
        let timeline = Timeline(input(example.raw), policy: example.policy)
        #expect(timeline.policy == example.policy)
        #expect(timeline.frames.map(\.index) == Array(0..<example.raw.count))
        #expect(timeline.frames.map(\.rawDelay) == example.raw)
        #expect(timeline.frames.map(\.delay) == example.delays)
        #expect(timeline.frames.map(\.rule) == example.rules)
        #expect(timeline.frames.map(\.start) == example.starts)
        #expect(timeline.tick.units == example.tick)
        #expect(timeline.tick.fps.num == example.fps.num)
        #expect(timeline.tick.fps.den == example.fps.den)
        #expect(timeline.tickRate == Rational(example.fps.num, example.fps.den))
        #expect(timeline.duration.units == example.duration)
        #expect(timeline.duration.seconds == Double(example.duration) / 100)
        #expect(timeline.outputFrameCount(at: timeline.tickRate) == example.cfrFrames)
    }

    /// The expected starts in the table are the running sums of the expected delays (guards the table).
    @Test(arguments: workedExamples)
    func tableIsSelfConsistent(_ example: WorkedExample) {
        #expect(prefixStarts(example.delays) == example.starts)
        #expect(example.delays.reduce(0, +) == example.duration)
        #expect(example.duration / example.tick == example.cfrFrames)
    }
}
