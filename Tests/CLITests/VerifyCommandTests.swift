import ChildProcesses
import Foundation
import GifFixtures
import Testing

/// `gifx verify` and `--verify`: gifx's own outputs verify in every timing mode and format (sheets and lossless
/// WebP exactly); outputs made wrong on purpose, or by the ffmpeg CLI under another reading of the delays, fail on
/// the check that names what is wrong. Expected values come from the fixtures' construction (the delays, the frame
/// swapped in, the cut made), never from gifx.
@Suite struct VerifyCommandTests {
    /// Small GIFs of the kinds the issue names; consecutive frames differ in colour, so every frame can be told apart.
    static let fixtures: [(String, FixtureGIF)] = [
        ("carry-over", .solidFrames(width: 24, height: 18, colorIndices: [1, 2, 3, 4, 5, 6], delays: [7, nil, nil, 3, nil, 12])),
        ("sub-minimum", .solidFrames(width: 24, height: 18, colorIndices: [1, 2, 3, 4, 5, 6], delays: [0, 1, 2, 5, 0, 1])),
        ("one-cs-tick", .solidFrames(width: 24, height: 18, colorIndices: [1, 2, 3, 4, 5, 6, 7], delays: [3, 4, 3, 3, 4, 3, 4])),
        ("all-zero", .solidFrames(width: 24, height: 18, colorIndices: [1, 2, 3, 4], delays: [0, 0, 0, 0])),
        ("odd-size", .solidFrames(width: 33, height: 21, colorIndices: [6, 1, 4], delays: [5, 6, 7])),
        ("transparency", transparent),
    ]

    /// A transparent canvas with a coloured block that moves, each frame restored to the background (disposal 2).
    static var transparent: FixtureGIF {
        let (w, h) = (20, 14)
        func block(_ colour: UInt8, x: Int, delay: Int) -> FixtureFrame {
            var indices = [UInt8](repeating: 0, count: w * h)
            for y in 3..<9 { for dx in 0..<6 { indices[y * w + x + dx] = colour } }
            return FixtureFrame(width: w, height: h, indices: indices, delay: delay, disposal: 2, transparentIndex: 0)
        }
        return FixtureGIF(width: w, height: h, frames: [block(1, x: 1, delay: 10), block(2, x: 7, delay: 8), block(3, x: 13, delay: 6)])
    }

    static let modes: [[String]] = [[], ["--fps", "30"], ["--fps", "auto"], ["--vfr"], ["--max-fps", "24"], ["--loops", "2"]]

    /// Every output of one `convert` run with `--verify`, then again with the stand-alone `gifx verify`: both exit 0,
    /// the lossless ones compared exactly with no frame differing.
    @Test(arguments: fixtures.map(\.0))
    func ownOutputsVerifyInEveryModeAndFormat(_ name: String) throws {
        let gif = try #require(Self.fixtures.first { $0.0 == name }?.1)
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(gif, to: folder)
        func path(_ file: String) -> String { folder.appendingPathComponent(file).path }
        for mode in Self.modes {
            var arguments = ["convert", input, "-o", path("a.mp4"), "-o", path("a.webm")]
            let stills = mode.isEmpty
            if stills {
                arguments += ["-o", path("a.webp"), "-o", path("a.png"), "-o", path("a.jpg"), "--sheet", path("s.png")]
            }
            let run = try runGifx(arguments + mode + ["--verify", "--overwrite", "--quiet"], timeout: 120)
            #expect(run.status == 0, "\(name) \(mode): \(run.stderr)")
            var outputs = [path("a.mp4"), path("a.webm")]
            if stills { outputs += [path("a.webp"), path("a.png"), path("a.jpg"), path("s.json")] }
            let reports = try Self.verify(input, outputs)
            #expect(reports.status == 0, "\(name) \(mode): \(reports.stderr)")
            for report in reports.outputs {
                #expect((report["failures"] as? [String]) == [], "\(name) \(mode): \(report)")
                if ["webp", "sheet"].contains(report["kind"] as? String) || (report["path"] as? String)?.hasSuffix(".png") == true {
                    #expect(report["exact"] as? Bool == true, "\(name): \(report["path"] ?? "")")
                    #expect(report["mismatchedFrames"] as? Int == 0)
                }
                if report["kind"] as? String == "video" {
                    #expect((report["plays"] as? Int) == (mode == ["--loops", "2"] ? 2 : 1))
                }
            }
        }
    }

    /// The bench's SSIM in verify's report (issue 56): a 96×64 GIF of moving colour bands at a 1 cs tick (holds
    /// of 3 and 4 cs), its default MP4 and WebM; SSIM on luma at every frame's mid-delay, mean and delay-weighted,
    /// close to 1 for a faithful encode and lower for a coarse one (crf 45), and the text line names it. The
    /// `--vfr` MP4 (B-frames: a decoded frame's own duration is a reordered packet's, 10 ms where the frame shows
    /// 30-40) has it too, near the tick MP4's: each frame lasts until the next one starts.
    @Test func theReportHasTheBenchsSSIM() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let frames = (0..<12).map { k in
            FixtureFrame(width: 96, height: 64, indices: (0..<(96 * 64)).map { UInt8(1 + ($0 % 96 + 3 * k) / 8 % 6) },
                         delay: k % 2 == 0 ? 3 : 4)
        }
        let input = try writeGIF(FixtureGIF(width: 96, height: 64, frames: frames), to: folder)
        var scores: [String: Double] = [:]
        for (file, crf, extra) in [("a.mp4", "23", []), ("b.webm", "32", []), ("c.mp4", "45", []), ("d.mp4", "23", ["--vfr"])] {
            let output = folder.appendingPathComponent(file).path
            #expect(try runGifx(["convert", input, "-o", output, "--crf", crf, "--quiet"] + extra, timeout: 120).status == 0)
            let reports = try Self.verify(input, [output], extra: ["--min-psnr", "10"])
            let report = try #require(reports.outputs.first)
            let mean = try #require(report["meanSSIM"] as? Double, "\(report)")
            let weighted = try #require(report["delayWeightedSSIM"] as? Double)
            #expect(mean > 0 && mean <= 1 + 1e-9 && weighted > 0 && weighted <= 1 + 1e-9)
            scores[file] = mean
        }
        let (good, webm, coarse) = (scores["a.mp4"] ?? 0, scores["b.webm"] ?? 0, scores["c.mp4"] ?? 1)
        #expect(good > 0.95 && webm > 0.95 && coarse < good, "\(scores)")
        #expect(abs((scores["d.mp4"] ?? 0) - good) < 0.02, "\(scores)")
        let text = try runGifx(["verify", input, folder.appendingPathComponent("a.mp4").path], timeout: 120)
        #expect(text.stdoutText.contains("weighted by delay (Y, at each frame's mid-delay)"), "\(text.stdoutText)")
    }

    /// Every Examples GIF: all formats from one run with `--verify`, and the video modes.
    @Test(arguments: ["bouncing-ball", "missing-delays", "transparent-spinner"])
    func examplesVerify(_ name: String) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = examplePath(name)
        func path(_ file: String) -> String { folder.appendingPathComponent(file).path }
        let run = try runGifx(
            ["convert", input, "-o", path("a.mp4"), "-o", path("a.webm"), "-o", path("a.webp"), "-o", path("a.jpg"),
             "-o", path("a.png"), "--sheet", path("s.png"), "--verify", "--quiet"], timeout: 180)
        #expect(run.status == 0, "\(run.stderr)")
        for mode in Self.modes.dropFirst() {
            let video = try runGifx(["to-mp4", input, "-o", path("m.mp4"), "--verify", "--overwrite", "--quiet"] + mode, timeout: 120)
            #expect(video.status == 0, "\(mode): \(video.stderr)")
        }
        // A trimmed, packed sheet (cuts placed at offsets in their frames) and a scaled grid.
        for layout in [["--trim", "--pack", "maxrects", "--format", "phaser"], ["--scale", "0.5", "--format", "godot"]] {
            let json = path(layout.contains("godot") ? "t.tres" : "t.json")
            let sheet = try runGifx(["to-sprite", input, "-o", path("t.png"), "--json", json, "--verify", "--overwrite"] + layout)
            #expect(sheet.status == 0, "\(layout): \(sheet.stderr)")
            let checked = try Self.verify(input, [json])
            #expect(checked.status == 0, "\(layout): \(checked.stderr)")
        }
        let reports = try Self.verify(input, [path("a.mp4"), path("a.webm"), path("a.webp"), path("a.jpg"), path("a.png"), path("s.json")])
        #expect(reports.status == 0, "\(reports.stderr)")
    }

    /// The ffmpeg CLI reads a frame without a Graphic Control Extension as 10 cs; FLAnimated carries the previous
    /// delay over. Delays 50, -, 30, -, 20 cs: FLAnimated starts 0, 500, 1000, 1300, 1600 ms; ffmpeg shows the frames
    /// at 0, 500, 600, 900, 1000 ms. Frame 4 is the worst, 600 ms early; under the browser policy (10 cs, as
    /// ffmpeg) the same MP4 verifies.
    @Test func ffmpegMP4OfMixedDelaysFailsOnTimingNamingTheWorstFrame() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(
            .solidFrames(width: 32, height: 24, colorIndices: [1, 2, 3, 4, 5], delays: [50, nil, 30, nil, 20]), to: folder)
        let mp4 = folder.appendingPathComponent("ffmpeg.mp4").path
        let ffmpeg = try CapturedRun.run("/usr/bin/env", ["ffmpeg", "-v", "error", "-i", input, mp4])
        try #require(ffmpeg.status == 0)
        let reports = try Self.verify(input, [mp4])
        #expect(reports.status == 1)
        let report = try #require(reports.outputs.first)
        #expect(report["worstTimingFrame"] as? Int == 4)
        let error = try #require(report["worstTimingErrorMs"] as? Double)
        #expect(abs(error - -600) <= 20, "\(error)")
        #expect(reports.stderr.contains("timing: GIF frame 4 shown"), "\(reports.stderr)")
        #expect(reports.stderrLines.count == 1)
        let browser = try Self.verify(input, [mp4], extra: ["--policy", "browser"])
        #expect(browser.status == 0, "\(browser.stderr)")
    }

    /// Thirty 10 cs frames, each unlike every other: a 2-pixel black column at x = 2k on white.
    static var thirtyDistinctFrames: FixtureGIF {
        let (w, h) = (64, 16)
        let frames = (0..<30).map { k -> FixtureFrame in
            var indices = [UInt8](repeating: 7, count: w * h)
            for y in 0..<h { indices[y * w + 2 * k] = 0; indices[y * w + 2 * k + 1] = 0 }
            return FixtureFrame(width: w, height: h, indices: indices, delay: 10)
        }
        return FixtureGIF(width: w, height: h, frames: frames)
    }

    /// An MP4 whose frame 25 (of 30 frames of 10 cs, 10 fps) is frame 2's image instead: frame 2 is 2.3 s away,
    /// outside the search window, so the check that fails is the pixels, at output frame 25.
    @Test func corruptedFrameFailsOnPixels() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.thirtyDistinctFrames, to: folder)
        let frames = folder.appendingPathComponent("frames")
        let exported = try runGifx(["frames", input, "--out", frames.path])
        try #require(exported.status == 0, "\(exported.stderr)")
        let named = { (k: Int) in frames.appendingPathComponent(String(format: "frame-%04d.png", k)) }
        try FileManager.default.removeItem(at: named(25))
        try FileManager.default.copyItem(at: named(2), to: named(25))
        let mp4 = folder.appendingPathComponent("corrupt.mp4").path
        let encode = try CapturedRun.run("/usr/bin/env", [
            "ffmpeg", "-v", "error", "-framerate", "10", "-i", frames.appendingPathComponent("frame-%04d.png").path,
            "-pix_fmt", "yuv420p", "-vf", "scale=out_color_matrix=bt709:out_range=tv", "-colorspace", "bt709", mp4])
        try #require(encode.status == 0, "\(String(decoding: encode.stderr, as: UTF8.self))")
        let reports = try Self.verify(input, [mp4])
        #expect(reports.status == 1)
        let report = try #require(reports.outputs.first)
        #expect(report["worstPSNRFrame"] as? Int == 25)
        #expect((report["worstPSNR"] as? Double ?? 99) < 30)
        #expect((report["failures"] as? [String])?.contains { $0.hasPrefix("pixels:") } == true, "\(report)")
        // The same bytes with the frames in order verify.
        try FileManager.default.removeItem(at: named(25))
        try #require(runGifx(["frames", input, "--out", frames.path]).status == 0)
        let good = folder.appendingPathComponent("good.mp4").path
        _ = try CapturedRun.run("/usr/bin/env", [
            "ffmpeg", "-v", "error", "-framerate", "10", "-i", frames.appendingPathComponent("frame-%04d.png").path,
            "-pix_fmt", "yuv420p", "-vf", "scale=out_color_matrix=bt709:out_range=tv", "-colorspace", "bt709", good])
        #expect(try Self.verify(input, [good]).status == 0)
    }

    /// A lossless WebP (img2webp from the GIF's own frames) with frame 25 replaced by frame 2 fails exactly there;
    /// with the frames in order it verifies.
    @Test func corruptedLosslessWebPFailsExactly() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.thirtyDistinctFrames, to: folder)
        let frames = folder.appendingPathComponent("frames")
        try #require(try runGifx(["frames", input, "--out", frames.path]).status == 0)
        let order = (0..<30).map { $0 == 25 ? 2 : $0 }
        let files = order.map { frames.appendingPathComponent(String(format: "frame-%04d.png", $0)).path }
        let webp = folder.appendingPathComponent("a.webp").path
        let made = try CapturedRun.run("/usr/bin/env", ["img2webp", "-lossless", "-d", "100", "-loop", "0"] + files + ["-o", webp])
        try #require(made.status == 0, "\(String(decoding: made.stderr, as: UTF8.self))")
        let reports = try Self.verify(input, [webp])
        #expect(reports.status == 1)
        let report = try #require(reports.outputs.first)
        #expect(report["exact"] as? Bool == true)
        #expect(report["mismatchedFrames"] as? Int == 1)
        #expect(report["worstPSNRFrame"] as? Int == 25)
        let good = folder.appendingPathComponent("good.webp").path
        let inOrder = (0..<30).map { frames.appendingPathComponent(String(format: "frame-%04d.png", $0)).path }
        _ = try CapturedRun.run("/usr/bin/env", ["img2webp", "-lossless", "-d", "100", "-loop", "0"] + inOrder + ["-o", good])
        #expect(try Self.verify(input, [good]).status == 0)
    }

    /// gifx's VFR MP4 of ten 10 cs frames cut at 0.5 s by the ffmpeg CLI (stream copy): frames 5-9 are missing.
    @Test func truncatedOutputFailsOnMissingFrames() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let gif = FixtureGIF.solidFrames(
            width: 32, height: 24, colorIndices: [1, 2, 3, 4, 5, 6, 7, 1, 2, 3], delays: Array(repeating: 10, count: 10))
        let input = try writeGIF(gif, to: folder)
        let full = folder.appendingPathComponent("full.webm").path
        try #require(try runGifx(["convert", input, "-o", full, "--vfr"]).status == 0)
        let cut = folder.appendingPathComponent("cut.webm").path
        let trimmed = try CapturedRun.run("/usr/bin/env", ["ffmpeg", "-v", "error", "-i", full, "-c", "copy", "-t", "0.5", cut])
        try #require(trimmed.status == 0)
        let reports = try Self.verify(input, [cut])
        #expect(reports.status == 1)
        let report = try #require(reports.outputs.first)
        #expect(report["missingFrames"] as? Int == 5, "\(report)")
        #expect(report["missingIndices"] as? [Int] == [5, 6, 7, 8, 9])
        #expect(reports.stderr.contains("5 GIF frames missing"), "\(reports.stderr)")
    }

    /// A sheet whose JSON gives frames 1 and 3 each other's rect: fails, naming both.
    @Test(arguments: ["yy", "texturepacker"])
    func sheetWithSwappedRectsFailsNamingThem(_ format: String) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(
            .solidFrames(width: 10, height: 8, colorIndices: [1, 2, 3, 4, 5], delays: [10, 20, 30, 40, 50]), to: folder)
        let png = folder.appendingPathComponent("s.png").path
        let json = folder.appendingPathComponent("s.json").path
        try #require(try runGifx(["to-sprite", input, "-o", png, "--json", json, "--format", format, "--verify"]).status == 0)
        #expect(try Self.verify(input, [json]).status == 0)
        var document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
        if format == "yy" {
            var frames = try #require(document["frames"] as? [[String: Any]])
            (frames[1]["rect"], frames[3]["rect"]) = (frames[3]["rect"], frames[1]["rect"])
            document["frames"] = frames
        } else {
            var frames = try #require(document["frames"] as? [String: Any])
            let names = frames.keys.sorted()
            var one = try #require(frames[names[1]] as? [String: Any]), three = try #require(frames[names[3]] as? [String: Any])
            (one["frame"], three["frame"]) = (three["frame"], one["frame"])
            frames[names[1]] = one
            frames[names[3]] = three
            document["frames"] = frames
        }
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: json))
        let reports = try Self.verify(input, [json])
        #expect(reports.status == 1)
        let report = try #require(reports.outputs.first)
        #expect(report["swappedRects"] as? [[Int]] == [[1, 3], [3, 1]], "\(report)")
        #expect(reports.stderr.contains("frame 1 shows GIF frame 3, frame 3 shows GIF frame 1"), "\(reports.stderr)")
    }

    /// `--verify` refuses to commit an output that fails (an impossible PSNR here): nothing lands, exit 1, one
    /// line per failing output on stderr after the report.
    @Test func failingVerifyLeavesNothingBehind() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Every pixel its own colour index: no encoder keeps that exactly, so no video reaches 200 dB.
        let noise: [UInt8] = (0..<256).map { (i: Int) -> UInt8 in UInt8((i * 7 + i / 16 * 3) % 8) }
        let gif = FixtureGIF(width: 16, height: 16, frames: [
            FixtureFrame(width: 16, height: 16, indices: noise, delay: 10),
            FixtureFrame(width: 16, height: 16, indices: Array(noise.reversed()), delay: 10),
        ])
        let input = try writeGIF(gif, to: folder)
        let mp4 = folder.appendingPathComponent("a.mp4").path
        let webp = folder.appendingPathComponent("a.webp").path
        let run = try runGifx(["convert", input, "-o", mp4, "-o", webp, "--verify", "--min-psnr", "200", "--quiet"])
        #expect(run.status == 1)
        #expect(!FileManager.default.fileExists(atPath: mp4))
        #expect(!FileManager.default.fileExists(atPath: webp))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["in.gif"])
        let lines = run.stderrLines.filter { $0.hasPrefix("gifx: ") }
        #expect(lines.count == 1 && lines[0].hasPrefix("gifx: \(mp4): verification failed: pixels:"), "\(run.stderr)")
    }

    // MARK: Helpers.

    struct Reports {
        var status: Int32
        var outputs: [[String: Any]]
        var stderr: String
        var stderrLines: [String]
    }

    static func verify(_ input: String, _ outputs: [String], extra: [String] = []) throws -> Reports {
        let run = try runGifx(["verify", input] + outputs + ["--json"] + extra, timeout: 120)
        let json = try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any]
        return Reports(
            status: run.status, outputs: json?["outputs"] as? [[String: Any]] ?? [], stderr: run.stderr,
            stderrLines: run.stderrLines)
    }
}

/// An Examples GIF, from this file's place in the repository.
func examplePath(_ name: String) -> String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Examples/\(name).gif").path
}
