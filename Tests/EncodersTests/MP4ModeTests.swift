import ChildProcesses
import GifxEncoders
import Foundation
import GifFixtures
import Testing
import GifxTimeline

/// One decoded frame with its presentation time and duration as ffprobe reports them, in cs (exact or nil).
private struct TimedFrame {
    var startCentiseconds: Rational
    var durationCentiseconds: Rational
    var centre: [Int]
}

/// ffprobe's frames (pts, duration, in the stream time base) zipped with ffmpeg's passthrough decode
/// (every frame, none dropped or duplicated, presentation order).
private func timedFrames(_ run: MP4Run) throws -> [TimedFrame] {
    struct Frames: Decodable {
        struct Frame: Decodable { var pts: Int?; var pkt_duration: Int?; var duration: Int? }
        var frames: [Frame]
    }
    let data = try MP4Oracle.run(MP4Oracle.ffprobe!, [
        "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts,pkt_duration,duration", "-of", "json",
        run.path,
    ])
    let frames = try JSONDecoder().decode(Frames.self, from: data).frames
    let base = run.stream.time_base.split(separator: "/").compactMap { Int($0) }
    #expect(frames.count == run.frames.count)
    return zip(frames, run.frames).map { probed, decoded in
        let pts = probed.pts ?? -1
        let duration = probed.duration ?? probed.pkt_duration ?? -1
        return TimedFrame(
            startCentiseconds: Rational(100 * pts * base[0], base[1]),
            durationCentiseconds: Rational(100 * duration * base[0], base[1]), centre: decoded.centre)
    }
}

/// Packets in decode order as ffprobe reports them: (pts, duration) in cs.
private func packets(_ run: MP4Run) throws -> [(pts: Rational, duration: Rational)] {
    struct Packets: Decodable {
        struct Packet: Decodable { var pts: Int; var duration: Int }
        var packets: [Packet]
    }
    let data = try MP4Oracle.run(MP4Oracle.ffprobe!, [
        "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts,duration", "-of", "json", run.path,
    ])
    let base = run.stream.time_base.split(separator: "/").compactMap { Int($0) }
    return try JSONDecoder().decode(Packets.self, from: data).packets.map {
        (Rational(100 * $0.pts * base[0], base[1]), Rational(100 * $0.duration * base[0], base[1]))
    }
}

/// Start of each frame: running sum of the given delays.
private func startsOf(_ delays: [Int]) -> [Int] {
    var time = 0
    return delays.map { delay in
        defer { time += delay }
        return time
    }
}

/// Colour indices 1...7 cycling, so neighbouring frames always differ.
private func cycling(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(1 + $0 % 7) } }

/// Delays `pattern` repeated to `count` frames.
private func delays(_ pattern: [Int], count: Int) -> [Int] { (0..<count).map { pattern[$0 % pattern.count] } }

/// The real-world delay patterns of issue 14 (raw GCE delays; `nil` = no GCE).
private let patterns: [(name: String, raw: [Int?], resolved: [Int])] = [
    ("3/3/4", delays([3, 3, 4], count: 12), delays([3, 3, 4], count: 12)),
    ("6/7/7", delays([6, 7, 7], count: 9), delays([6, 7, 7], count: 9)),
    ("7-9 with pauses", [7, 8, 9, 150, 7, 8, 9, 50, 8, 7], [7, 8, 9, 150, 7, 8, 9, 50, 8, 7]),
    ("0/1 cs", [0, 1, 5, 0], [10, 10, 5, 10]),
    ("missing GCE", [20, nil, 4, nil, 6], [20, 20, 4, 4, 6]),
    ("single frame", [50], [50]),
]

@Suite("MP4 timing modes (decoded with ffmpeg)", .enabled(if: MP4Oracle.available, "ffmpeg/ffprobe not installed"))
struct MP4ModeTests {
    @Test("--vfr: one sample per GIF frame, starts and durations exact to the cs, colours follow", arguments: 0..<6)
    func vfr(_ row: Int) throws {
        let (name, raw, resolved) = patterns[row]
        let colours = cycling(raw.count)
        let gif = FixtureGIF.solidFrames(width: 16, height: 16, colorIndices: colours, delays: raw)
        let run = try convertFixture(gif, options: VideoSettings(timing: .vfr), name: "vfr\(row)")
        let starts = startsOf(resolved)
        let frames = try timedFrames(run)
        #expect(frames.count == raw.count, "\(name)")
        #expect(run.summary.outputFrames == raw.count, "\(name)")
        for (i, frame) in frames.enumerated() {
            #expect(frame.startCentiseconds == Rational(starts[i]), "\(name) frame \(i)")
            #expect(close(frame.centre, palette(colours[i])), "\(name) frame \(i): \(frame.centre)")
        }
        // A frame lasts until the next one starts; the last until the presentation ends (the edit list,
        // ffprobe's format duration): so each lasts exactly its delay.
        let seconds = try #require(run.stream.formatDuration.flatMap(Double.init))
        let total = Int((seconds * 100).rounded())
        #expect(abs(seconds * 100 - Double(total)) < 1e-6)
        let ends = frames.dropFirst().map(\.startCentiseconds) + [Rational(total)]
        for (i, (frame, end)) in zip(frames, ends).enumerated() {
            let duration = Rational(end.num * frame.startCentiseconds.den - frame.startCentiseconds.num * end.den,
                                    end.den * frame.startCentiseconds.den)
            #expect(duration == Rational(resolved[i]), "\(name) frame \(i)")
        }
        #expect(total == resolved.reduce(0, +), "\(name)")
        // Packets (decode order, B-frames reordered) carry exactly the GIF's starts as pts.
        #expect(try packets(run).map(\.pts).sorted { $0.doubleValue < $1.doubleValue } == starts.map { Rational($0) })
        // x264 was opened at the peak rate 100 / shortest delay.
        #expect(run.result.frameRate == Rational(100, resolved.min()!))
    }

    @Test("--vfr with --loops 2: the second play starts exactly at the GIF's duration")
    func vfrLoops() throws {
        let gif = FixtureGIF.solidFrames(width: 16, height: 16, colorIndices: [1, 2, 3], delays: [3, 4, 3])
        let run = try convertFixture(gif, options: VideoSettings(loops: 2, timing: .vfr))
        let frames = try timedFrames(run)
        #expect(frames.map(\.startCentiseconds) == [0, 3, 7, 10, 13, 17].map { Rational($0) })
        #expect(run.stream.durationCentiseconds == 20)
    }

    @Test("--vfr: libx264 got the 1/100 s time base and VFR input (SPS VUI: tick 1/200 s, not fixed rate)")
    func vfrTimestampsReachX264() throws {
        let gif = FixtureGIF.solidFrames(width: 16, height: 16, colorIndices: [1, 2, 3], delays: [3, 4, 150])
        let run = try convertFixture(gif, options: VideoSettings(timing: .vfr))
        // x264 writes num_units_in_tick = i_timebase_num, time_scale = 2 × i_timebase_den and
        // fixed_frame_rate_flag = !b_vfr_input (encoder/set.c); ffmpeg's trace_headers prints them.
        let text = try CapturedRun.run(MP4Oracle.ffmpeg!, [
            "-v", "trace", "-nostdin", "-i", run.path, "-c", "copy", "-bsf:v", "trace_headers", "-f", "null", "-",
        ]).stderrText
        func field(_ name: String) -> Int? {
            let line = text.split(separator: "\n").first { $0.contains(" \(name) ") }
            return line.flatMap { Int($0.split(separator: "=").last!.trimmingCharacters(in: .whitespaces)) }
        }
        #expect(field("num_units_in_tick") == 1)
        #expect(field("time_scale") == 200)
        #expect(field("fixed_frame_rate_flag") == 0)
        // Level from the peak rate 100/3 fps at one macroblock: level 1.
        #expect(field("level_idc") == 10)
    }

    @Test("--fps auto on 3/3/4 and on ffmpeg's rounded 3/4/3: 30 fps, each GIF frame once, within 10 ms")
    func autoThirty() throws {
        for pattern in [[3, 3, 4], [3, 4, 3]] {
            let resolved = delays(pattern, count: 12)
            let colours = cycling(12)
            let gif = FixtureGIF.solidFrames(width: 16, height: 16, colorIndices: colours, delays: resolved)
            let run = try convertFixture(gif, options: VideoSettings(timing: .auto), name: "auto\(pattern)")
            #expect(run.stream.r_frame_rate == "30/1")
            let frames = try timedFrames(run)
            #expect(frames.count == 12)
            let starts = startsOf(resolved)
            for (i, frame) in frames.enumerated() {
                let error = frame.startCentiseconds.doubleValue - Double(starts[i])
                #expect(abs(error) <= 1, "\(pattern) frame \(i): \(frame.startCentiseconds) vs \(starts[i])")
                #expect(close(frame.centre, palette(colours[i])), "\(pattern) frame \(i)")
            }
            #expect(run.stream.durationCentiseconds == 40)
            #expect(run.result.plan.framesNeverShown == 0)
        }
    }

    @Test("--fps auto on 6/7/7: 15 fps, one video frame per GIF frame")
    func autoFifteen() throws {
        let resolved = delays([6, 7, 7], count: 9)
        let colours = cycling(9)
        let gif = FixtureGIF.solidFrames(width: 16, height: 16, colorIndices: colours, delays: resolved)
        let run = try convertFixture(gif, options: VideoSettings(timing: .auto))
        #expect(run.stream.r_frame_rate == "15/1")
        let frames = try timedFrames(run)
        #expect(frames.map(\.centre).count == 9)
        for (i, frame) in frames.enumerated() { #expect(close(frame.centre, palette(colours[i])), "frame \(i)") }
        #expect(run.stream.durationCentiseconds == 60)
    }

    @Test("--max-fps 20 on 3/3/4: 20 fps, the frames it reports dropped are absent, the rest within 20 ms")
    func maxFPS() throws {
        let resolved = delays([3, 3, 4], count: 12)  // 40 cs
        let colours = cycling(12)
        let gif = FixtureGIF.solidFrames(width: 16, height: 16, colorIndices: colours, delays: resolved)
        let run = try convertFixture(gif, options: VideoSettings(timing: .auto, maxFrameRate: Rational(20)))
        #expect(run.stream.r_frame_rate == "20/1")
        let frames = try timedFrames(run)
        #expect(frames.count == 8)  // 40 cs at 20 fps
        // Output k at 5k cs shows the GIF frame holding 5k + ½ cs: starts 0 3 6 | 10 13 16 | ...
        let starts = startsOf(resolved)
        var shown = Set<Int>()
        for (k, frame) in frames.enumerated() {
            let index = starts.lastIndex { 2 * $0 <= 10 * k + 1 }!
            shown.insert(index)
            #expect(close(frame.centre, palette(colours[index])), "output \(k) should show GIF frame \(index)")
        }
        #expect(12 - shown.count == run.result.plan.framesNeverShown)
        #expect(run.result.plan.framesNeverShown == 4)
        #expect(run.result.plan.worstStartErrorMicroseconds == 20_000)
    }

    /// x264 writes its options into the stream (a user-data SEI: "x264 - core ... options: ..."). Each path that
    /// opens x264 must run `H264Codec.psychovisual` (issue 56): the tick with B-frame repeats (gifx's own
    /// `X264Encoder`), `--vfr` (libavcodec's wrapper) and the old path (every repeat encoded). Before, x264 ran
    /// its preset's `psy_rd=1.00:0.00`.
    @Test("x264 runs with psy-rd off and the chroma QP offset psy-rd would set, on every path (its SEI)",
          arguments: [(false, false), (true, false), (false, true)])
    func psychovisual(_ vfr: Bool, _ encodeRepeats: Bool) throws {
        let gif = FixtureGIF.solidFrames(
            width: 64, height: 48, colorIndices: cycling(8), delays: [3, 3, 4, 3, 3, 4, 3, 3])
        let run = try convertFixture(
            gif, options: VideoSettings(timing: vfr ? .vfr : .tick), encodeRepeats: encodeRepeats,
            name: "psy\(vfr)\(encodeRepeats)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: run.path))
        let text = String(decoding: bytes, as: UTF8.self)
        let options = try #require(text.range(of: "x264 - core").map { String(text[$0.lowerBound...].prefix(2000)) })
        #expect(options.contains(" psy_rd=0.00:0.00 "), "\(options)")
        #expect(options.contains(" chroma_qp_offset=-2 "), "\(options)")
    }

    @Test("the H.264 level computed from size and rate is the one libx264 writes (ffprobe)", arguments: [
        // (width, height, delays, vfr, expected level_idc)
        (1280, 720, [2, 3], false, 42),  // 100 fps: 3600 MBs × 100 = 360,000 MB/s
        (1920, 1080, [2, 3], false, 51),  // 8160 × 100 = 816,000
        (1280, 720, [2, 3], true, 32),  // VFR peak 50 fps: 180,000
        (1920, 1080, [4, 6], false, 42),  // 50 fps: 408,000
        (320, 180, [3, 3, 4], false, 30),  // 240 MBs × 100 = 24,000
    ])
    func level(_ width: Int, _ height: Int, _ raw: [Int], _ vfr: Bool, _ expected: Int) throws {
        let gif = FixtureGIF.solidFrames(
            width: width, height: height, colorIndices: cycling(raw.count), delays: raw)
        let run = try convertFixture(
            gif, options: VideoSettings(preset: "ultrafast", timing: vfr ? .vfr : .tick), name: "level\(width)\(vfr)")
        let probed = try MP4Oracle.run(MP4Oracle.ffprobe!, [
            "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=level", "-of", "csv=p=0", run.path,
        ])
        let level = Int(String(decoding: probed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(level == expected)
        #expect(run.result.requiredH264Level == H264Level(levelIDC: expected))
        #expect(run.result.signalledH264Level == H264Level(levelIDC: expected))
        #expect((run.result.levelProblem != nil) == (expected > 42))
    }
}
