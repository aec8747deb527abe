import Foundation
import GifFixtures
import Testing

/// 12 frames of 3/3/4 cs (a 30 fps export), colours cycling.
private let thirty = FixtureGIF.solidFrames(
    width: 8, height: 8, colorIndices: (0..<12).map { UInt8(1 + $0 % 7) },
    delays: (0..<12).map { [3, 3, 4][$0 % 3] })

/// Issue 14's options on the command line: `to-mp4 --vfr / --fps auto / --max-fps`, `--stats` timing,
/// the level warning, and `timeline --fps`.
@Suite struct TimingOptionsCommandTests {
    @Test("bad combinations are usage errors (64) naming the options", arguments: [
        ["--vfr", "--fps", "30"], ["--vfr", "--max-fps", "60"], ["--fps", "30", "--max-fps", "20"],
        ["--fps", "fast"], ["--max-fps", "0"],
    ])
    func badCombinations(_ options: [String]) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(thirty, to: folder)
        let run = try runGifx(["to-mp4", input, "-o", folder.appendingPathComponent("o.mp4").path] + options)
        #expect(run.status == 64, "\(options): \(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("o.mp4").path))
    }

    @Test("--stats reports the rate, output frames, worst error, frames never shown, level and why", arguments: [
        (["--fps", "auto"], "30", 12, 6.667, 0),
        (["--vfr"], "vfr", 12, 0.0, 0),
        ([], "100", 40, 0.0, 0),
        (["--max-fps", "20"], "20", 8, 20.0, 4),
    ])
    func stats(_ options: [String], _ rate: String, _ frames: Int, _ worstMs: Double, _ neverShown: Int) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(thirty, to: folder)
        let run = try runGifx(
            ["to-mp4", input, "-o", folder.appendingPathComponent("o.mp4").path, "--stats", "--preset", "ultrafast"]
                + options)
        #expect(run.status == 0, "\(run.stderr)")
        let stats = try #require(JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        let timing = try #require(stats["timing"] as? [String: Any])
        #expect(stats["fps"] as? String == rate)
        #expect(timing["rate"] as? String == rate)
        #expect(stats["outputFrames"] as? Int == frames)
        #expect(abs((timing["worstStartErrorMs"] as? Double ?? -1) - worstMs) < 0.001)
        #expect(timing["gifFramesNeverShown"] as? Int == neverShown)
        // 8×8 is one macroblock: level 1 allows 1,485 MB/s.
        #expect(timing["h264Level"] as? String == "1")
        let encoder = try #require(stats["encoder"] as? [String: Any])
        #expect((encoder["reason"] as? String)?.hasPrefix("fastest settings within") == true)
        #expect(encoder["lowMemory"] as? Bool == false)
        #expect(abs((stats["durationSeconds"] as? Double ?? 0) - 0.4) < 1e-9)
        // Dropped frames are never silent: one warning line, only when some are dropped.
        if neverShown > 0 {
            #expect(run.stderrLines == [
                "gifx: \(input): warning: at 20 fps 4 of 12 GIF frames are never shown; worst start error of the "
                    + "others 20.0 ms",
            ])
        } else {
            #expect(run.stderr.isEmpty, "\(run.stderr)")
        }
    }

    @Test("a budget below the leanest settings is refused (exit 78, nothing written) naming the smallest that works, which then runs within it")
    func budgetTooSmallAndLeaner() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(thirty, to: folder)
        let output = folder.appendingPathComponent("o.mp4").path
        let refused = try runGifx(["to-mp4", input, "-o", output, "--memory-budget", "8M", "--threads", "2"])
        #expect(refused.status == 78)
        #expect(refused.stderrLines.count == 1)
        let line = try #require(refused.stderrLines.first)
        #expect(line.contains("a memory budget of 8 MiB is too small"), "\(line)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["in.gif"])
        let smallest = try #require(line.split(separator: " ").dropLast().last.flatMap { Int($0) })
        let run = try runGifx([
            "to-mp4", input, "-o", output, "--stats", "--memory-budget", "\(smallest)M", "--threads", "2",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let stats = try #require(JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        let encoder = try #require(stats["encoder"] as? [String: Any])
        #expect((encoder["reason"] as? String)?.contains("\(smallest) MiB budget (given)") == true)
        let memory = try #require(stats["memory"] as? [String: Any])
        let shares = try #require(memory["shares"] as? [[String: Any]])
        let planned = shares.compactMap { $0["plannedBytes"] as? Int }.reduce(0, +)
        #expect(planned <= smallest << 20)
        #expect(memory["budgetBytes"] as? Int == smallest << 20)
    }

    @Test("a stream above level 4.2 warns once, naming --vfr and --max-fps 60; --quiet silences it")
    func levelWarning() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // 1920×1080 at 100 fps (2 + 3 cs): level 5.1.
        let gif = FixtureGIF.solidFrames(width: 1920, height: 1080, colorIndices: [1, 2], delays: [2, 3])
        let input = try writeGIF(gif, to: folder)
        let output = folder.appendingPathComponent("o.mp4").path
        let loud = try runGifx(["to-mp4", input, "-o", output, "--preset", "ultrafast"], timeout: 60)
        #expect(loud.status == 0, "\(loud.stderr)")
        #expect(loud.stderrLines.count == 1)
        #expect(loud.stderr.contains("H.264 level 5.1") && loud.stderr.contains("--vfr or --max-fps 60"))
        let quiet = try runGifx(["to-mp4", input, "-o", output, "--overwrite", "--quiet", "--preset", "ultrafast"],
                                timeout: 60)
        #expect(quiet.status == 0)
        #expect(quiet.stderr.isEmpty)
        // VFR at the peak 50 fps is level 4.2: no warning.
        let vfr = try runGifx(["to-mp4", input, "-o", output, "--overwrite", "--vfr", "--preset", "ultrafast"],
                              timeout: 60)
        #expect(vfr.status == 0)
        #expect(vfr.stderr.isEmpty, "\(vfr.stderr)")
    }

    @Test("timeline --fps auto prints the plan; --json adds a plan object and keeps every gifx.timeline/1 field")
    func timelinePlan() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(thirty, to: folder)
        let table = try runGifx(["timeline", input, "--fps", "auto"])
        #expect(table.status == 0)
        let lines = table.stdoutText.split(separator: "\n")
        #expect(lines.count == 14)  // header, 12 frames, plan line
        #expect(lines.last?.hasPrefix("plan auto: 30 fps, 12 output frames, worst start error 6.667 ms") == true)
        // Frame 2 starts at 6 cs and shows at output 2, 6.67 cs: +0.67 cs = +6.67 ms.
        #expect(lines[3].split(separator: " ").map(String.init) == ["2", "0.060", "0.0667", "+6.67", "1"])

        let plain = try runGifx(["timeline", input, "--json"])
        let withPlan = try runGifx(["timeline", input, "--json", "--fps", "vfr"])
        var document = try #require(JSONSerialization.jsonObject(with: withPlan.stdout) as? [String: Any])
        let plan = try #require(document.removeValue(forKey: "plan") as? [String: Any])
        let original = try #require(JSONSerialization.jsonObject(with: plain.stdout) as? [String: Any])
        #expect(NSDictionary(dictionary: document).isEqual(to: original))
        #expect(plan["kind"] as? String == "vfr")
        #expect(plan["outputFrames"] as? Int == 12)
        #expect((plan["peakRate"] as? [String: Int]) == ["num": 100, "den": 3])
        let frames = try #require(plan["frames"] as? [[String: Any]])
        #expect(frames.count == 12)
        #expect(frames[2]["start"] as? Int == 6)
        #expect((frames[2]["outputStart"] as? [String: Int]) == ["num": 6, "den": 1])
        #expect(frames[2]["errorMicroseconds"] as? Int == 0)
    }

    /// `timeline --max-fps 20` shows the plan to-mp4 --max-fps 20 encodes: the same rate, frames and drops as
    /// its --stats (20 fps, 8 output frames, 4 GIF frames never shown); --fps vfr or N with it is a usage error.
    @Test func timelineMaxFpsShowsToMP4sCappedPlan() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(thirty, to: folder)
        let run = try runGifx(["timeline", input, "--json", "--max-fps", "20"])
        #expect(run.status == 0, "\(run.stderr)")
        let document = try #require(JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        let plan = try #require(document["plan"] as? [String: Any])
        #expect((plan["rate"] as? [String: Int]) == ["num": 20, "den": 1])
        #expect(plan["outputFrames"] as? Int == 8)
        #expect(plan["framesNeverShown"] as? Int == 4)
        let stats = try runGifx(["to-mp4", input, "-o", folder.appendingPathComponent("a.mp4").path, "--max-fps", "20",
                                 "--preset", "ultrafast", "--stats", "--quiet"])
        let timing = try #require((JSONSerialization.jsonObject(with: stats.stdout) as? [String: Any])?["timing"] as? [String: Any])
        #expect(timing["outputFramesPerPlay"] as? Int == plan["outputFrames"] as? Int)
        #expect(timing["gifFramesNeverShown"] as? Int == plan["framesNeverShown"] as? Int)
        for bad in [["--fps", "vfr"], ["--fps", "30"]] {
            #expect(try runGifx(["timeline", input, "--max-fps", "20"] + bad).status == 64)
        }
    }
}
