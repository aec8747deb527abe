import Foundation
import GifFixtures
import Testing

/// ffprobe's `key=value` lines for the first video stream (empty when ffprobe cannot read the file).
private func probeStream(_ path: String) -> [String: String] {
    guard let data = try? runTool(Oracle.tool("ffprobe"), [
        "-v", "error", "-select_streams", "v:0", "-show_entries",
        "stream=nb_frames,r_frame_rate,width,height,codec_tag_string", "-of", "default=nw=1", path,
    ]) else { return [:] }
    var fields: [String: String] = [:]
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
        let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
        if parts.count == 2 { fields[parts[0]] = parts[1] }
    }
    return fields
}

@Suite struct ToMP4CommandTests {
    private let gif = FixtureGIF.solidFrames(width: 6, height: 4, colorIndices: [1, 2, 3], delays: [4, 8, 4])

    @Test(.enabled(if: ffprobeAvailable(), "ffprobe (Debian package ffmpeg), the oracle, is not installed"))
    func defaultOutputSitsBesideTheInput() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(gif, to: folder, name: "clip.gif")
        let run = try runGifx(["to-mp4", input, "--preset", "ultrafast"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["clip.gif", "clip.mp4"])
        let stream = probeStream(folder.appendingPathComponent("clip.mp4").path)
        #expect(stream["nb_frames"] == "4")  // 16 cs at tick 4
        #expect(stream["r_frame_rate"] == "25/1")
    }

    @Test func standardInputNeedsAnOutputPath() throws {
        let run = try runGifx(["to-mp4", "-"], stdin: gif.encode())
        #expect(run.status == 64)
    }

    @Test(.enabled(if: ffprobeAvailable(), "ffprobe (Debian package ffmpeg), the oracle, is not installed"))
    func standardInputWithOutputAndStats() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("piped.mp4").path
        let run = try runGifx(["to-mp4", "-", "-o", output, "--stats", "--fps", "50", "--loops", "2"],
                              stdin: gif.encode())
        #expect(run.status == 0, "\(run.stderr)")
        let stats = try #require(JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        #expect(stats["frames"] as? Int == 3)
        #expect(stats["outputFrames"] as? Int == 16)  // 16 cs at 50 fps = 8 frames, twice
        #expect(stats["fps"] as? String == "50")
        #expect(stats["peakRSSBytes"] as? Int ?? 0 > 0)
        #expect(stats["cacheCapacity"] as? Int == 3)
        let encoder = try #require(stats["encoder"] as? [String: Any])
        #expect(encoder["encoder"] as? String == "libx264")
        #expect(encoder["preset"] as? String == "medium")
        #expect(encoder["lowMemory"] is Bool)
        let stream = probeStream(output)
        #expect(stream["nb_frames"] == "16")
    }

    @Test func existingOutputIsKeptWithoutOverwrite() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(gif, to: folder)
        let output = folder.appendingPathComponent("out.mp4")
        try Data("precious".utf8).write(to: output)
        let refused = try runGifx(["to-mp4", input, "-o", output.path])
        #expect(refused.status == 73)
        #expect(refused.stderrLines.count == 1)
        #expect(try Data(contentsOf: output) == Data("precious".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["in.gif", "out.mp4"])

        let replaced = try runGifx(["to-mp4", input, "-o", output.path, "--overwrite", "--preset", "ultrafast"])
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(try Data(contentsOf: output) != Data("precious".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["in.gif", "out.mp4"])
    }

    @Test func outputThatIsTheInputIsRefused() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(gif, to: folder)
        let before = try Data(contentsOf: URL(fileURLWithPath: input))
        let run = try runGifx(["to-mp4", input, "-o", input, "--overwrite"])
        #expect(run.status == 64)
        #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == before)
    }

    @Test func truncatedInputUnderStrictLeavesNothing() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let big = FixtureGIF.solidFrames(width: 32, height: 32, colorIndices: [1, 2, 3, 4], delays: [5, 5, 5, 5])
        let bytes = try big.encode()
        let input = folder.appendingPathComponent("cut.gif").path
        try bytes.prefix(bytes.count * 3 / 4).write(to: URL(fileURLWithPath: input))
        let output = folder.appendingPathComponent("out.mp4").path
        let strict = try runGifx(["to-mp4", input, "-o", output, "--strict"])
        #expect(strict.status == 65)
        #expect(strict.stderrLines.count == 1 && strict.stderr.hasPrefix("gifx: \(input): "))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["cut.gif"])
        // Without --strict the frames that decode are kept, with a warning.
        let lenient = try runGifx(["to-mp4", input, "-o", output, "--preset", "ultrafast"])
        #expect(lenient.status == 0, "\(lenient.stderr)")
        #expect(lenient.stderr.contains("warning"))
        #expect(FileManager.default.fileExists(atPath: output))
    }

    @Test func badOptionsAreUsageErrors() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(gif, to: folder)
        for extra in [["--crf", "60"], ["--preset", "warp"], ["--codec", "vp8"], ["--fps", "0"],
                      ["--loops", "0"], ["--background", "nope"], ["--width", "8", "--scale", "2"]] {
            let run = try runGifx(["to-mp4", input] + extra)
            #expect(run.status == 64, "\(extra): \(run.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["in.gif"])
    }
}

