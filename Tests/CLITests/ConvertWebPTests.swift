import ChildProcesses
import Foundation
import GifFixtures
import Testing

/// `gifx convert -o X.webp`, read back by Pillow (the `python3` on PATH, as `make deps` installs it) (libwebp's demuxer behind an independent reader): frame
/// count, each frame's duration in ms (= delay × 10), the loop count, and every pixel including alpha.
@Suite(.enabled(if: pillowReadsWebP(), "Pillow with WebP support (make deps installs it), the reader, is missing"))
struct ConvertWebPTests {
    /// What Pillow read: loop count, per-frame durations (ms) and RGBA frames.
    struct Reading: Decodable {
        var loop: Int
        var durations: [Int]
        var frames: [[UInt8]]
    }

    static func read(_ path: String) throws -> Reading {
        let script = """
            import json, sys
            from PIL import Image
            im = Image.open(sys.argv[1])
            durations, frames = [], []
            for i in range(im.n_frames):
                im.seek(i)
                im.load()
                durations.append(im.info["duration"])
                frames.append(list(im.convert("RGBA").tobytes()))
            print(json.dumps({"loop": im.info.get("loop", -1), "durations": durations, "frames": frames}))
            """
        let run = try CapturedRun.run("/usr/bin/env", ["python3", "-c", script, path])
        return try JSONDecoder().decode(Reading.self, from: run.stdout)
    }

    /// Lossless (the default): three distinct frames with transparency, delays 5, 6, 7 cs, loop forever.
    @Test func losslessKeepsDurationsLoopAndEveryPixelWithAlpha() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(ConvertCommandTests.gif, to: folder)
        let webp = folder.appendingPathComponent("a.webp").path
        let run = try runGifx(["convert", input, "-o", webp, "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        let reading = try Self.read(webp)
        #expect(reading.durations == [50, 60, 70])
        #expect(reading.loop == 0)
        #expect(reading.frames.count == 3)
        for (frame, (got, expected)) in zip(reading.frames, ConvertCommandTests.composites).enumerated() {
            #expect(got.count == expected.count * 4)
            guard got.count == expected.count * 4 else { continue }
            for (i, pixel) in expected.enumerated() {
                let rgba = Array(got[i * 4..<i * 4 + 4])
                if let pixel { #expect(rgba == pixel, "frame \(frame) pixel \(i)") } else {
                    #expect(rgba[3] == 0, "frame \(frame) pixel \(i): \(rgba)")
                }
            }
        }
    }

    /// NETSCAPE loop count 3 is 3 plays under flanimated and 4 under browser (docs/timeline.md); WebP's
    /// loop count is total plays. Lossy keeps the timing too (pixels are not compared there).
    @Test(arguments: [("flanimated", 3), ("browser", 4)])
    func loopCountIsThePolicysPlaysAndLossyKeepsTiming(policy: String, plays: Int) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let gif = FixtureGIF.solidFrames(
            width: 8, height: 8, colorIndices: [1, 2, 3, 4], delays: [2, 13, 0, 250], loopCounts: [3])
        let input = try writeGIF(gif, to: folder)
        let webp = folder.appendingPathComponent("a.webp").path
        let run = try runGifx(["convert", input, "-o", webp, "--webp-quality", "60", "--policy", policy, "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        let reading = try Self.read(webp)
        #expect(reading.loop == plays)
        // Delay 0 becomes 10 cs under both policies (docs/timeline.md); 2 cs stays 2 cs.
        #expect(reading.durations == [20, 130, 100, 2500])
    }
}

func pillowReadsWebP() -> Bool {
    let check = "from PIL import features; import sys; sys.exit(0 if features.check('webp') else 1)"
    return (try? CapturedRun.run("/usr/bin/env", ["python3", "-c", check]))?.status == 0
}
