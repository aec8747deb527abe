import Foundation
import GifFixtures
import Testing

/// `--stats` is one format for `convert`, `to-mp4` and `to-sprite` (docs/cli.md, `--stats`): the run's figures and one
/// object per output; `to-mp4` and `to-sprite` also give their one output's figures at the top level, and `batch`
/// reports the same object as `stats`. The expected figures are worked from the fixture's delays by hand.
@Suite struct StatsFormatTests {
    /// 3 frames of 5, 6 and 7 cs: a 1 cs tick, so 18 output frames at 100 fps, 0.18 s; 3 cells on a sheet.
    private let gif = FixtureGIF.solidFrames(width: 4, height: 4, colorIndices: [1, 2, 1], delays: [5, 6, 7])
    private static let runFields: Set = [
        "command", "frames", "decodedFrames", "outputs", "wallSeconds", "peakCacheBytes", "cacheCapacity", "decode",
        "peakRSSBytes",
    ]

    private func stats(_ arguments: [String]) throws -> [String: Any] {
        let run = try runGifx(arguments + ["--stats", "--quiet"], timeout: 120)
        #expect(run.status == 0, "\(arguments): \(run.stderr)")
        return try #require(JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
    }

    @Test func theThreeCommandsPrintOneFormat() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(gif, to: folder)
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        let video = try stats(["to-mp4", input, "-o", path("a.mp4"), "--preset", "ultrafast"])
        let sheet = try stats(["to-sprite", input, "-o", path("s.png")])
        let both = try stats(["convert", input, "-o", path("c.mp4"), "--sheet", path("c.png"), "--preset", "ultrafast"])
        for (command, stats) in [("to-mp4", video), ("to-sprite", sheet), ("convert", both)] {
            #expect(Self.runFields.isSubset(of: Set(stats.keys)), "\(command): \(stats.keys.sorted())")
            #expect(stats["command"] as? String == command)
            #expect(stats["frames"] as? Int == 3)
        }

        // to-mp4: its output, and the same figures at the top level under the names to-mp4 has always used.
        let mp4 = try #require((video["outputs"] as? [[String: Any]])?.first)
        #expect(mp4["kind"] as? String == "mp4")
        #expect(mp4["paths"] as? [String] == [path("a.mp4")])
        #expect(mp4["frames"] as? Int == 18 && video["outputFrames"] as? Int == 18)
        #expect(mp4["fps"] as? String == "100" && video["fps"] as? String == "100")
        #expect(abs((mp4["durationSeconds"] as? Double ?? 0) - 0.18) < 1e-9)
        #expect(abs((video["durationSeconds"] as? Double ?? 0) - 0.18) < 1e-9)
        #expect((video["timing"] as? [String: Any])?["mode"] as? String == "tick")
        #expect((mp4["timing"] as? [String: Any])?["outputFramesPerPlay"] as? Int == 18)

        // to-sprite: the sheet, and its figures at the top level.
        let cells = try #require((sheet["outputs"] as? [[String: Any]])?.first)
        #expect(cells["kind"] as? String == "sheet")
        #expect(cells["paths"] as? [String] == [path("s.png"), path("s.json")])
        #expect(cells["cells"] as? Int == 3 && sheet["cells"] as? Int == 3)
        #expect(sheet["pages"] as? Int == 1 && sheet["cellSize"] as? String == "4x4")

        // convert: one object per output, nothing lifted to the top level.
        let outputs = try #require(both["outputs"] as? [[String: Any]])
        #expect(outputs.map { $0["kind"] as? String } == ["mp4", "sheet"])
        #expect(outputs.first?["frames"] as? Int == 18 && outputs.last?["cells"] as? Int == 3)
        #expect(both["outputFrames"] == nil && both["fps"] == nil && both["cells"] == nil)
    }

    // No time limit: under the whole suite's load the two batches took over 2 minutes together (make test on
    // 2 cores, 2026-11-28), and alone 2 s; runGifx's own timeouts are the hang guard.
    @Test func batchReportsTheSameFormat() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        _ = try writeGIF(gif, to: inputs, name: "a.gif")
        let out = folder.appendingPathComponent("out").path
        let report = folder.appendingPathComponent("r.jsonl").path
        let run = try runGifx(
            ["batch", "to-mp4", inputs.path, "--out-dir", out, "--report", report, "--quiet", "--", "--preset", "ultrafast"],
            timeout: 300)
        #expect(run.status == 0, "\(run.stderr)")
        let line = try #require(readReport(report).first ?? nil)
        #expect(line.frames == 3 && abs((line.duration ?? 0) - 0.18) < 1e-9)
        let stats = try #require(line.object["stats"] as? [String: Any])
        #expect(stats["command"] as? String == "to-mp4" && stats["outputFrames"] as? Int == 18)
        #expect((stats["outputs"] as? [[String: Any]])?.first?["paths"] as? [String] == [out + "/a.mp4"])

        let converted = folder.appendingPathComponent("conv").path
        let convertReport = folder.appendingPathComponent("c.jsonl").path
        let convert = try runGifx(
            ["batch", "convert", "--formats", "png,sheet", inputs.path, "--out-dir", converted, "--report", convertReport,
             "--quiet"], timeout: 300)
        #expect(convert.status == 0, "\(convert.stderr)")
        let convertLine = try #require(readReport(convertReport).first ?? nil)
        #expect(convertLine.outputs == [converted + "/a.png", converted + "/a.sheet.png", converted + "/a.sheet.json"])
        let convertStats = try #require(convertLine.object["stats"] as? [String: Any])
        #expect(convertStats["command"] as? String == "convert")
        let outputs = try #require(convertStats["outputs"] as? [[String: Any]])
        // A PNG poster's `kind` has been `poster` since convert's first --stats (docs/guide.md).
        #expect(outputs.map { $0["kind"] as? String } == ["poster", "sheet"])
        #expect(outputs.last?["paths"] as? [String] == [converted + "/a.sheet.png", converted + "/a.sheet.json"])
    }
}
