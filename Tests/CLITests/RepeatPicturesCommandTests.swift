import ChildProcesses
import Foundation
import GifFixtures
import Testing

/// Repeat pictures through the command line (docs/repeats.md): `--stats` reports them, `-o -` streams them in a
/// fragmented MP4, `convert` and `gifx verify` take them, and `GIFX_REPEATS=encode` gives the old path. Judged
/// by FFmpeg (lossless encodes decode to the same frames both ways) and by the fixture's own delays.
@Suite(.enabled(if: ffprobeAvailable(), "ffprobe/ffmpeg (Debian package ffmpeg), the oracle, is not installed"))
struct RepeatPicturesCommandTests {
    /// A 1 cs tick (delays 2 and 3 cs) with long holds: 7 frames, 812 output frames at 100 fps.
    static let delays = [2, 300, 3, 250, 2, 252, 3]
    static let fixture = FixtureGIF.solidFrames(
        width: 40, height: 24, colorIndices: [1, 2, 3, 4, 5, 6, 7], delays: delays)
    static let outputFrames = delays.reduce(0, +)

    static func framemd5(_ arguments: [String], stdin: Data? = nil) throws -> [String] {
        let run = try CapturedRun.run(
            "/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-err_detect", "explode", "-xerror"] + arguments
                + ["-fps_mode", "passthrough", "-f", "framemd5", "-"], stdin: stdin)
        #expect(run.status == 0 && run.stderr.isEmpty, "\(String(decoding: run.stderr, as: UTF8.self))")
        return String(decoding: run.stdout, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }
            .map { $0.split(separator: ",").dropFirst(2).joined(separator: ",") }
    }

    @Test("--stats counts encoded and repeat pictures; the old path encodes every output frame")
    func statsCountPictures() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.fixture, to: folder)
        let output = folder.appendingPathComponent("out.mp4").path
        for encode in [false, true] {
            let run = try runGifx(
                ["to-mp4", input, "-o", output, "--overwrite", "--stats"], timeout: 120,
                environment: encode ? ["GIFX_REPEATS": "encode"] : nil)
            #expect(run.status == 0, "\(run.stderr)")
            let stats = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
            let pictures = try #require(stats["pictures"] as? [String: Int])
            #expect(stats["outputFrames"] as? Int == Self.outputFrames)
            #expect((pictures["encoded"] ?? 0) + (pictures["repeats"] ?? 0) == Self.outputFrames)
            let fileBytes = try #require(try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int)
            #expect((pictures["encodedBytes"] ?? 0) + (pictures["repeatBytes"] ?? 0) < fileBytes)
            if encode {
                #expect(pictures["repeats"] == 0 && pictures["repeatBytes"] == 0)
            } else {
                // one picture per GIF frame: key frames go on new pictures, never inside a hold
                #expect(pictures["encoded"] == Self.delays.count)
                #expect((pictures["repeatBytes"] ?? 0) <= 16 * (pictures["repeats"] ?? 0))
            }
            // the default counts pictures (250 coded pictures), not seconds: this short GIF has its first key frame
            // only (the 5 s rule before put a second on the picture at 5.55 s)
            try Self.expectKeyframes(stats, output, interval: nil, required: [0])
        }
    }

    /// `--stats`' `keyframes` (interval and times) against ffprobe's key frames of `output` (the decoder's
    /// `key_frame`: an IDR, the container's sync sample; ffprobe's packet flags of an MP4 also mark x264's
    /// scene-cut I pictures, which are no seek points), and both against the seconds rule worked by hand from the
    /// fixture's delays: the first frame is key, every key frame is at a picture's start, and after each the
    /// next comes at the latest at the first picture start at or after it plus `interval` (the encoder may add
    /// scene cuts of its own, at pictures' starts). `required`: key frames the rule alone must give.
    static func expectKeyframes(
        _ stats: [String: Any], _ output: String, interval: Double?, required: [Double],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let keyframes = try #require(stats["keyframes"] as? [String: Any], sourceLocation: sourceLocation)
        #expect(keyframes["interval"] as? Double == interval, sourceLocation: sourceLocation)
        // Without an interval, the picture rule: reported as its limit; these GIFs have fewer pictures, so the
        // first key frame is the only one due (the encoder may still add scene cuts).
        #expect(keyframes["maxPictures"] as? Int == (interval == nil ? 250 : nil), sourceLocation: sourceLocation)
        let reported = try #require(keyframes["times"] as? [Double], sourceLocation: sourceLocation)
        let probe = try CapturedRun.run("/usr/bin/ffprobe", [
            "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=key_frame,pts_time", "-of", "csv=p=0", output,
        ])
        let probed = String(decoding: probe.stdout, as: UTF8.self).split(separator: "\n").compactMap { line -> Double? in
            let fields = line.split(separator: ",")
            return fields.count >= 2 && fields[0] == "1" ? Double(fields[1]) : nil
        }
        func near(_ a: Double, _ b: Double) -> Bool { abs(a - b) < 0.0005 }
        #expect(reported.count == probed.count && zip(reported, probed).allSatisfy(near),
                "--stats \(reported), ffprobe \(probed)", sourceLocation: sourceLocation)
        var starts: [Double] = [], t = 0
        for delay in delays { starts.append(Double(t) / 100); t += delay }
        #expect(probed.first == 0, sourceLocation: sourceLocation)
        for (k, time) in probed.enumerated() {
            #expect(starts.contains { near($0, time) }, "key frame at \(time) s inside a hold", sourceLocation: sourceLocation)
            let latest = interval.flatMap { interval in starts.first { $0 >= time + interval - 1e-9 } }
            let next = k + 1 < probed.count ? probed[k + 1] : nil
            #expect(next.map { next in latest.map { next <= $0 + 0.0005 } ?? true } ?? (latest == nil),
                    "key frame at \(time) s, next \(String(describing: next)), due by \(String(describing: latest))",
                    sourceLocation: sourceLocation)
        }
        for time in required {
            #expect(probed.contains { near($0, time) }, "no key frame at \(time) s: \(probed)", sourceLocation: sourceLocation)
        }
    }

    @Test("--keyframe-interval: key frames on the first new picture at or after each due time, as --stats says")
    func keyframeIntervalOption() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.fixture, to: folder)
        let output = folder.appendingPathComponent("out.mp4").path
        let run = try runGifx(
            ["to-mp4", input, "-o", output, "--overwrite", "--stats", "--keyframe-interval", "2"], timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        let stats = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        // pictures at 0, 0.02, 3.02, 3.05, 5.55, 5.57, 8.09 s: due at 2 (inside 0.02-3.02), 5.02 (inside
        // 3.05-5.55) and 7.55 s (inside 5.57-8.09)
        try Self.expectKeyframes(stats, output, interval: 2, required: [0, 3.02, 5.55, 8.09])
        let refused = try runGifx(["to-mp4", input, "-o", output, "--overwrite", "--keyframe-interval", "0"])
        #expect(refused.status != 0 && refused.stderr.contains("--keyframe-interval must be"), "\(refused.stderr)")

        // convert's -o prefix (the parser gifx serve's query shares): the output's own interval
        let converted = try runGifx(
            ["convert", input, "-o", "keyframe-interval=2:\(output)", "--overwrite", "--stats"], timeout: 120)
        #expect(converted.status == 0, "\(converted.stderr)")
        let convertStats = try #require(try JSONSerialization.jsonObject(with: converted.stdout) as? [String: Any])
        let first = try #require((convertStats["outputs"] as? [[String: Any]])?.first)
        try Self.expectKeyframes(first, output, interval: 2, required: [0, 3.02, 5.55, 8.09])
        let webp = folder.appendingPathComponent("out.webp").path
        let notVideo = try runGifx(["convert", input, "-o", "keyframe-interval=2:\(webp)", "--overwrite"])
        #expect(notVideo.status != 0 && notVideo.stderr.contains("keyframe-interval= is for .mp4, .webm and .avif"), "\(notVideo.stderr)")
    }

    @Test("-o - (fragmented, streamed), convert and the file: lossless frames equal the old path's; verify passes")
    func streamedAndConvert() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.fixture, to: folder)
        let old = folder.appendingPathComponent("old.mp4").path
        let file = folder.appendingPathComponent("new.mp4").path
        let converted = folder.appendingPathComponent("c.mp4").path
        #expect(try runGifx(["to-mp4", input, "-o", old, "--crf", "0"], timeout: 120,
                            environment: ["GIFX_REPEATS": "encode"]).status == 0)
        #expect(try runGifx(["to-mp4", input, "-o", file, "--crf", "0"], timeout: 120).status == 0)
        #expect(try runGifx(["convert", input, "-o", converted, "-o", folder.appendingPathComponent("c.webp").path,
                             "--crf", "0", "--verify"], timeout: 120).status == 0)
        let piped = try runGifx(["to-mp4", input, "-o", "-", "--crf", "0"], timeout: 120)
        #expect(piped.status == 0, "\(piped.stderr)")

        let expected = try Self.framemd5(["-i", old])
        #expect(expected.count == Self.outputFrames)
        #expect(try Self.framemd5(["-i", file]) == expected)
        #expect(try Self.framemd5(["-i", converted]) == expected)
        #expect(try Self.framemd5(["-f", "mp4", "-i", "pipe:0"], stdin: piped.stdout) == expected)
        for path in [file, converted] {
            let verified = try runGifx(["verify", input, path], timeout: 120)
            #expect(verified.status == 0, "\(verified.stdoutText) \(verified.stderr)")
        }
    }
}
