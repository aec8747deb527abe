import Foundation
import GifFixtures
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `gifx batch --timeout` and `--max-memory`, and how a child killed by a signal is reported: each kind
/// of failure has its own status, the other inputs still convert, no temporary file is left behind.
/// None of these depends on machine speed: the hung input is a FIFO nobody writes to (the child blocks
/// in open(2) for ever), the slow one needs minutes of encoding on any machine and is stopped by the test
/// long before, and the memory-hungry one asks for more than the limit in one allocation.
@Suite(.serialized) struct BatchLimitsTests {
    /// A named pipe with a .gif name: opening it for reading never returns while nobody writes.
    static func makeHangingInput(in folder: URL) throws -> String {
        let path = folder.appendingPathComponent("hang.gif").path
        #expect(mkfifo(path, 0o644) == 0)
        return path
    }

    /// 100,000 frames of one pixel with 1 cs delays on a 64x64 canvas: the player's rule makes each 10 cs,
    /// 10,000 s of video, minutes of encoding on any machine (a debug build takes seconds just to read it).
    static func makeSlowInput(in folder: URL) throws -> String {
        let frames = (0..<100_000).map { FixtureFrame.solid(UInt8($0 % 8), left: $0 % 64, width: 1, height: 1, delay: 1) }
        let url = folder.appendingPathComponent("slow.gif")
        try FixtureGIF(width: 64, height: 64, frames: frames).write(to: url)
        return url.path
    }

    /// Two one-pixel frames on a 12000x12000 canvas: 576 MB a canvas, beyond --max-memory 256M.
    static func makeHungryInput(in folder: URL) throws -> URL {
        let hungry = folder.appendingPathComponent("hungry.gif")
        try FixtureGIF(width: 12000, height: 12000, frames: [
            .solid(1, width: 1, height: 1, delay: 10), .solid(2, left: 1, width: 1, height: 1, delay: 10),
        ]).write(to: hungry)
        return hungry
    }

    static func makeSmallInput(in folder: URL, name: String = "small.gif") throws -> String {
        let url = folder.appendingPathComponent(name)
        try FixtureGIF.solidFrames(width: 6, height: 4, colorIndices: [1, 2, 3], delays: [5, 5, 5]).write(to: url)
        return url.path
    }

    /// Waits (up to a minute, times `testTimeScale`) until `condition` holds.
    static func waitUntil(_ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(60 * testTimeScale)
        while !condition() {
            if Date() > deadline { return false }
            usleep(20_000)
        }
        return true
    }

    /// Whether `pid` has exec'd the conversion (its command line starts with /proc/self/exe).
    static func isConversion(_ pid: pid_t) -> Bool {
        let argv0 = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")))?.split(separator: 0).first
        return argv0.map { String(decoding: $0, as: UTF8.self) } == "/proc/self/exe"
    }

    /// `--timeout` for the hung-input test: 3 s, times `testTimeScale`.
    static var timeoutText: String { String(Int(3 * testTimeScale)) }

    static func hiddenFiles(in folder: URL) -> [String] {
        filesUnder(folder).filter { $0.split(separator: "/").last!.hasPrefix(".") }.sorted()
    }

    /// A hung conversion is stopped after --timeout with SIGTERM and reported as `timeout`, with no
    /// output and no temporary file; the other input converts and the batch exits 1. The timeout
    /// (3 s, times `testTimeScale`) is long enough for the small input on a loaded or ASan build.
    @Test func timeoutStopsAHungConversion() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let hang = try Self.makeHangingInput(in: folder)
        let small = try Self.makeSmallInput(in: folder)
        let out = folder.appendingPathComponent("out")
        let report = folder.appendingPathComponent("report.jsonl").path
        let run = try runGifx(
            ["batch", "timeline", hang, small, "--out-dir", out.path, "--report", report, "--jobs", "2",
             "--timeout", Self.timeoutText], timeout: 60)
        #expect(run.status == 1, "\(run.stderr)")
        let lines = readReport(report).compactMap { $0 }
        let hung = try #require(lines.first { $0.input == hang })
        #expect(hung.status == "timeout")
        #expect(hung.object["signal"] as? String == "SIGTERM")
        #expect(hung.exitCode == 143)
        #expect(hung.error?.hasPrefix("\(hang): timed out after \(Self.timeoutText) s") == true, "\(hung.error ?? "")")
        #expect(hung.outputs.isEmpty)
        #expect(lines.first { $0.input == small }?.status == "ok")
        #expect(filesUnder(out) == ["small.timeline.json"])
        #expect(run.stderr.contains("1 timed out"), "\(run.stderr)")
    }

    /// A conversion that ignores SIGTERM (here: stopped with SIGSTOP, so the signal stays pending) gets
    /// SIGKILL after the grace period; it cannot clean up, so the batch removes its hidden temporary MP4
    /// (created here by the test while the child is stopped, named as AtomicOutput names it).
    @Test func timeoutEscalatesToSIGKILLAndRemovesTheTemporaryOutput() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let hang = try Self.makeHangingInput(in: folder)
        let out = folder.appendingPathComponent("out")
        let report = folder.appendingPathComponent("report.jsonl").path
        let pid = try startGifx(
            ["batch", "to-mp4", hang, "--out-dir", out.path, "--report", report, "--timeout", "1"], logsIn: folder)
        // Stopped before its exec, the child would also stop the batch inside posix_spawn (vfork):
        // wait until it runs as a conversion (argv[0] is then /proc/self/exe, see ChildProcess).
        #expect(Self.waitUntil { childProcesses(of: pid).contains(where: Self.isConversion) }, "no child started")
        let child = try #require(childProcesses(of: pid).first(where: Self.isConversion))
        kill(child, SIGSTOP)
        let temporary = out.appendingPathComponent(".hang.mp4.gifx-Zz09aB")
        try Data("half an MP4".utf8).write(to: temporary)
        let started = Date()
        let status = waitGifx(pid, timeout: 60)
        #expect(status == 1)
        #expect(Date().timeIntervalSince(started) >= 4, "SIGKILL came before the 5 s grace")
        let line = try #require(readReport(report).first ?? nil)
        #expect(line.status == "timeout")
        #expect(line.object["signal"] as? String == "SIGKILL")
        #expect(line.exitCode == 128 + Int(SIGKILL))
        #expect(line.error?.contains("SIGKILL") == true, "\(line.error ?? "")")
        #expect(Self.hiddenFiles(in: out).isEmpty, "left: \(Self.hiddenFiles(in: out))")
        #expect(filesUnder(out).isEmpty)
    }

    /// A child killed by a signal is reported with the signal's name, its temporary file removed,
    /// and the batch goes on with the next input. SIGABRT (what a failed C assert raises) rather than
    /// SIGSEGV: under `make asan` AddressSanitizer catches SIGSEGV itself and exits 1, but not SIGABRT.
    @Test func childKilledBySignalIsReportedByName() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let slow = try Self.makeSlowInput(in: folder)
        let small = try Self.makeSmallInput(in: folder)
        let out = folder.appendingPathComponent("out")
        let report = folder.appendingPathComponent("report.jsonl").path
        let pid = try startGifx(
            ["batch", "to-mp4", slow, small, "--out-dir", out.path, "--report", report, "--jobs", "1"],
            logsIn: folder)
        #expect(Self.waitUntil { !Self.hiddenFiles(in: out).isEmpty }, "the child never created its temporary MP4")
        let child = try #require(childProcesses(of: pid).first)
        kill(child, SIGABRT)
        let status = waitGifx(pid, timeout: 120)
        #expect(status == 1)
        let lines = readReport(report).compactMap { $0 }
        let killed = try #require(lines.first { $0.input == slow })
        #expect(killed.status == "signal")
        #expect(killed.object["signal"] as? String == "SIGABRT")
        #expect(killed.exitCode == 128 + Int(SIGABRT))
        #expect(killed.error?.contains("killed by SIGABRT") == true, "\(killed.error ?? "")")
        #expect(lines.first { $0.input == small }?.status == "ok")
        #expect(filesUnder(out) == ["small.mp4"])
    }

    /// One pixel on a 12000x12000 canvas needs over 700 MB in one allocation (x264's picture buffers alone):
    /// under --max-memory 256M the child fails cleanly (exit 70, one line) and the report says `memory`;
    /// the small GIF in the same batch, same worker, still converts. The memory budget is set far above
    /// the rlimit so that the planner lets the conversion start (with the default, half of the machine's
    /// available memory shared by the jobs, whether it refuses up front with exit 78 depends on the
    /// machine): this test is about the rlimit, the safety net under a plan that is wrong.
    @Test(.disabled(if: underAddressSanitizer, "AddressSanitizer's shadow memory does not fit under RLIMIT_DATA"))
    func maxMemoryFailsTheHungryConversionOnly() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let hungry = try Self.makeHungryInput(in: folder)
        let small = try Self.makeSmallInput(in: folder)
        let out = folder.appendingPathComponent("out")
        let report = folder.appendingPathComponent("report.jsonl").path
        let run = try runGifx(
            ["batch", "to-mp4", hungry.path, small, "--out-dir", out.path, "--report", report, "--jobs", "1",
             "--max-memory", "256M", "--memory-budget", "64G"], timeout: 120)
        #expect(run.status == 1, "\(run.stderr)")
        let lines = readReport(report).compactMap { $0 }
        let failed = try #require(lines.first { $0.input == hungry.path })
        #expect(failed.status == "memory", "\(failed.object)")
        #expect([70, 74].contains(failed.exitCode ?? 0), "\(failed.object)")
        #expect(failed.object["signal"] is NSNull)
        #expect(failed.error == "\(hungry.path): out of memory: needs more than --max-memory 256M")
        #expect(lines.first { $0.input == small }?.status == "ok")
        #expect(filesUnder(out) == ["small.mp4"])
        #expect(run.stderr.contains("1 out of memory"), "\(run.stderr)")
    }

    /// The hungry GIF after a small one, on one worker: a worker that converted other inputs may hold heap
    /// they freed, so its allocation failure is judged again in a fresh process (the retry's jobStart has
    /// another pid) and reported once, as `memory`, exactly as a process of its own reports it.
    @Test(.disabled(if: underAddressSanitizer, "AddressSanitizer's shadow memory does not fit under RLIMIT_DATA"))
    func maxMemoryFailureAfterOtherInputsIsJudgedInAFreshWorker() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let small = try Self.makeSmallInput(in: folder, name: "a-small.gif")
        let hungry = try Self.makeHungryInput(in: folder)
        let out = folder.appendingPathComponent("out")
        let report = folder.appendingPathComponent("report.jsonl").path
        let run = try runGifx(
            ["batch", "to-mp4", small, hungry.path, "--out-dir", out.path, "--report", report, "--jobs", "1",
             "--max-memory", "256M", "--memory-budget", "64G", "--progress", "json"], timeout: 120)
        #expect(run.status == 1, "\(run.stderr)")
        let lines = readReport(report).compactMap { $0 }
        #expect(lines.count == 2, "one line per input: \(lines.map(\.object))")
        #expect(lines.first { $0.input == small }?.status == "ok")
        let failed = try #require(lines.first { $0.input == hungry.path })
        #expect(failed.status == "memory", "\(failed.object)")
        #expect(failed.error == "\(hungry.path): out of memory: needs more than --max-memory 256M")
        let starts = run.stderrLines.compactMap(ProgressJSONTests.object).filter { $0["event"] as? String == "jobStart" }
        let pids = { (input: String) in starts.filter { $0["input"] as? String == input }.compactMap { $0["pid"] as? Int } }
        #expect(pids(small).count == 1)
        #expect(pids(hungry.path).count == 2, "tried on the worker, then in a fresh one: \(starts)")
        #expect(pids(hungry.path).first == pids(small).first, "the first try on the small input's worker")
        #expect(Set(pids(hungry.path)).count == 2)
        #expect(filesUnder(out) == ["a-small.mp4"])
        #expect(run.stderr.contains("1 out of memory"), "\(run.stderr)")
    }

    /// The same canvas through outputs that open no encoder before decoding (a WebM's encoder waits for the
    /// first canvas, a poster has none): the decoder's own canvases do not fit, and that too is a clean
    /// exit 70 with one line, where Swift's allocator would abort (SIGABRT).
    @Test(.disabled(if: underAddressSanitizer, "AddressSanitizer's shadow memory does not fit under RLIMIT_DATA"))
    func maxMemoryStopsTheDecoderCleanlyToo() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let hungry = try Self.makeHungryInput(in: folder)
        let out = folder.appendingPathComponent("out")
        let report = folder.appendingPathComponent("report.jsonl").path
        let run = try runGifx(
            ["batch", "convert", hungry.path, "--formats", "webm,png", "--out-dir", out.path, "--report", report,
             "--max-memory", "256M", "--memory-budget", "64G"], timeout: 120)
        #expect(run.status == 1, "\(run.stderr)")
        let failed = try #require(readReport(report).compactMap { $0 }.first)
        #expect(failed.status == "memory", "\(failed.object)")
        #expect(failed.exitCode == 70, "\(failed.object)")
        #expect(failed.object["signal"] is NSNull, "\(failed.object)")
        #expect(filesUnder(out).isEmpty)
    }

    /// Hidden temporaries a killed run left for this batch's own inputs are removed at start; a file
    /// that is not one of them (another input's name, or not a temporary) is left alone.
    @Test func leftoverTemporariesOfAKilledRunAreRemoved() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let small = try Self.makeSmallInput(in: folder)
        let out = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let ours = out.appendingPathComponent(".small.timeline.json.gifx-Ab12Cd")
        let others = [".other.timeline.json.gifx-Ab12Cd", ".small.timeline.json.keep", "small.notes"]
        for name in [ours.lastPathComponent] + others {
            try Data("partial".utf8).write(to: out.appendingPathComponent(name))
        }
        let run = try runGifx(["batch", "timeline", small, "--out-dir", out.path], timeout: 60)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(filesUnder(out) == Set(others + ["small.timeline.json"]))
        #expect(run.stderr.contains("removed 1 temporary file"), "\(run.stderr)")
    }

    @Test func limitsAreValidated() throws {
        for arguments in [["--timeout", "0"], ["--timeout", "-1"], ["--max-memory", "1M"], ["--max-memory", "lots"]] {
            let run = try runGifx(["batch", "timeline", "x.gif", "--out-dir", "/tmp/unused"] + arguments)
            #expect(run.status == 64, "\(arguments): \(run.stderr)")
        }
    }
}
