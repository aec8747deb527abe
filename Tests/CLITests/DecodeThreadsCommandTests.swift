import Foundation
import GifFixtures
import Testing

/// `--threads` on the converting subcommands and `batch --jobs` dividing the cores among its children.
@Suite struct DecodeThreadsCommandTests {
    /// Twelve frames with partial rects, transparency and every disposal, so compositing order matters.
    private let gif = FixtureGIF(
        width: 12, height: 10,
        frames: (0..<12).map { i in
            FixtureFrame(
                left: i % 5, top: i % 4, width: 6, height: 5, indices: (0..<30).map { UInt8(($0 + i) % 8) },
                delay: 4, disposal: i % 4, transparentIndex: i % 3 == 0 ? 2 : nil)
        })

    private func stats(_ run: GifxRun) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
    }

    @Test func toSpriteWritesTheSameSheetWithOneOrTwoThreads() throws {
        let folder = try temporaryFolder()
        let input = try writeGIF(gif, to: folder)
        var outputs: [Int: (png: Data, json: Data)] = [:]
        for threads in [1, 2] {
            let png = folder.appendingPathComponent("t\(threads).png").path
            let json = folder.appendingPathComponent("t\(threads).json").path
            let run = try runGifx(
                ["to-sprite", input, "-o", png, "--json", json, "--threads", String(threads), "--stats", "--quiet"])
            #expect(run.status == 0, "\(run.stderr)")
            let decode = try #require(try stats(run)["decode"] as? [String: Any])
            #expect(decode["threads"] as? Int == threads)
            #expect(decode["window"] as? Int == (threads == 1 ? 0 : 4))
            #expect((decode["peakWindowBytes"] as? Int).map { threads == 1 ? $0 == 0 : $0 > 0 && $0 <= 4 * 120 } == true)
            let jsonData = try Data(contentsOf: URL(fileURLWithPath: json))
            // The JSON names its own PNG; compare it with that name taken out.
            outputs[threads] = (
                try Data(contentsOf: URL(fileURLWithPath: png)),
                Data(String(decoding: jsonData, as: UTF8.self).replacingOccurrences(of: "t\(threads)", with: "t").utf8))
        }
        #expect(outputs[1]?.png == outputs[2]?.png)
        #expect(outputs[1]?.json == outputs[2]?.json)
    }

    @Test func toMP4ReportsItsDecodeThreadsAndWindow() throws {
        let folder = try temporaryFolder()
        let input = try writeGIF(gif, to: folder)
        let run = try runGifx(
            ["to-mp4", input, "-o", folder.appendingPathComponent("out.mp4").path, "--threads", "2", "--stats",
             "--quiet"], timeout: 60)
        #expect(run.status == 0, "\(run.stderr)")
        let decode = try #require(try stats(run)["decode"] as? [String: Any])
        #expect(decode["threads"] as? Int == 2)
        #expect(decode["window"] as? Int == 4)
    }

    @Test(arguments: ["0", "-1", "257", "two"])
    func threadsOutOfRangeIsAUsageError(value: String) throws {
        let folder = try temporaryFolder()
        let input = try writeGIF(gif, to: folder)
        let run = try runGifx(["to-sprite", input, "--threads", value])
        #expect(run.status == 64, "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [URL(fileURLWithPath: input).lastPathComponent])
    }

    /// Each child of `batch --jobs 2` decodes with the cores divided by two (at least one thread), unless
    /// the options after `--` say otherwise; the children's `--stats` land in the report.
    @Test(.timeLimit(.minutes(hangGuardMinutes)))
    func batchDividesTheCoresAmongItsJobs() throws {
        let folder = try temporaryFolder()
        let inputs = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        for name in ["a", "b", "c"] { _ = try writeGIF(gif, to: inputs, name: "\(name).gif") }
        let perJob = max(1, ProcessInfo.processInfo.activeProcessorCount / 2)
        for (extra, expected) in [([String](), perJob), (["--", "--threads", "3"], 3)] {
            let out = folder.appendingPathComponent("out\(expected)-\(extra.count)")
            let report = folder.appendingPathComponent("report\(expected)-\(extra.count).jsonl").path
            let run = try runGifx(
                ["batch", "to-sprite", inputs.path, "--out-dir", out.path, "--jobs", "2", "--report", report,
                 "--quiet"] + extra, timeout: 90)
            #expect(run.status == 0, "\(run.stderr)")
            let lines = readReport(report)
            #expect(lines.count == 3)
            for line in lines {
                let decode = (line?.object["stats"] as? [String: Any])?["decode"] as? [String: Any]
                #expect(decode?["threads"] as? Int == expected, "\(line?.object ?? [:])")
            }
        }
    }
}
