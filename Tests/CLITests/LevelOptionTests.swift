import ChildProcesses
import Foundation
import GifFixtures
import Testing

/// `--level L` (issue 26, part 6): the stream plays on a decoder of that level. ffprobe reads the level back
/// (H.264 `level_idc` = 10 × L, HEVC `general_level_idc` = 30 × L), the rate is capped at what the level
/// allows at the size (resampled with the smallest timing error, as --max-fps), and sizes or exact rates
/// beyond it are refused in one line (64), before anything is written.
@Suite(.enabled(if: ffprobeAvailable(), "ffprobe/ffmpeg (Debian package ffmpeg), the oracle, is not installed"))
struct LevelOptionTests {
    /// Delays 2 and 3 cs (GCD 1: a 1 cs tick, 100 fps; 1 cs delays would be raised to 10 by the
    /// sub-minimum rule), 20 cs in all.
    static func gif(width: Int = 352, height: Int = 288) -> FixtureGIF {
        FixtureGIF.solidFrames(
            width: width, height: height, colorIndices: [1, 2, 3, 4, 1, 2, 3, 4], delays: [2, 3, 2, 3, 2, 3, 2, 3])
    }

    /// H.264 level 2 at 352×288 (396 macroblocks): at most 11880 / 396 = 30 fps, so the 100 fps tick is
    /// resampled to 30 fps; level 1.1 at the default preset (x264 medium would keep 4 frames for its
    /// B-pyramid, beyond level 1.1's 2-frame DPB at this size) is written as 1.1 without x264's DPB warning.
    @Test(arguments: [("2", "ultrafast", "20", "30", "30/1"), ("1.1", "medium", "11", "250/33", "250/33")])
    func h264LevelCapsTheRateAndIsWritten(
        level: String, preset: String, levelIDC: String, rate: String, probedRate: String
    ) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.gif(), to: folder)
        let mp4 = folder.appendingPathComponent("a.mp4").path
        let run = try runGifx(
            ["to-mp4", input, "-o", mp4, "--level", level, "--preset", preset, "--stats"], timeout: 120,
            environment: ProcessInfo.processInfo.environment.merging(["GIFX_AV_LOG": "1"]) { $1 })
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("level limit"), "x264 must not warn of a level violation: \(run.stderr)")
        let stats = try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any]
        let timing = stats?["timing"] as? [String: Any]
        #expect(timing?["levelAsked"] as? String == level)
        #expect(timing?["rate"] as? String == rate)
        #expect(timing?["h264Level"] as? String == level)
        #expect((timing?["worstStartErrorMs"] as? Double).map { $0 > 0 && $0 < 70 } == true, "\(timing ?? [:])")
        #expect((timing?["reason"] as? String)?.hasPrefix("--level \(level)") == true, "\(timing ?? [:])")
        let stream = try probeLevel(mp4)
        #expect(stream["level"] == levelIDC)
        #expect(stream["r_frame_rate"] == probedRate)
        let encoder = stats?["encoder"] as? [String: Any]
        #expect((encoder?["params"] as? String)?.contains("level=\(level)") == true)
        #expect((encoder?["params"] as? String)?.contains("vbv-maxrate=") == true)
    }

    /// HEVC level 2 at 352×288: MaxLumaSr 3686400 / 101376 samples = 36.36 fps, so 30 fps is chosen;
    /// ffprobe reports general_level_idc 60. A lower --max-fps wins over the level's cap.
    @Test func hevcLevelIsWrittenAndTheLowerCapWins() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.gif(), to: folder)
        let mp4 = folder.appendingPathComponent("a.mp4").path
        let run = try runGifx(
            ["to-mp4", input, "-o", mp4, "--codec", "hevc", "--level", "2", "--preset", "ultrafast", "--stats",
             "--quiet"], timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try probeLevel(mp4)["level"] == "60")
        #expect(try probeLevel(mp4)["r_frame_rate"] == "30/1")
        let timing = (try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])?["timing"] as? [String: Any]
        #expect(timing?["levelMaxFps"] as? String == "400/11", "\(run.stdoutText)")

        let capped = try runGifx(
            ["to-mp4", input, "-o", mp4, "--overwrite", "--codec", "hevc", "--level", "2", "--max-fps", "20",
             "--preset", "ultrafast", "--quiet"], timeout: 120)
        #expect(capped.status == 0, "\(capped.stderr)")
        #expect(try probeLevel(mp4)["r_frame_rate"] == "20/1")
        #expect(try probeLevel(mp4)["level"] == "60")
    }

    /// Issue 26's check: `--level 4.1` on a 1 cs-tick 1080p GIF is level 4.1 in ffprobe (H.264: 41; HEVC:
    /// 123), at most 30.117 fps (245760 / 8160 macroblocks), the worst timing error in --stats.
    @Test(arguments: [("h264", "41"), ("hevc", "123")])
    func level41At1080p(codec: String, levelIDC: String) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.gif(width: 1920, height: 1080), to: folder)
        let mp4 = folder.appendingPathComponent("a.mp4").path
        let run = try runGifx(
            ["to-mp4", input, "-o", mp4, "--codec", codec, "--level", "4.1", "--preset", "ultrafast", "--stats",
             "--quiet"], timeout: 300)
        #expect(run.status == 0, "\(run.stderr)")
        let stream = try probeLevel(mp4)
        #expect(stream["level"] == levelIDC)
        #expect(stream["width"] == "1920" && stream["height"] == "1080")
        let timing = (try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])?["timing"] as? [String: Any]
        #expect(timing?["levelAsked"] as? String == "4.1")
        #expect(timing?["worstStartErrorMs"] is Double, "\(timing ?? [:])")
        if codec == "h264" { #expect(timing?["levelMaxFps"] as? String == "512/17") }
        let rate = (stream["r_frame_rate"] ?? "").split(separator: "/").compactMap { Double($0) }
        #expect(rate.count == 2 && rate[0] / rate[1] <= (codec == "h264" ? 245760.0 / 8160 : 133693440.0 / 2073600))
    }

    /// Refused in one line with exit 64 and no file left: a size beyond the level, an exact rate above its
    /// cap, a VFR peak above it, a level the codec lacks, a codec without levels.
    @Test(arguments: [
        (["--level", "1"], "352x288 (396 macroblocks a frame) exceeds H.264 level 1's 99"),
        (["--level", "2", "--fps", "50"], "50 fps is too fast: H.264 level 2 allows at most 30 fps at 352x288"),
        (["--level", "2", "--vfr"], "VFR's peak rate 50 fps"),
        (["--level", "1.1", "--codec", "hevc"], "--level 1.1 is not a hevc level"),
        (["--level", "1", "--codec", "hevc"], "exceeds HEVC level 1's 36864"),
    ])
    func beyondTheLevelIsRefused(options: [String], message: String) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.gif(), to: folder)
        let mp4 = folder.appendingPathComponent("a.mp4").path
        let run = try runGifx(["to-mp4", input, "-o", mp4] + options, timeout: 60)
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains(message), "\(run.stderr)")
        if !message.hasPrefix("--") { #expect(run.stderrLines.count == 1, "\(run.stderr)") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["in.gif"])
    }

    @Test func levelWithAWebMIsAUsageError() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.gif(), to: folder)
        let run = try runGifx(["convert", input, "-o", folder.appendingPathComponent("a.webm").path, "--level", "2"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("--level applies to h264 and hevc, not vp9"), "\(run.stderr)")
    }
}

/// ffprobe's level, frame rate and size of the first video stream.
private func probeLevel(_ path: String) throws -> [String: String] {
    let data = try runTool(Oracle.tool("ffprobe"), [
        "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=level,r_frame_rate,width,height",
        "-of", "default=nw=1", path,
    ])
    var fields: [String: String] = [:]
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
        let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
        if parts.count == 2 { fields[parts[0]] = parts[1] }
    }
    return fields
}
