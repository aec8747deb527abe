import ChildProcesses
import Foundation
import GifFixtures
import SystemPackage
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `--progress json` (issue 26, part 7): JSON lines read from gifx's stderr through a pipe WHILE it runs,
/// and the last line on every exit (success, failure, SIGINT); `--progress-fd`; `batch`'s job lines.
@Suite struct ProgressJSONTests {
    /// 480×360, 150 frames of 3 cs alternating colours: a second or two of decoding and x264 in a debug build.
    static let gif = FixtureGIF.solidFrames(
        width: 480, height: 360, colorIndices: (0..<150).map { UInt8(1 + $0 % 6) }, delays: Array(repeating: 3, count: 150))

    @Test func linesArriveWhileTheConversionRunsAndEndWithOK() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.gif, to: folder)
        let mp4 = folder.appendingPathComponent("a.mp4").path
        let watched = try WatchedRun(["to-mp4", input, "-o", mp4, "--progress", "json", "--preset", "fast"])
        var progress: [[String: Any]] = []
        var end: [String: Any]?
        var seenWhileRunning = false
        while let line = watched.nextLine() {
            guard let object = Self.object(line) else {
                Issue.record("not a JSON line: \(line)")
                continue
            }
            switch object["event"] as? String {
            case "progress":
                if progress.isEmpty { seenWhileRunning = try watched.stillRunning() }
                progress.append(object)
            case "end": end = object
            default: Issue.record("unexpected event: \(line)")
            }
        }
        let status = try watched.finish()
        #expect(status == 0)
        #expect(seenWhileRunning, "the first progress line must arrive before gifx exits")
        #expect(progress.count >= 2, "\(progress.count) progress lines")
        let done = progress.compactMap { ($0["frames"] as? [String: Any])?["done"] as? Int }
        #expect(done == done.sorted() && done.count == progress.count, "frames.done must not go back: \(done)")
        #expect(done.last == 150)
        #expect(progress.allSatisfy { ($0["frames"] as? [String: Any])?["total"] as? Int == 150 })
        #expect(progress.allSatisfy { $0["outputBytes"] is Int && $0["elapsedSeconds"] is Double })
        #expect(progress.dropFirst().allSatisfy { $0["etaSeconds"] is Double })
        let end_ = try #require(end)
        #expect(end_["status"] as? String == "ok")
        #expect(end_["exitCode"] as? Int == 0)
        let size = try FileManager.default.attributesOfItem(atPath: mp4)[.size] as? Int
        #expect(end_["outputBytes"] as? Int == size)
        #expect(watched.lines.last.flatMap(Self.object)?["event"] as? String == "end", "the end line is the last")
    }

    /// A damaged GIF: gifx's one error line, then the end line with status failed and exit code 65.
    @Test func failureEndsWithAFailedLine() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("bad.gif").path
        try Data("GIF89a".utf8).write(to: URL(fileURLWithPath: input))
        let run = try runGifx(["to-mp4", input, "-o", folder.appendingPathComponent("a.mp4").path, "--progress", "json"])
        #expect(run.status == 65)
        let end = try #require(run.stderrLines.last.flatMap(Self.object), "\(run.stderr)")
        #expect(end["event"] as? String == "end")
        #expect(end["status"] as? String == "failed")
        #expect(end["exitCode"] as? Int == 65)
        #expect((end["error"] as? String)?.contains("malformed GIF") == true, "\(end)")
        #expect(run.stderrLines.first?.hasPrefix("gifx: ") == true)
    }

    /// A command line refused before any command runs (the parser, a `validate()`) still ends with a line.
    @Test func aRefusedCommandLineEndsWithAFailedLine() throws {
        for arguments in [["to-mp4", "a.gif", "--fps", "0"], ["convert", "a.gif", "-o", "-"], ["to-mp4", "--bogus"]] {
            let run = try runGifx(arguments + ["--progress", "json"])
            #expect(run.status == 64)
            let ends = run.stderrLines.compactMap(Self.object).filter { $0["event"] as? String == "end" }
            #expect(ends.count == 1, "\(arguments): \(run.stderr)")
            #expect(ends.first?["status"] as? String == "failed")
            #expect(ends.first?["exitCode"] as? Int == 64)
        }
    }

    /// SIGINT mid-run: the partial output is removed and the end line says so (exit 130, signal SIGINT).
    @Test func interruptEndsWithASignalLine() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.gif, to: folder)
        let mp4 = folder.appendingPathComponent("a.mp4").path
        let watched = try WatchedRun(["to-mp4", input, "-o", mp4, "--progress", "json", "--preset", "fast"])
        var end: [String: Any]?
        var interrupted = false
        while let line = watched.nextLine() {
            let object = Self.object(line)
            if object?["event"] as? String == "progress", !interrupted {
                interrupted = true
                watched.process.send(SIGINT)
            }
            if object?["event"] as? String == "end" { end = object }
        }
        let status = try watched.finish()
        #expect(status == 130)
        let end_ = try #require(end, "\(watched.lines)")
        #expect(end_["status"] as? String == "failed")
        #expect(end_["exitCode"] as? Int == 130)
        #expect(end_["signal"] as? String == "SIGINT")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["in.gif"])
    }

    /// `--progress-fd 1`: the lines go to that descriptor (here stdout), stderr keeps none of them.
    @Test func progressFDTakesTheLines() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(FixtureGIF.solidFrames(width: 16, height: 16, colorIndices: [1, 2], delays: [10, 20]), to: folder)
        let run = try runGifx(
            ["to-mp4", input, "-o", folder.appendingPathComponent("a.mp4").path, "--progress-fd", "1", "--preset", "ultrafast"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
        let lines = run.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.first.flatMap(Self.object)?["event"] as? String == "progress")
        #expect(lines.last.flatMap(Self.object)?["status"] as? String == "ok")
        let refused = try runGifx(["to-mp4", input, "--progress-fd", "987"])
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("--progress-fd 987 is not an open file descriptor"))
    }

    /// `batch --progress json`: a jobStart line per child, a jobEnd line per input (status, exit code and
    /// class, seconds), and the end line with the counts.
    @Test func batchWritesJobLinesAndCounts() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        _ = try writeGIF(FixtureGIF.solidFrames(width: 16, height: 16, colorIndices: [1, 2], delays: [10, 20]), to: inputs, name: "a.gif")
        try Data("GIF89a".utf8).write(to: inputs.appendingPathComponent("b.gif"))
        let run = try runGifx(
            ["batch", "to-mp4", inputs.path, "--out-dir", folder.appendingPathComponent("out").path, "--jobs", "1",
             "--progress", "json", "--", "--preset", "ultrafast"], timeout: 60)
        #expect(run.status == 1, "\(run.stderr)")
        let objects = run.stderrLines.compactMap(Self.object)
        let starts = objects.filter { $0["event"] as? String == "jobStart" }
        let ends = objects.filter { $0["event"] as? String == "jobEnd" }
        #expect(starts.count == 2)
        #expect(ends.map { $0["status"] as? String } == ["ok", "failed"])
        #expect(ends.last?["exitCode"] as? Int == 65)
        #expect(ends.last?["exitClass"] as? String == "malformed")
        #expect(ends.allSatisfy { $0["seconds"] is Double })
        let end = try #require(objects.last)
        #expect(end["event"] as? String == "end")
        #expect(end["status"] as? String == "failed")
        #expect(end["converted"] as? Int == 1 && end["failed"] as? Int == 1)
        let refused = try runGifx(
            ["batch", "to-mp4", inputs.path, "--out-dir", folder.appendingPathComponent("out").path, "--", "--progress",
             "json"])
        #expect(refused.status == 64)
    }

    static func object(_ line: String) -> [String: Any]? {
        guard line.hasPrefix("{") else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
}

/// gifx with its stderr on a pipe this test reads line by line while the process runs.
private final class WatchedRun {
    let process: SpawnedProcess
    private let readEnd: FileDescriptor
    private var buffer: [UInt8] = []
    private var ended: ChildTermination?
    private(set) var lines: [String] = []

    private let folder: URL

    /// stderr is a named pipe: this process opens its read end (close-on-exec from the open, so no child
    /// another test spawns meanwhile holds it), the child opens it as its stderr, and the read end sees
    /// the end of the stream when the child, its only writer, exits.
    init(_ arguments: [String]) throws {
        folder = try temporaryFolder("watched")
        let fifo = folder.appendingPathComponent("stderr").path
        guard mkfifo(fifo, 0o600) == 0 else { throw Errno(rawValue: errno) }
        // Non-blocking so the open does not wait for a writer; then blocking reads.
        readEnd = try FileDescriptor.open(fifo, .readOnly, options: [.closeOnExec, .nonBlocking])
        _ = fcntl(readEnd.rawValue, F_SETFL, fcntl(readEnd.rawValue, F_GETFL) & ~O_NONBLOCK)
        do {
            process = try SpawnedProcess.spawn(gifxExecutable().path, arguments, stderr: .file(fifo))
        } catch {
            try? readEnd.close()
            throw error
        }
    }

    deinit {
        try? readEnd.close()
        try? FileManager.default.removeItem(at: folder)
    }

    /// The next line of stderr; nil at its end (the process closed it: it exited).
    func nextLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                lines.append(line)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { read(readEnd.rawValue, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                guard !buffer.isEmpty else { return nil }
                let line = String(decoding: buffer, as: UTF8.self)
                buffer.removeAll()
                lines.append(line)
                return line
            }
            buffer += chunk[..<count]
        }
    }

    /// Whether the process has not exited yet (reaping it if it has).
    func stillRunning() throws -> Bool {
        if ended != nil { return false }
        ended = try process.wait(until: Date())
        return ended == nil
    }

    /// Waits for the exit (killing after 120 s) and returns the shell status.
    func finish() throws -> Int32 {
        if let ended { return ended.shellStatus }
        let (termination, _) = try process.waitKilling(after: Date().addingTimeInterval(120 * testTimeScale))
        ended = termination
        return termination.shellStatus
    }
}
