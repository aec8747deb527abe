import ChildProcesses
import Foundation
import GifFixtures
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `gifx convert`: one decode, several outputs. Outputs are checked against the separate commands' bytes
/// and, for the poster, decoded by ffmpeg (not gifx) against the composite stated pixel by pixel here.
@Suite(.enabled(if: ffprobeAvailable(), "ffprobe/ffmpeg (Debian package ffmpeg), the oracle, is not installed"))
struct ConvertCommandTests {
    /// 4×2 canvas, three frames: (0) red | red | clear | clear over green | green | clear | clear (index 0
    /// transparent); (1) blue over the left 2×2; (2) yellow over the right 2×2. Delays 5, 6, 7 cs.
    static let gif = FixtureGIF(width: 4, height: 2, frames: [
        FixtureFrame(width: 4, height: 2, indices: [1, 1, 0, 0, 2, 2, 0, 0], delay: 5, transparentIndex: 0),
        FixtureFrame.solid(3, width: 2, height: 2, delay: 6),
        FixtureFrame.solid(4, left: 2, width: 2, height: 2, delay: 7),
    ])

    static let red: [UInt8] = [255, 0, 0, 255], green: [UInt8] = [0, 255, 0, 255]
    static let blue: [UInt8] = [0, 0, 255, 255], yellow: [UInt8] = [255, 255, 0, 255]

    /// The composites, RGBA per pixel; nil: fully transparent (alpha 0, colour unspecified).
    static let composites: [[[UInt8]?]] = [
        [red, red, nil, nil, green, green, nil, nil],
        [blue, blue, nil, nil, blue, blue, nil, nil],
        [blue, blue, yellow, yellow, blue, blue, yellow, yellow],
    ]

    static func contents(_ folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    @Test func oneRunWritesWhatTheSeparateCommandsWrite() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.gif, to: folder)
        let together = folder.appendingPathComponent("together"), apart = folder.appendingPathComponent("apart")
        for sub in [together, apart] { try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true) }
        func path(_ sub: URL, _ name: String) -> String { sub.appendingPathComponent(name).path }

        let run = try runGifx([
            "convert", input, "-o", path(together, "v.mp4"), "-o", path(together, "p.png"),
            "-o", path(together, "t.timeline.json"), "-o", path(together, "w.webp"), "-o", path(together, "m.webm"),
            "-o", path(together, "j.jpg"), "--sheet", path(together, "s.png"), "--preset", "ultrafast", "--quiet",
        ], timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Self.contents(together)
            == ["j.jpg", "m.webm", "p.png", "s.json", "s.png", "t.timeline.json", "v.mp4", "w.webp"])

        let mp4 = try runGifx(["to-mp4", input, "-o", path(apart, "v.mp4"), "--preset", "ultrafast", "--quiet"], timeout: 120)
        #expect(mp4.status == 0, "\(mp4.stderr)")
        let sprite = try runGifx(["to-sprite", input, "-o", path(apart, "s.png"), "--quiet"])
        #expect(sprite.status == 0, "\(sprite.stderr)")
        let webp = try runGifx(["convert", input, "-o", path(apart, "w.webp"), "--quiet"])
        #expect(webp.status == 0, "\(webp.stderr)")
        let webm = try runGifx(["convert", input, "-o", path(apart, "m.webm"), "--preset", "ultrafast", "--quiet"])
        #expect(webm.status == 0, "\(webm.stderr)")
        let jpeg = try runGifx(["convert", input, "-o", path(apart, "j.jpg"), "--quiet"])
        #expect(jpeg.status == 0, "\(jpeg.stderr)")
        let timeline = try runGifx(["timeline", input, "--json"])
        #expect(timeline.status == 0, "\(timeline.stderr)")

        // Every encoder is deterministic (WebM's Matroska is written bit-exact), so each file is byte for byte
        // what its own run writes, although the sinks ran side by side on their own threads.
        for name in ["v.mp4", "s.png", "s.json", "w.webp", "m.webm", "j.jpg"] {
            #expect(
                try Data(contentsOf: URL(fileURLWithPath: path(together, name)))
                    == Data(contentsOf: URL(fileURLWithPath: path(apart, name))), "\(name) differs")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path(together, "t.timeline.json"))) == timeline.stdout)
        try expectPoster(path(together, "p.png"), equals: Self.composites[0])
    }

    /// The `.timeline.json` output streams through the same writer as `timeline --json`: the same bytes, also
    /// for a schedule many times the writer's 64 KiB piece (3,000 frames, about 950 KB), under both policies.
    @Test(arguments: ["flanimated", "browser"])
    func timelineJSONOutputStreamsTheSameBytesAsTimelineCommand(policy: String) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("many.gif").path
        try FixtureGIF.repeatingFrame(
            width: 1, height: 1, frame: FixtureFrame(width: 1, height: 1, indices: [1], delay: 1), count: 3_000
        ).write(to: URL(fileURLWithPath: input))
        let target = folder.appendingPathComponent("t.timeline.json").path
        let convert = try runGifx(["convert", input, "-o", target, "--policy", policy, "--quiet"])
        #expect(convert.status == 0, "\(convert.stderr)")
        let timeline = try runGifx(["timeline", input, "--json", "--policy", policy])
        #expect(timeline.status == 0, "\(timeline.stderr)")
        #expect(timeline.stdout.count > 10 * 65_536)
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == timeline.stdout)
    }

    @Test(arguments: [("1", 1), ("middle", 1), ("last", 2), ("0", 0)])
    func posterIsTheChosenFramesComposite(choice: String, frame: Int) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.gif, to: folder)
        let poster = folder.appendingPathComponent("poster.png").path
        let run = try runGifx(["convert", input, "-o", poster, "--poster-frame", choice, "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        try expectPoster(poster, equals: Self.composites[frame])
    }

    @Test func statsListEachOutputWithItsBytes() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.gif, to: folder)
        let mp4 = folder.appendingPathComponent("v.mp4").path, poster = folder.appendingPathComponent("p.png").path
        let run = try runGifx(
            ["convert", input, "-o", mp4, "-o", poster, "--vfr", "--preset", "ultrafast", "--threads", "1", "--stats",
             "--quiet"],
            timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        let stats = try #require(JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        #expect(stats["frames"] as? Int == 3)
        let decode = try #require(stats["decode"] as? [String: Any])
        #expect(decode["threads"] as? Int == 1)
        #expect(decode["window"] as? Int == 0)
        let outputs = try #require(stats["outputs"] as? [[String: Any]])
        #expect(outputs.map { $0["kind"] as? String } == ["mp4", "poster"])
        for (output, path) in zip(outputs, [mp4, poster]) {
            let size = try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            #expect(output["bytes"] as? Int == size)
            #expect(output["paths"] as? [String] == [path])
        }
        #expect(outputs[0]["frames"] as? Int == 3)  // VFR: one sample per GIF frame
        #expect(outputs[0]["fps"] as? String == "vfr")
        #expect((outputs[0]["encoder"] as? [String: Any])?["preset"] as? String == "ultrafast")
        #expect(outputs[1]["frames"] as? Int == 1)
    }

    /// An output that cannot be created (sysfs refuses new files, even to root): exit 73, and none of the
    /// other outputs, already opened as hidden temporaries, exists afterwards.
    @Test func oneFailingOutputLeavesNoOutputAtAll() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.gif, to: folder)
        let run = try runGifx([
            "convert", input, "-o", folder.appendingPathComponent("v.mp4").path,
            "-o", folder.appendingPathComponent("p.png").path, "--sheet", folder.appendingPathComponent("s.png").path,
            "-o", "/sys/gifx-convert-test.png",
        ], timeout: 120)
        #expect(run.status == 73, "\(run.stderr)")
        #expect(run.stderr.contains("/sys/gifx-convert-test.png"))
        #expect(Self.contents(folder) == ["in.gif"])
    }

    /// SIGTERM while the MP4 is being encoded: every output's temporary is removed, no target exists.
    @Test func terminatedRunLeavesNoOutputAtAll() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try ReliabilityFaultTests.animation(in: folder)
        let out = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let arguments = [
            "convert", input, "--loops", "5000", "-o", out.appendingPathComponent("v.mp4").path,
            "-o", out.appendingPathComponent("p.png").path, "-o", out.appendingPathComponent("t.timeline.json").path,
            "--sheet", out.appendingPathComponent("s.png").path, "--quiet",
        ]
        let child = try SpawnedProcess.spawn(gifxExecutable().path, arguments, stdout: .inherited, stderr: .inherited)
        // Wait until the MP4's hidden temporary holds data: every output is open and encoding has started.
        let deadline = Date().addingTimeInterval(60)
        var started = false
        while !started && Date() < deadline {
            if try child.wait(until: Date()) != nil { Issue.record("convert ended before it was signalled"); return }
            started = Self.contents(out).contains { name in
                name.hasPrefix(".v.mp4.gifx-")
                    && ((try? FileManager.default.attributesOfItem(
                        atPath: out.appendingPathComponent(name).path)[.size] as? Int) ?? 0) > 0
            }
            usleep(5_000)
        }
        #expect(started, "the MP4's temporary never got data: \(Self.contents(out))")
        child.send(SIGTERM)
        #expect(try child.wait()?.exitStatus == 143)
        #expect(Self.contents(out).isEmpty, "left behind: \(Self.contents(out))")
    }

    @Test(arguments: [
        ["-o", "x.webm2"], ["--json", "s.json", "-o", "p.png"], ["-o", "a.png", "-o", "a.png"], [],
        ["-o", "p.png", "--poster-frame", "3"], ["-o", "p.png", "--poster-frame", "-1"], ["-o", "a.webp", "--webp-quality", "101"],
        // The codec must fit the container, and crf follows the codec's scale (x264 0-51, VP9 0-63).
        ["-o", "a.webm", "--codec", "h264"], ["-o", "a.webm", "--codec", "hevc"], ["-o", "a.mp4", "--crf", "60"],
        ["-o", "a.webm", "--crf", "64"], ["-o", "p.jpg", "--jpeg-quality", "0"],
    ])
    func usageProblemsExit64AndWriteNothing(arguments: [String]) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.gif, to: folder)
        let absolute = arguments.map { $0.contains(".") ? folder.appendingPathComponent($0).path : $0 }
        let run = try runGifx(["convert", input] + absolute)
        #expect(run.status == 64, "\(arguments): \(run.stderr)")
        #expect(Self.contents(folder) == ["in.gif"])
    }

    /// The PNG decoded by ffmpeg as RGBA equals `expected` (alpha 0 where expected is nil).
    private func expectPoster(_ path: String, equals expected: [[UInt8]?]) throws {
        let rgba = try ffmpegRGBA(path)
        #expect(rgba.count == expected.count * 4)
        guard rgba.count == expected.count * 4 else { return }
        for (i, pixel) in expected.enumerated() {
            let got = Array(rgba[i * 4..<i * 4 + 4])
            if let pixel { #expect(got == pixel, "pixel \(i)") } else { #expect(got[3] == 0, "pixel \(i): \(got)") }
        }
    }
}

/// An image decoded by the ffmpeg CLI to raw RGBA bytes.
func ffmpegRGBA(_ path: String) throws -> [UInt8] {
    let run = try CapturedRun.run(
        Oracle.tool("ffmpeg"), ["-v", "error", "-i", path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgba", "-"])
    return [UInt8](run.stdout)
}
