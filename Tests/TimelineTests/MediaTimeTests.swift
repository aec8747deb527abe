import GifxTimeline
import Testing

/// `MediaTime` (issue 57): exact, reduced, rounded to a container's unit in one place, and an overflow is an
/// error, never a wrap. Expected values are worked by hand.
@Suite struct MediaTimeTests {
    @Test func reducesAndCompares() {
        #expect(MediaTime(250, timescale: 1000) == MediaTime(1, timescale: 4))
        #expect(MediaTime(250, timescale: 1000).timescale == 4)
        #expect(MediaTime(0, timescale: 90_000) == .zero)
        #expect(MediaTime(1, timescale: 3) < MediaTime(334, timescale: 1000))
        #expect(!(MediaTime(1, timescale: 3) < MediaTime(333, timescale: 1000)))
        // Cross-multiplication that overflows 64 bits still compares right (double width).
        #expect(MediaTime(Int.max, timescale: Int.max - 1) > MediaTime(Int.max - 1, timescale: Int.max))
        #expect(MediaTime(24, timescale: 100).description == "6/25 s")
    }

    @Test func roundsToTheNearestUnitHalvesAwayFromZero() throws {
        #expect(try MediaTime(24, timescale: 100).microseconds() == 240_000)
        #expect(try MediaTime(760, timescale: 3000).microseconds() == 253_333)  // 253 333.3
        #expect(try MediaTime(2, timescale: 3).microseconds() == 666_667)  // 666 666.6
        #expect(try MediaTime(1, timescale: 2000).milliseconds() == 1)  // 0.5 ms: half away from zero
        #expect(try MediaTime(-1, timescale: 2000).milliseconds() == -1)
        #expect(try MediaTime(1, timescale: 3000).milliseconds() == 0)
        #expect(try MediaTime(7, timescale: 30).rounded(toUnitsPerSecond: 90_000) == 21_000)
    }

    @Test func arithmeticIsExactAndOverflowThrows() throws {
        #expect(try MediaTime(1, timescale: 30).multiplied(by: 3) == MediaTime(1, timescale: 10))
        #expect(try MediaTime.adding(MediaTime(1, timescale: 30), MediaTime(7, timescale: 100)) == MediaTime(31, timescale: 300))
        #expect(throws: MediaTimeOverflow.self) { try MediaTime(Int.max / 2, timescale: 1).multiplied(by: 3) }
        #expect(throws: MediaTimeOverflow.self) { try MediaTime(Int.max / 1000, timescale: 1).microseconds() }
        #expect(throws: MediaTimeOverflow.self) {
            try MediaTime.adding(MediaTime(Int.max, timescale: 1), MediaTime(1, timescale: 1))
        }
    }

    /// One play of a WebP (ms units) and of an APNG (1/3000 s units), at the tick and as VFR: the plan's duration
    /// in seconds, whatever the timeline's units (the streamed header read them as cs before).
    @Test func aPlanDeclaresOnePlayInSecondsWhateverTheUnits() {
        func input(_ format: SourceFormat, _ delays: [(Int, UInt16)]) -> TimelineInput {
            var input = TimelineInput(
                canvas: CanvasSize(width: 4, height: 4), loopCount: 0,
                frames: delays.map { FrameDescriptor(rawDelay: $0.0, rect: PixelRect(x: 0, y: 0, width: 4, height: 4)) })
            input.format = format
            if format == .apng { input.delayDenominators = delays.map(\.1) }
            return input
        }
        let webp = Timeline(input(.webp, [(40, 0), (70, 0), (30, 0), (100, 0)]), policy: .flanimated)
        let apng = Timeline(input(.apng, [(1, 30), (7, 100), (0, 0), (1, 20)]), policy: .flanimated)
        for request in [OutputPlan.Request.tick, .vfr] {
            #expect(OutputPlan(timeline: webp, request: request).playDuration == MediaTime(24, timescale: 100))
            // 33⅓ + 70 + 100 (0 s → 0.1 s) + 50 ms = 253⅓ ms.
            #expect(OutputPlan(timeline: apng, request: request).playDuration == MediaTime(19, timescale: 75))
        }
        #expect(webp.playDuration == MediaTime(6, timescale: 25))
        #expect(apng.playDuration == MediaTime(19, timescale: 75))
    }

    /// The conversions the readers and writers share: whole cs (the JSON fields in cs), ms as a double (the
    /// verifier's figures), and decimal seconds (X-Gifx-Timeline), each against values worked by hand.
    @Test func centisecondsMillisecondsAndDecimalSeconds() throws {
        #expect(try MediaTime(1, timescale: 30).centiseconds() == 3)      // 3.33 cs
        #expect(try MediaTime(2, timescale: 30).centiseconds() == 7)      // 6.67 cs
        #expect(try MediaTime(25, timescale: 1000).centiseconds() == 3)   // 2.5 cs: halves away from zero
        #expect(MediaTime(3, timescale: 100).approximateMilliseconds == 30)
        #expect(MediaTime(1, timescale: 30).approximateMilliseconds == 1000.0 / 30)
        #expect(try MediaTime(28, timescale: 100).decimalSeconds() == "0.28")
        #expect(try MediaTime(245, timescale: 1000).decimalSeconds() == "0.245")
        #expect(try MediaTime(1, timescale: 30).decimalSeconds() == "0.033333")
        #expect(try MediaTime(2, timescale: 3).decimalSeconds() == "0.666667")
        #expect(try MediaTime(5, timescale: 1).decimalSeconds() == "5.00")
        #expect(try MediaTime(5, timescale: 1).decimalSeconds(minimumPlaces: 0) == "5")
        #expect(try MediaTime(-1, timescale: 4).decimalSeconds() == "-0.25")
        #expect(throws: MediaTimeOverflow.self) { try MediaTime(Int.max, timescale: 1).decimalSeconds() }
    }
}
