import ChildProcesses
import Foundation
import GifFixtures
import Testing

/// `gifx batch to-mp4`: runs only when the binary has `to-mp4` and ffprobe is installed (the oracle).
@Suite(.enabled(if: ffprobeAvailable(), "ffprobe (Debian package ffmpeg), the oracle, is not installed"))
struct BatchToMP4Tests {
    @Test func convertsEveryGoodGIFAndReportsTheBadOne() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let library = try BatchLibrary(count: 4, badCount: 1, in: folder.appendingPathComponent("lib"))
        let out = folder.appendingPathComponent("out")
        let report = folder.appendingPathComponent("r.jsonl").path
        let run = try runGifx(["batch", "to-mp4", library.root.path, "--out-dir", out.path, "--report", report,
                               "--jobs", "2", "--memory-budget", "512M", "--quiet", "--", "--preset", "ultrafast"],
                              timeout: 120)
        #expect(run.status == 1, "\(run.stderr)")
        let lines = readReport(report).compactMap { $0 }
        #expect(lines.count == library.allInputs.count)
        for good in library.good {
            let mp4 = out.path + "/" + good.relativePath.dropLast(4) + ".mp4"
            let line = try #require(lines.first { $0.input == good.path })
            #expect(line.status == "ok")
            #expect(line.outputs == [mp4])
            #expect(line.frames == good.frames)
            // ffprobe, not gifx, says how long the video is: the GIF's frames × delay.
            let seconds = try #require(probeDuration(mp4))
            #expect(abs(seconds - Double(good.durationCentiseconds) / 100) < 0.005, "\(good.relativePath): \(seconds)")
        }
        let bad = try #require(lines.first { $0.input == library.bad[0] })
        #expect(bad.status == "failed")
        #expect(bad.exitCode == 65)
        #expect(filesUnder(out).count == library.good.count)
    }
}

/// `gifx batch convert --formats ...`: every output of each input from one run, listed on its report line,
/// all committed or none; a second run skips what is complete; a missing output makes the input stale.
@Suite(.enabled(if: ffprobeAvailable(), "ffprobe (Debian package ffmpeg), the oracle, is not installed"))
struct BatchConvertTests {
    @Test func writesEveryFormatPerInputAndResumes() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let library = try BatchLibrary(count: 3, badCount: 1, in: folder.appendingPathComponent("lib"))
        let out = folder.appendingPathComponent("out")
        let report = folder.appendingPathComponent("r.jsonl").path
        let arguments = ["batch", "convert", library.root.path, "--out-dir", out.path, "--report", report,
                         "--formats", "mp4,webm,png,timeline.json,sheet", "--jobs", "2", "--quiet",
                         "--", "--preset", "ultrafast"]
        let run = try runGifx(arguments, timeout: 180)
        #expect(run.status == 1, "\(run.stderr)")
        let lines = readReport(report).compactMap { $0 }
        #expect(lines.count == library.allInputs.count)
        for good in library.good {
            let base = out.path + "/" + good.relativePath.dropLast(4)
            let line = try #require(lines.first { $0.input == good.path })
            #expect(line.status == "ok")
            #expect(line.outputs == [".mp4", ".webm", ".png", ".timeline.json", ".sheet.png", ".sheet.json"].map { base + $0 })
            #expect(line.frames == good.frames)
            for video in [base + ".mp4", base + ".webm"] {
                let seconds = try #require(probeDuration(video))
                #expect(abs(seconds - Double(good.durationCentiseconds) / 100) < 0.005, "\(video): \(seconds)")
            }
        }
        let bad = try #require(lines.first { $0.input == library.bad[0] })
        #expect(bad.status == "failed")
        #expect(bad.outputs.isEmpty)
        #expect(filesUnder(out).count == library.good.count * 6, "nothing of the bad input, nothing temporary")

        // Complete inputs are skipped; one whose WebM is gone is converted again (all its outputs). Hidden
        // temporaries a killed run left (a WebM, a second sheet page) are swept; another program's file is not.
        let first = library.good[0]
        let firstBase = out.path + "/" + first.relativePath.dropLast(4)
        try FileManager.default.removeItem(atPath: firstBase + ".webm")
        let folderOfFirst = URL(fileURLWithPath: firstBase).deletingLastPathComponent().path
        let name = URL(fileURLWithPath: firstBase).lastPathComponent
        let leftovers = [".\(name).webm.gifx-Ab12Cd", ".\(name).sheet-1.png.gifx-Zz9Yy8"].map { folderOfFirst + "/" + $0 }
        let foreign = folderOfFirst + "/.\(name).webm.other-Ab12Cd"
        for path in leftovers + [foreign] { #expect(FileManager.default.createFile(atPath: path, contents: Data())) }
        try? FileManager.default.removeItem(atPath: report)
        let again = try runGifx(arguments, timeout: 180)
        #expect(again.status == 1, "\(again.stderr)")
        let second = readReport(report).compactMap { $0 }
        #expect(second.first { $0.input == first.path }?.status == "ok")
        #expect(second.filter { $0.status == "skipped" }.count == library.good.count - 1)
        for path in leftovers { #expect(!FileManager.default.fileExists(atPath: path), "\(path) left") }
        #expect(FileManager.default.fileExists(atPath: foreign))
        try FileManager.default.removeItem(atPath: foreign)
        #expect(filesUnder(out).count == library.good.count * 6)
    }

    @Test(arguments: [["--formats", "mp4,gif"], ["--formats", "mp4,mp4"], []])
    func formatsAreCheckedBeforeAnythingRuns(extra: [String]) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(FixtureGIF.solidFrames(width: 4, height: 4, colorIndices: [1], delays: [10]), to: folder)
        let out = folder.appendingPathComponent("out").path
        let run = try runGifx(["batch", "convert", input, "--out-dir", out] + extra)
        #expect(run.status == 64, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}

/// The container duration in seconds, as ffprobe reads it.
func probeDuration(_ path: String) -> Double? {
    guard let run = try? CapturedRun.run(
        Oracle.tool("ffprobe"), ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path]) else { return nil }
    return Double(run.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines))
}
