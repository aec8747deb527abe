import Testing
import GifxTimeline

/// `--fps N` resampling (timeline.md §2): output frame k at time k/N s shows the frame whose interval holds
/// it; round(duration * N) frames, at least 1; no drift over 10,000 frames. Checked in exact integers.
@Suite struct ResampleTests {
    /// 10,000 frames cycling 7, 3, 2, 10, 13 cs: 2,000 cycles of 35 cs = 70,000 cs = 700 s.
    static let longDelays: [Int] = (0..<10_000).map { [7, 3, 2, 10, 13][$0 % 5] }

    /// (rate, expected output frames): 700 s × 30 = 21,000; 700 × 30000/1001 = 20,979.02 → 20,979;
    /// 700 × 24 = 16,800; 700 × 1/7 = 100.
    static let rates: [(num: Int, den: Int, frames: Int)] = [
        (30, 1, 21_000), (30_000, 1001, 20_979), (24, 1, 16_800), (1, 7, 100),
    ]

    @Test(arguments: 0..<rates.count)
    func tenThousandFramesWithoutDrift(_ row: Int) {
        let (num, den, expectedFrames) = Self.rates[row]
        let rate = Rational(num, den)
        let delays = Self.longDelays
        let starts = prefixStarts(delays)
        let duration = 70_000
        let timeline = Timeline(input(delays))
        #expect(timeline.duration.units == duration)

        let count = timeline.outputFrameCount(at: rate)
        #expect(count == expectedFrames)
        // |count/N − duration| < 1/N s; in units of 1/(100·num) s: |100·count·den − duration·num| < 100·den.
        #expect(abs(100 * count * den - duration * num) < 100 * den)

        // Output frame k is at k·den/num s = 100·k·den/num cs; frame i holds it when
        // start_i·num <= 100·k·den < (start_i + delay_i)·num.
        var expectedRepeats = [Int](repeating: 0, count: delays.count)
        var failures = 0
        for k in 0..<count {
            let i = timeline.frameIndex(forOutputFrame: k, at: rate)
            let time = 100 * k * den
            if !(starts[i] * num <= time && time < (starts[i] + delays[i]) * num) { failures += 1 }
            expectedRepeats[i] += 1
        }
        #expect(failures == 0, "\(failures) output frames show a frame whose interval does not hold their time")
        let repeats = timeline.repeatCounts(at: rate)
        #expect(repeats == expectedRepeats)
        #expect(repeats.reduce(0, +) == count)
    }

    @Test func frameCountRoundsHalfUpAndIsAtLeastOne() {
        // 5 cs at 30 fps: 1.5 frames → 2. 1 frame of 10 cs at 1 fps: 0.1 → 0 → at least 1.
        let short = Timeline(input([5]))
        #expect(short.outputFrameCount(at: Rational(30)) == 2)
        #expect(short.repeatCounts(at: Rational(30)) == [2])
        let tiny = Timeline(input([10]))
        #expect(tiny.outputFrameCount(at: Rational(1)) == 1)
        #expect(tiny.repeatCounts(at: Rational(1)) == [1])
        // 10 + 10 cs at 10 fps: exactly one output frame per GIF frame.
        #expect(Timeline(input([10, 10])).repeatCounts(at: Rational(10)) == [1, 1])
        // 2 + 2 + 36 cs at 10 fps: outputs at 0, 10, 20, 30 cs all fall in frame 0 or 2; frame 1 is skipped.
        let skipped = Timeline(input([2, 2, 36]))
        #expect(skipped.repeatCounts(at: Rational(10)) == [1, 0, 3])
        #expect((0..<4).map { skipped.frameIndex(forOutputFrame: $0, at: Rational(10)) } == [0, 2, 2, 2])
    }
}

/// Exact rates.
@Suite struct RationalTests {
    @Test func reducesWithPositiveDenominator() {
        let r = Rational(200, 6)
        #expect(r.num == 100 && r.den == 3)
        let negative = Rational(3, -9)
        #expect(negative.num == -1 && negative.den == 3)
        #expect(Rational(100, 10) == Rational(10))
        #expect(Rational(100, 3).description == "100/3")
        #expect(Rational(50).description == "50")
        #expect(Rational(30_000, 1001).doubleValue == 30_000.0 / 1001.0)
    }
}
