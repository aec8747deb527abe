import ChildProcesses
import Foundation
import GifFixtures
import GifxEncoders
import GifxPipeline
import Testing

/// Key frames by seconds of output (docs/repeats.md, "Key frames"), judged by ffprobe in every codec: a
/// generated GIF at a 4 cs tick (25 fps) with holds of 0.6-3 s, written with a 1 s interval. The old rules
/// counted output frames (x264's `keyint` 250 = 10 s here, libvpx's 128 = 5.12 s: one key frame in this
/// 6.36 s video); the seconds rule wants one about every second, each at the first new picture at or after
/// its due time: 0, 1.32 (the due time 1 s is inside a 1.2 s hold), 2.32 (due exactly on a new picture) and
/// 6.12 s (3.32 s is inside a 3 s hold). The expected times are worked out here from the fixture's delays, not by the code under
/// test:
/// - the first frame is a key frame;
/// - every key frame is shown at a distinct picture (a GIF frame's start), never inside a hold;
/// - after each key frame at t, the next is at the first picture start at or after t + 1 s (the latest the
///   rule allows: the interval plus the rest of the hold it fell in), so no gap is longer than that;
/// - ffprobe's packet flags (the container's sync samples) and frame flags (the decoder's) name the same
///   times, and `VideoSummary.keyframeTimes` (what `--stats` prints as `keyframes.times`) equals them.
/// AV1 with repeat pictures runs libaom real-time at every size, which takes forced key frames as asked. libaom
/// in good-quality mode (AV1 under 64 pixels a side where every copy is encoded) keeps its own count
/// (`kf_max_dist`, a forced key frame there comes out twice): a key frame every 25 output frames, never a gap
/// over 1 s.
@Suite("Key frames by seconds of output, read back with ffprobe",
       .enabled(if: MP4Oracle.available, "ffmpeg/ffprobe not installed"))
struct KeyframeIntervalTests {
    /// GIF delays (cs, multiples of the 4 cs tick): bursts of 4-8 cs between holds of 0.6, 0.84, 1.2 and 3 s,
    /// so due times fall inside holds and one on a new picture. 6.36 s in all.
    static let delays = [4, 4, 4, 120, 4, 8, 4, 84, 4, 4, 60, 4, 4, 4, 300, 8, 4, 12]
    static let interval = 1.0

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var codec: VideoCodec
        var container: VideoContainer
        var width = 64, height = 64
        var encodeRepeats = false
        var vfr = false
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "H.264, repeat pictures", codec: .h264, container: .mp4),
        Case(name: "H.264, every copy encoded", codec: .h264, container: .mp4, encodeRepeats: true),
        Case(name: "H.264, VFR", codec: .h264, container: .mp4, vfr: true),
        Case(name: "HEVC, repeat pictures", codec: .hevc, container: .mp4),
        Case(name: "HEVC, every copy encoded", codec: .hevc, container: .mp4, encodeRepeats: true),
        Case(name: "VP9 WebM, repeat pictures", codec: .vp9, container: .webm),
        Case(name: "VP9 WebM, every copy encoded", codec: .vp9, container: .webm, encodeRepeats: true),
        Case(name: "AV1 MP4, repeat pictures (libaom real-time)", codec: .av1, container: .mp4),
        Case(name: "AV1 WebM, repeat pictures (libaom real-time)", codec: .av1, container: .webm),
        Case(name: "AV1 48x32, repeat pictures (libaom real-time)", codec: .av1, container: .mp4, width: 48, height: 32),
        Case(name: "AV1 (SVT-AV1) MP4, every copy encoded", codec: .av1, container: .mp4, encodeRepeats: true),
        Case(name: "AV1 (SVT-AV1) WebM, every copy encoded", codec: .av1, container: .webm, encodeRepeats: true),
    ]

    /// A texture that moves 3 pixels a frame (no scene cuts: each picture is predictable from the one before).
    static func gif(width: Int, height: Int) -> FixtureGIF {
        var rng = SplitMix64(seed: 51)
        let blocksWide = (width + 3) / 4 + 16, blocksHigh = (height + 3) / 4
        let texture = (0..<(blocksWide * blocksHigh)).map { _ in UInt8.random(in: 0...7, using: &rng) }
        let frames = delays.enumerated().map { k, delay in
            var indices = [UInt8](repeating: 0, count: width * height)
            for y in 0..<height {
                for x in 0..<width {
                    indices[y * width + x] = texture[(y / 4) * blocksWide + (x + 3 * k) / 4 % blocksWide]
                }
            }
            return FixtureFrame(width: width, height: height, indices: indices, delay: delay)
        }
        return FixtureGIF(width: width, height: height, frames: frames)
    }

    /// When each GIF frame starts, in seconds: the distinct pictures.
    static var pictureStarts: [Double] {
        var starts: [Double] = [], t = 0
        for delay in delays {
            starts.append(Double(t) / 100)
            t += delay
        }
        return starts
    }

    /// The rule worked by hand: the first picture, then the first picture start at or after each key frame
    /// plus the interval (1 s is 25 whole frames at 25 fps, so the due time is exact).
    static var expectedTimes: [Double] {
        var keys: [Double] = []
        for start in pictureStarts where keys.last.map({ start >= $0 + interval - 1e-9 }) ?? true {
            keys.append(start)
        }
        return keys
    }

    /// ffprobe's times of the packets flagged K and of the frames decoded as key frames.
    static func probedKeyframes(_ path: String) throws -> (packets: [Double], frames: [Double]) {
        func times(_ entries: String, key: (Substring) -> Bool) throws -> [Double] {
            try RepeatPictureTests.tool(MP4Oracle.ffprobe!, [
                "-v", "error", "-select_streams", "v:0", "-show_entries", entries, "-of", "csv=p=0", path,
            ]).split(separator: "\n").compactMap { line in
                let fields = line.split(separator: ",", omittingEmptySubsequences: false)
                guard fields.count >= 2, key(fields[1]), let time = Double(fields[0]) else { return nil }
                return time
            }
        }
        let packets = try times("packet=pts_time,flags") { $0.hasPrefix("K") }
        // frame=key_frame,pts_time prints them in the stream's order of fields: key_frame first
        let frames = try RepeatPictureTests.tool(MP4Oracle.ffprobe!, [
            "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=key_frame,pts_time", "-of", "csv=p=0", path,
        ]).split(separator: "\n").compactMap { line -> Double? in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count >= 2, fields[0] == "1" else { return nil }
            return Double(fields[1])
        }
        return (packets.sorted(), frames)
    }

    static func convert(_ c: Case, folder: URL) throws -> (path: String, summary: VideoSummary) {
        let input = folder.appendingPathComponent("in.gif")
        try gif(width: c.width, height: c.height).write(to: input)
        let target = folder.appendingPathComponent("out.\(c.container.rawValue)").path
        var settings = RunSettings()
        settings.diagnostics.encodeRepeats = c.encodeRepeats
        var options = VideoSettings(container: c.container, codec: c.codec, keyframeInterval: interval)
        if c.vfr { options.timing = .vfr }
        let report = try Conversion(inputPath: input.path, settings: settings)
            .run([.video(target: .file(target), options: options)])
        guard let video = report.outputs[0] as? VideoResult else { throw MP4OracleError("no video result") }
        return (target, video.summary)
    }

    /// Equal within `tolerance` seconds, element by element (ffprobe prints 6 decimals; WebM keeps whole ms).
    static func same(_ a: [Double], _ b: [Double], tolerance: Double = 0.0005) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) <= tolerance }
    }

    @Test("key frames at the first picture at or after each due time; --stats' times are ffprobe's", arguments: cases)
    func secondsRule(_ c: Case) throws {
        let folder = try mp4Folder("keyframes\(c.codec)\(c.container)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try Self.convert(c, folder: folder)
        let probed = try Self.probedKeyframes(output.path)
        let starts = Self.pictureStarts
        let expected = Self.expectedTimes
        #expect(Self.same(expected, [0, 1.32, 2.32, 6.12]), "the rule worked by hand: \(expected)")

        #expect(probed.packets.first == 0, "\(c.name): the first frame is a key frame")
        for time in probed.packets {
            #expect(starts.contains { abs($0 - time) <= 0.0005 }, "\(c.name): key frame at \(time) s is inside a hold")
        }
        // no gap longer than the interval plus the rest of the hold: the next key frame at the latest at the first
        // picture start at or after the due time, and none missing after the last
        for (k, time) in probed.packets.enumerated() {
            let latest = starts.first { $0 >= time + Self.interval - 1e-9 }
            if k + 1 < probed.packets.count {
                let next = probed.packets[k + 1]
                #expect(latest.map { next <= $0 + 0.0005 } ?? true, "\(c.name): \(time) s to \(next) s")
            } else {
                #expect(latest == nil, "\(c.name): no key frame after \(time) s though one was due at \(latest ?? 0) s")
            }
        }
        // the encoders place none of their own on this fixture, so the times are exactly the rule's
        #expect(Self.same(probed.packets, expected), "\(c.name): \(probed.packets) against \(expected)")
        #expect(Self.same(probed.frames, probed.packets), "\(c.name): decoder \(probed.frames), container \(probed.packets)")
        #expect(Self.same(output.summary.keyframeTimes, probed.packets),
                "\(c.name): reported \(output.summary.keyframeTimes), ffprobe \(probed.packets)")
        _ = try RepeatPictureTests.frames(output.path)  // decodes with -err_detect explode, no message
    }

    @Test("libaom good-quality (AV1 under 64 pixels a side, copies encoded): its own count, a key frame every 25 output frames")
    func libaomCount() throws {
        let c = Case(name: "AV1 (libaom) 48x32", codec: .av1, container: .mp4, width: 48, height: 32, encodeRepeats: true)
        let folder = try mp4Folder("keyframesaom")
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try Self.convert(c, folder: folder)
        let probed = try Self.probedKeyframes(output.path)
        // 159 output frames at 25 fps: key frames at frames 0, 25, ... 150
        let expected = (0..<7).map { Double($0 * 25) / 25 }
        #expect(Self.same(probed.packets, expected), "\(probed.packets)")
        #expect(Self.same(probed.frames, probed.packets))
        #expect(Self.same(output.summary.keyframeTimes, probed.packets))
        _ = try RepeatPictureTests.frames(output.path)
    }

    @Test("the interval is checked: above 0, at most an hour")
    func intervalRange() {
        #expect(VideoSettings(keyframeInterval: 0).problem == .keyframeInterval(0))
        #expect(VideoSettings(keyframeInterval: 3601).problem == .keyframeInterval(3601))
        #expect(VideoSettings(keyframeInterval: .nan).problem != nil)
        #expect(VideoSettings(keyframeInterval: 0.5).problem == nil)
        #expect(VideoSettings().keyframeInterval == nil)
        #expect(VideoSettings.keyframePictureLimit == 250)
    }

    /// A GIF of `count` frames of the moving texture, each shown `delay` cs (every frame a new picture, no
    /// scene cut), converted with the default key-frame rule (no interval). `tick` 1: the last frame is 3 cs (1 cs
    /// would play as 10), so the tick is 1 cs and every other frame is `delay` output frames.
    static func convertByPictures(
        _ c: Case, count: Int, delay: Int, folder: URL, tick: Int? = nil
    ) throws -> (path: String, summary: VideoSummary) {
        let texture = gif(width: c.width, height: c.height).frames[0]
        var frames: [FixtureFrame] = []
        for k in 0..<count {  // the texture moved k pixels: a new picture each frame, predictable from the last
            var indices = texture.indices
            for y in 0..<c.height {
                for x in 0..<c.width { indices[y * c.width + x] = texture.indices[y * c.width + (x + k) % c.width] }
            }
            let last = k == count - 1 && tick == 1
            frames.append(FixtureFrame(width: c.width, height: c.height, indices: indices, delay: last ? 3 : delay))
        }
        let input = folder.appendingPathComponent("in.gif")
        try FixtureGIF(width: c.width, height: c.height, frames: frames).write(to: input)
        let target = folder.appendingPathComponent("out.\(c.container.rawValue)").path
        var settings = RunSettings()
        settings.diagnostics.encodeRepeats = c.encodeRepeats
        var options = VideoSettings(container: c.container, codec: c.codec)
        if c.vfr { options.timing = .vfr }
        let report = try Conversion(inputPath: input.path, settings: settings)
            .run([.video(target: .file(target), options: options)])
        guard let video = report.outputs[0] as? VideoResult else { throw MP4OracleError("no video result") }
        return (target, video.summary)
    }

    /// The default rule counts decode work, not seconds (issue 56): a slow GIF (16 pictures of 1.5 s, 24 s) has one
    /// key frame, where the old 5 s rule wrote 0, 6, 12 and 18 s (four intra pictures for 16 shown); in every
    /// codec with repeat pictures, and in H.264 VFR.
    @Test("a slow GIF gets one key frame: the default counts pictures, not seconds", arguments: [
        Case(name: "H.264, repeat pictures", codec: .h264, container: .mp4),
        Case(name: "H.264, VFR", codec: .h264, container: .mp4, vfr: true),
        Case(name: "HEVC, repeat pictures", codec: .hevc, container: .mp4),
        Case(name: "VP9 WebM, repeat pictures", codec: .vp9, container: .webm),
        Case(name: "AV1 MP4, repeat pictures (libaom real-time)", codec: .av1, container: .mp4),
    ])
    func slowGIFHasOneKeyframe(_ c: Case) throws {
        let folder = try mp4Folder("keyframesslow\(c.codec)\(c.container)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try Self.convertByPictures(c, count: 16, delay: 150, folder: folder)
        let probed = try Self.probedKeyframes(output.path)
        #expect(Self.same(probed.packets, [0]), "\(c.name): \(probed.packets)")
        #expect(Self.same(probed.frames, [0]), "\(c.name): \(probed.frames)")
        #expect(Self.same(output.summary.keyframeTimes, [0]), "\(c.name): \(output.summary.keyframeTimes)")
        _ = try RepeatPictureTests.frames(output.path)
    }

    /// 300 pictures of 2 cs (6 s): a key frame at picture 0 and at picture 250 (5.0 s), counted in coded
    /// pictures. With every copy encoded at a 1 cs tick (two coded pictures per GIF frame, 601 in all), pictures
    /// 250 and 500 start GIF frames 125 and 250: 2.5 and 5.0 s.
    @Test("the default puts a key frame every 250 coded pictures", arguments: [
        (Case(name: "H.264, repeat pictures, 2 cs", codec: .h264, container: .mp4), 2, [0.0, 5.0]),
        (Case(name: "VP9 WebM, repeat pictures, 2 cs", codec: .vp9, container: .webm), 2, [0.0, 5.0]),
        (Case(name: "H.264, 1 cs tick, every copy encoded", codec: .h264, container: .mp4, encodeRepeats: true), 1, [0.0, 2.5, 5.0]),
    ])
    func pictureLimit(_ c: Case, _ tick: Int, _ expected: [Double]) throws {
        let folder = try mp4Folder("keyframespictures\(c.codec)\(tick)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try Self.convertByPictures(c, count: 300, delay: 2, folder: folder, tick: tick)
        let probed = try Self.probedKeyframes(output.path)
        #expect(Self.same(probed.packets, expected), "\(c.name): \(probed.packets)")
        #expect(Self.same(output.summary.keyframeTimes, probed.packets), "\(c.name): \(output.summary.keyframeTimes)")
    }
}
