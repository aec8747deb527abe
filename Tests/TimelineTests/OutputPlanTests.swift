import Testing
import GifxTimeline

/// Delays `pattern` repeated `times` times.
private func repeated(_ pattern: [Int], _ times: Int) -> [Int] {
    (0..<times).flatMap { _ in pattern }
}

/// Placements of every GIF frame: (first timestamp, samples, units each).
private func placements(_ plan: OutputPlan, _ timeline: Timeline) -> [[Int]] {
    timeline.frames.indices.map {
        let p = plan.placement(of: $0, in: timeline)
        return [p.firstTimestamp, p.samples, p.unitsEach]
    }
}

/// The output plan (issue 14): every mode from one place, checked against hand-computed expectations.
@Suite struct OutputPlanTests {
    // MARK: default: CFR at the tick, exactly as before

    @Test("tick: delay/tick repeats, consecutive timestamps, duration exact", arguments: [
        [3, 6, 9], [10, 3000, 10], [2, 3], [4, 6], [70, 5, 5, 5, 10, 10, 2, 3, 3, 4],
    ])
    func tickReproducesToday(_ delays: [Int]) {
        let timeline = Timeline(input(delays))
        let tick = delays.reduce(0, gcd)
        let plan = OutputPlan(timeline: timeline, request: .tick)
        #expect(plan.kind == .cfr)
        #expect(plan.rate == Rational(100, tick))
        #expect(plan.timeBase == Rational(tick, 100))
        // Frame i starts at tick unit start_i / tick and lasts delay_i / tick units.
        let expected = zip(prefixStarts(delays), delays).map { [$0 / tick, $1 / tick, 1] }
        #expect(placements(plan, timeline) == expected)
        #expect(plan.outputFrames == delays.reduce(0, +) / tick)
        #expect(plan.worstStartError == Rational(0) && plan.worstStartErrorMicroseconds == 0)
        #expect(plan.framesNeverShown == 0)
        #expect(plan.duration == Rational(delays.reduce(0, +)))
        #expect(plan.peakRate == Rational(100, tick))
    }

    // MARK: --fps auto

    @Test("auto on 3/3/4 (30 fps exports): 30 fps, one video frame per GIF frame, worst error 2/3 cs")
    func autoThirty() {
        let delays = repeated([3, 3, 4], 10)  // 100 cs
        let timeline = Timeline(input(delays))
        #expect(timeline.tick.units == 1)
        let plan = OutputPlan(timeline: timeline, request: .auto)
        #expect(plan.rate == Rational(30))
        #expect(plan.outputFrames == 30)
        // Frame at 3 cs → output 1 at 3.33 cs; at 6 cs → output 2 at 6.67 cs (error 2/3 cs = 6,667 µs).
        #expect(placements(plan, timeline) == (0..<30).map { [$0, 1, 1] })
        #expect(plan.worstStartError == Rational(2, 3))
        #expect(plan.worstStartErrorMicroseconds == 6667)
        #expect(plan.framesNeverShown == 0)
        #expect(plan.outputStart(of: 2, in: timeline) == Rational(20, 3))
        #expect(plan.startError(of: 1, in: timeline) == Rational(1, 3))
        #expect(plan.duration == Rational(100))
    }

    @Test("auto on 6/7/7 (15 fps screen recordings): 15 fps, one video frame per GIF frame")
    func autoFifteen() {
        let delays = repeated([6, 7, 7], 10)  // 200 cs
        let timeline = Timeline(input(delays))
        let plan = OutputPlan(timeline: timeline, request: .auto)
        // 12 fps puts 6 cs at 8.33 (23 ms late), 100/8 at 8, 100/7 has 26 → 28; 15 fps: 6 → 6.67, 13 → 13.33.
        #expect(plan.rate == Rational(15))
        #expect(plan.outputFrames == 30)
        #expect(placements(plan, timeline) == (0..<30).map { [$0, 1, 1] })
        #expect(plan.worstStartError == Rational(2, 3))
        #expect(plan.framesNeverShown == 0)
    }

    @Test("auto accepts exactly 10 ms: 20/-/4/5 cs (a missing GCE) is 20 fps with a 1 cs error")
    func autoAtTheTolerance() {
        // Raw 20, -, 4, 5: carried → 20, 20, 4, 5; starts 0, 20, 40, 44; 49 cs; tick 1.
        let timeline = Timeline(input([20, nil, 4, 5]))
        #expect(timeline.frames.map(\.delay) == [20, 20, 4, 5])
        let plan = OutputPlan(timeline: timeline, request: .auto)
        // 15 fps: 44 → 46.67 (too late); 100/7: 40 → 42; 10 fps: 44 → 50; 20 fps: 44 → 45, exactly 10 ms,
        // and round(49 × 20 / 100) = 10 frames end at 50 cs, 10 ms after the GIF.
        #expect(plan.rate == Rational(20))
        #expect(plan.worstStartError == Rational(1))
        #expect(plan.worstStartErrorMicroseconds == 10_000)
        #expect(plan.outputFrames == 10)
        #expect(placements(plan, timeline) == [[0, 4, 1], [4, 4, 1], [8, 1, 1], [9, 1, 1]])
    }

    @Test("auto counts the end: 20/20/4/4 cs fits 20 fps at every start but would end 20 ms late, so 25 (tick)")
    func autoChecksTheEnd() {
        let timeline = Timeline(input([20, nil, 4, nil]))  // 20 20 4 4: 48 cs, tick 4
        let plan = OutputPlan(timeline: timeline, request: .auto)
        // 20 fps: round(9.6) = 10 frames = 50 cs, 2 cs late; 19.98 fps: 44 → 45.05; so the tick, 25 fps.
        #expect(plan.rate == Rational(25))
        #expect(plan.outputFrames == 12)
    }

    @Test("auto on 7–9 cs with long pauses: 50 fps (every start within 1 cs), half of the tick's frames")
    func autoScreenRecording() {
        let delays = [7, 8, 9, 150, 7, 8, 9, 50, 8, 7]  // starts 0 7 15 24 174 181 189 198 248 256; 263 cs
        let timeline = Timeline(input(delays))
        #expect(timeline.tick.units == 1)
        let plan = OutputPlan(timeline: timeline, request: .auto)
        // 25 fps: 174 → 176 (2 cs); 30: 7 → 10; 100/3: 7 → 9; 50 fps (2 cs grid): odd starts 1 cs late.
        #expect(plan.rate == Rational(50))
        #expect(plan.outputFrames == 132)  // round(131.5), half up
        #expect(plan.worstStartError == Rational(1))
        #expect(plan.framesNeverShown == 0)
        let firsts = [0, 4, 8, 12, 87, 91, 95, 99, 124, 128]  // ceil(start / 2)
        #expect(placements(plan, timeline).map { $0[0] } == firsts)
        #expect(placements(plan, timeline).map { $0[1] } == zip(firsts, firsts.dropFirst() + [132]).map { $1 - $0 })
    }

    @Test("auto with 0/1 cs delays (10 cs each) and 5 cs: 10 fps would end 5 cs late, so the tick (20 fps)")
    func autoFallsBackToTick() {
        let timeline = Timeline(input([0, 1, 5]))
        let plan = OutputPlan(timeline: timeline, request: .auto)
        #expect(plan.rate == Rational(20))
        #expect(placements(plan, timeline) == [[0, 2, 1], [2, 2, 1], [4, 1, 1]])
        #expect(plan.reason == .automaticTick(units: 5))
    }

    @Test("auto on a single frame: no candidate at or below 2 fps, so the tick; VFR one 50 cs sample")
    func singleFrame() {
        let timeline = Timeline(input([50]))
        let auto = OutputPlan(timeline: timeline, request: .auto)
        #expect(auto.rate == Rational(2))
        #expect(auto.outputFrames == 1)
        let vfr = OutputPlan(timeline: timeline, request: .vfr)
        #expect(placements(vfr, timeline) == [[0, 1, 50]])
        #expect(vfr.peakRate == Rational(2))
    }

    @Test("auto on a 29.97 fps source longer than 10 s picks 30000/1001, where 30 drifts past 10 ms")
    func autoNTSC() {
        // Frame k of a 29.97 fps video starts at round(k · 100 · 1001 / 30000) cs (nearest cs, half up).
        let starts = (0...600).map { k in (2 * k * 100_100 + 30_000) / 60_000 }
        let delays = zip(starts, starts.dropFirst()).map { $1 - $0 }
        let plan = OutputPlan(timeline: Timeline(input(delays)), request: .auto)
        #expect(plan.rate == Rational(30_000, 1001))
        #expect(plan.framesNeverShown == 0)
        #expect(plan.outputFrames == 600)
    }

    // MARK: --fps N

    @Test("fixed rate over 10,000 frames: placements equal a brute-force scan, no drift")
    func fixedRateNoDrift() {
        let delays = (0..<10_000).map { [7, 3, 2, 10, 13][$0 % 5] }
        let starts = prefixStarts(delays)
        let timeline = Timeline(input(delays))
        for rate in [Rational(30), Rational(30_000, 1001), Rational(24), Rational(1, 7)] {
            let plan = OutputPlan(timeline: timeline, request: .rate(rate))
            // Brute force: output k at 100·k·den/num cs shows the last frame with start·num <= 100·k·den.
            var counts = [Int](repeating: 0, count: delays.count)
            var firsts = [Int](repeating: -1, count: delays.count)
            var i = 0
            for k in 0..<plan.outputFrames {
                while i + 1 < delays.count && starts[i + 1] * rate.num <= 100 * k * rate.den { i += 1 }
                if firsts[i] < 0 { firsts[i] = k }
                counts[i] += 1
            }
            var worst = Rational(0)
            var neverShown = 0
            for index in delays.indices {
                let p = plan.placement(of: index, in: timeline)
                #expect(p.samples == counts[index])
                if counts[index] > 0 {
                    #expect(p.firstTimestamp == firsts[index])
                    let error = Rational(100 * firsts[index] * rate.den - starts[index] * rate.num, rate.num)
                    if error.num * worst.den > worst.num * error.den { worst = error }
                } else {
                    neverShown += 1
                }
            }
            #expect(plan.worstStartError == worst, "rate \(rate)")
            #expect(plan.framesNeverShown == neverShown, "rate \(rate)")
            #expect(counts.reduce(0, +) == plan.outputFrames)
        }
    }

    // MARK: --max-fps

    @Test("max-fps 20 on 3/3/4: 20 fps (worst 4 cs ties 15 fps, fewer dropped), one frame in three dropped")
    func maxFPS() {
        let delays = repeated([3, 3, 4], 10)
        let timeline = Timeline(input(delays))
        let plan = OutputPlan(timeline: timeline, request: .auto, maxRate: Rational(20))
        // auto gives 30 > 20. At 20 fps (5 cs): 3 → 5 (2 cs), the frame at 6 never shown (next instant 10).
        #expect(plan.rate == Rational(20))
        #expect(plan.mode == "auto+max-fps")
        #expect(plan.outputFrames == 20)
        #expect(plan.framesNeverShown == 10)
        #expect(plan.worstStartError == Rational(2))
        #expect(placements(plan, timeline).prefix(3) == [[0, 1, 1], [1, 1, 1], [2, 0, 1]])
    }

    @Test("max-fps on 2 cs frames (50 fps) at most 25: 25 fps, every other frame dropped")
    func maxFPSHalves() {
        let timeline = Timeline(input(repeated([2], 10)))
        let plan = OutputPlan(timeline: timeline, request: .tick, maxRate: Rational(25))
        #expect(plan.rate == Rational(25))
        #expect(plan.outputFrames == 5)
        #expect(plan.framesNeverShown == 5)
        #expect(plan.worstStartError == Rational(0))
    }

    @Test("max-fps above the chosen rate changes nothing")
    func maxFPSNotNeeded() {
        let timeline = Timeline(input(repeated([3, 3, 4], 10)))
        let plan = OutputPlan(timeline: timeline, request: .auto, maxRate: Rational(60))
        #expect(plan.rate == Rational(30))
        #expect(plan.mode == "auto")
    }

    // MARK: --vfr

    @Test("vfr: one sample per GIF frame at its start, lasting its delay, time base 1/100")
    func vfr() {
        let timeline = Timeline(input([3, 3, 4, 0, nil, 150]))  // 3 3 4 10 10 150
        let plan = OutputPlan(timeline: timeline, request: .vfr)
        #expect(plan.kind == .vfr && plan.rate == nil)
        #expect(plan.timeBase == Rational(1, 100))
        #expect(placements(plan, timeline) == [[0, 1, 3], [3, 1, 3], [6, 1, 4], [10, 1, 10], [20, 1, 10], [30, 1, 150]])
        #expect(plan.outputFrames == 6)
        #expect(plan.peakRate == Rational(100, 3))
        #expect(plan.unitsPerPlay == 180)
        #expect(plan.worstStartError == Rational(0) && plan.framesNeverShown == 0)
    }
}
