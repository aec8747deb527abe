import Testing
import GifxTimeline

/// Schedules with raw delays >= 2 cs: the resolved delays are the raw ones (timeline.md §1), so the
/// expected starts and ticks below are computed from the delays alone, independently of `Timeline`.
let cfrSchedules: [[Int]] = [
    [10, 10, 10],
    [4, 6],
    [70, 5, 5, 5, 2, 3, 4],
    [6, 9, 12, 3, 300],
    [65535, 5],
    [7, 3, 2, 10, 13, 7, 3, 2, 10, 13],
    [50],
]

/// Greatest common divisor, the test's own.
func referenceGCD(_ values: [Int]) -> Int {
    values.reduce(0) { a, b in
        var (x, y) = (a, b)
        while y != 0 { (x, y) = (y, x % y) }
        return x
    }
}

/// CFR output at the tick (timeline.md §2): frame k shows GIF frame i with start_i <= k*tick < start_i + delay_i.
@Suite struct CFRMappingTests {
    @Test(arguments: cfrSchedules)
    func everyOutputFrameAtTheTickShowsTheFrameWhoseIntervalHoldsIt(_ delays: [Int]) {
        let timeline = Timeline(input(delays))
        let tick = referenceGCD(delays)
        let starts = prefixStarts(delays)
        let duration = delays.reduce(0, +)
        #expect(timeline.tick.units == tick)
        let count = timeline.outputFrameCount(at: timeline.tickRate)
        #expect(count == duration / tick)
        for k in 0..<count {
            let i = timeline.frameIndex(forOutputFrame: k, at: timeline.tickRate)
            #expect(starts[i] <= k * tick && k * tick < starts[i] + delays[i], "k=\(k) shows frame \(i)")
        }
    }

    @Test(arguments: cfrSchedules)
    func repeatCountsAreDelayOverTick(_ delays: [Int]) {
        let timeline = Timeline(input(delays))
        let tick = referenceGCD(delays)
        let counts = timeline.repeatCounts(at: timeline.tickRate)
        #expect(counts == delays.map { $0 / tick })
        #expect(counts.reduce(0, +) == timeline.outputFrameCount(at: timeline.tickRate))
    }

    /// Carried and rounded-up delays take part in the tick like raw ones: row 1 of §5 at 1 cs.
    @Test func mixedRulesMapAtTheTick() {
        let timeline = Timeline(input([70, 5, 5, 5, 0, 1, 2, 3, nil, 4]))
        let delays = [70, 5, 5, 5, 10, 10, 2, 3, 3, 4]
        let starts = prefixStarts(delays)
        #expect(timeline.outputFrameCount(at: timeline.tickRate) == 117)
        for k in 0..<117 {
            let i = timeline.frameIndex(forOutputFrame: k, at: timeline.tickRate)
            #expect(starts[i] <= k && k < starts[i] + delays[i], "k=\(k) shows frame \(i)")
        }
        #expect(timeline.repeatCounts(at: timeline.tickRate) == delays)
    }
}
