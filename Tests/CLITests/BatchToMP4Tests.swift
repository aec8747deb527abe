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
                               "--jobs", "2", "--memory-budget", "64M", "--quiet", "--", "--preset", "ultrafast"],
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

func ffprobeAvailable() -> Bool {
    FileManager.default.isExecutableFile(atPath: "/usr/bin/ffprobe")
}

/// The container duration in seconds, as ffprobe reads it.
func probeDuration(_ path: String) -> Double? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
    process.arguments = ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path]
    let pipe = Pipe()
    process.standardOutput = pipe
    guard (try? process.run()) != nil else { return nil }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Double(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
}
