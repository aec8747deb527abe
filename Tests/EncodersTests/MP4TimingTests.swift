import GifxEncoders
import Foundation
import GifFixtures
import Testing
import GifxTimeline

/// Each output frame's colour, from the fixture's construction: colour `i` shown `resolvedDelays[i] / tick` times.
private func schedule(_ colours: [UInt8], resolvedDelays: [Int], tick: Int) -> [RGB] {
    zip(colours, resolvedDelays).flatMap { Array(repeating: palette($0), count: $1 / tick) }
}

/// Asserts the frame count (container and decoded), rates, exact duration and every frame's colour.
private func expectVideo(
    _ run: MP4Run, colours expected: [RGB], fps: String, durationCentiseconds: Int,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(run.stream.nb_frames == "\(expected.count)", sourceLocation: sourceLocation)
    #expect(run.stream.nb_read_frames == "\(expected.count)", sourceLocation: sourceLocation)
    #expect(run.frames.count == expected.count, sourceLocation: sourceLocation)
    #expect(run.summary.outputFrames == expected.count, sourceLocation: sourceLocation)
    #expect(run.stream.r_frame_rate == fps, sourceLocation: sourceLocation)
    #expect(run.stream.avg_frame_rate == fps, sourceLocation: sourceLocation)
    #expect(run.stream.durationCentiseconds == durationCentiseconds, sourceLocation: sourceLocation)
    #expect(run.stream.start_time.flatMap(Double.init) == 0, sourceLocation: sourceLocation)
    for (k, (frame, colour)) in zip(run.frames, expected).enumerated() {
        #expect(close(frame.centre, colour), "frame \(k): \(frame.centre) vs \(colour)", sourceLocation: sourceLocation)
    }
}

@Suite("MP4 timing (decoded with ffmpeg)", .enabled(if: MP4Oracle.available, "ffmpeg/ffprobe not installed"))
struct MP4TimingTests {
    @Test("tick 3 cs: 100/3 fps, each frame repeated delay/3 times, exact duration")
    func tickThree() throws {
        let gif = FixtureGIF.solidFrames(width: 16, height: 16, colorIndices: [1, 2, 3], delays: [3, 6, 9])
        let run = try convertFixture(gif)
        #expect(run.result.frameRate == Rational(100, 3))
        expectVideo(
            run, colours: schedule([1, 2, 3], resolvedDelays: [3, 6, 9], tick: 3), fps: "100/3",
            durationCentiseconds: 18)
    }

    @Test("0 and 1 cs delays become 10 cs")
    func zeroAndOneCentisecond() throws {
        let gif = FixtureGIF.solidFrames(width: 16, height: 16, colorIndices: [1, 2, 3], delays: [0, 1, 5])
        let run = try convertFixture(gif)
        expectVideo(
            run, colours: schedule([1, 2, 3], resolvedDelays: [10, 10, 5], tick: 5), fps: "20/1",
            durationCentiseconds: 25)
    }

    @Test("a frame without GCE carries the previous delay over")
    func missingGCECarriesOver() throws {
        let gif = FixtureGIF.solidFrames(
            width: 16, height: 16, colorIndices: [1, 2, 3, 4], delays: [20, nil, 4, nil])
        let run = try convertFixture(gif)
        expectVideo(
            run, colours: schedule([1, 2, 3, 4], resolvedDelays: [20, 20, 4, 4], tick: 4), fps: "25/1",
            durationCentiseconds: 48)
    }

    @Test("tick 1 cs: 100 fps")
    func tickOne() throws {
        let gif = FixtureGIF.solidFrames(width: 16, height: 16, colorIndices: [5, 6], delays: [2, 3])
        let run = try convertFixture(gif)
        expectVideo(
            run, colours: schedule([5, 6], resolvedDelays: [2, 3], tick: 1), fps: "100/1", durationCentiseconds: 5)
    }

    @Test("a 30 s pause is 300 repeated frames at 10 fps")
    func thirtySecondPause() throws {
        let gif = FixtureGIF.solidFrames(width: 8, height: 8, colorIndices: [1, 2, 3], delays: [10, 3000, 10])
        let run = try convertFixture(gif)
        expectVideo(
            run, colours: schedule([1, 2, 3], resolvedDelays: [10, 3000, 10], tick: 10), fps: "10/1",
            durationCentiseconds: 3020)
    }

    @Test("--fps 30 on a 7 cs GIF samples the frame shown at k/30 s")
    func resampledToThirty() throws {
        let gif = FixtureGIF.solidFrames(width: 16, height: 16, colorIndices: [1, 2, 3], delays: [7, 7, 7])
        let run = try convertFixture(gif, options: VideoSettings(frameRate: Rational(30)))
        // 21 cs at 30 fps: round(6.3) = 6 frames; frame k is at 100k/30 cs, inside GIF frame floor(that / 7).
        let expected = (0..<6).map { k in palette([1, 2, 3][min(2, (100 * k) / (30 * 7))]) }
        expectVideo(run, colours: expected, fps: "30/1", durationCentiseconds: 20)
    }

    @Test("--loops 3 writes the schedule three times")
    func threeLoops() throws {
        let gif = FixtureGIF.solidFrames(width: 16, height: 16, colorIndices: [1, 2], delays: [5, 10])
        let run = try convertFixture(gif, options: VideoSettings(loops: 3))
        let once = schedule([1, 2], resolvedDelays: [5, 10], tick: 5)
        expectVideo(run, colours: once + once + once, fps: "20/1", durationCentiseconds: 45)
        #expect(run.summary.canvases == 6)
    }

    @Test("low-memory settings (sliced threads, 1 B-frame, 1 reference) keep the exact schedule")
    func lowMemoryKeepsTiming() throws {
        let gif = FixtureGIF.solidFrames(width: 16, height: 16, colorIndices: [1, 2, 3, 4], delays: [3, 6, 9, 3])
        // The old path (repeats encoded again) keeps the level's 1 B-frame; with repeat pictures there are none.
        for encodeRepeats in [true, false] {
            let run = try convertFixture(
                gif, options: VideoSettings(lowMemory: true), encodeRepeats: encodeRepeats, name: "lowMemory\(encodeRepeats)")
            #expect(run.result.tuning.lowMemory)
            #expect(run.result.tuning.params.contains(encodeRepeats ? "bframes=1" : "bframes=0"))
            expectVideo(
                run, colours: schedule([1, 2, 3, 4], resolvedDelays: [3, 6, 9, 3], tick: 3), fps: "100/3",
                durationCentiseconds: 21)
        }
    }
}
