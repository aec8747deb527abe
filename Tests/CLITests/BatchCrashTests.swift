import Foundation
import GifFixtures
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A batch child that dies of a signal inside the conversion (issue 42: libaom aborted on a failed assertion;
/// libx265 corrupted its heap), made to happen on demand with the hidden switch `GIFX_TEST_CRASH=SIGNAL@N`
/// (Sources/gifx/DeveloperSwitches.swift): SIGSEGV from a store to an unmapped address, SIGABRT from abort(3),
/// both after the 10th GIF frame, while the outputs' hidden temporaries are open. The report gives the input
/// its own status (`signal`, exitClass null: there is no exit status), names the signal and quotes the child's last line; the temporaries
/// are removed (the summary counts them); the next input, in a fresh worker, converts as if nothing happened.
/// The switch is in the environment of every child: the other inputs have fewer than 10 frames, so it never
/// fires for them.
@Suite(.serialized) struct BatchCrashTests {
    /// 40 frames of 16x16, 5 cs each: the switch fires a quarter of the way in.
    static func makeCrashingInput(in folder: URL) throws -> String {
        let url = folder.appendingPathComponent("a-crash.gif")
        try FixtureGIF.solidFrames(
            width: 16, height: 16, colorIndices: (0..<40).map { UInt8($0 % 3 + 1) }, delays: Array(repeating: 5, count: 40)
        ).write(to: url)
        return url.path
    }

    @Test(arguments: [
        ("SIGABRT", SIGABRT, ["to-mp4"]),
        ("SIGSEGV", SIGSEGV, ["to-mp4"]),
        ("SIGSEGV", SIGSEGV, ["convert", "--formats", "webm,webp"]),
        ("SIGABRT", SIGABRT, ["convert", "--formats", "mp4,webp"]),
    ])
    func childDyingOfASignalMidConversionIsItsOwnFailure(signalName: String, number: Int32, command: [String]) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let crash = try Self.makeCrashingInput(in: folder)
        let small = try BatchLimitsTests.makeSmallInput(in: folder, name: "b-small.gif")
        let out = folder.appendingPathComponent("out")
        let report = folder.appendingPathComponent("report.jsonl").path
        var environment = ProcessInfo.processInfo.environment
        environment["GIFX_TEST_CRASH"] = "\(signalName)@10"
        let run = try runGifx(
            ["batch"] + command.prefix(1) + [crash, small] + command.dropFirst()
                + ["--out-dir", out.path, "--report", report, "--jobs", "1"],
            timeout: 120, environment: environment)
        #expect(run.status == 1, "\(run.stderr)")
        let lines = readReport(report).compactMap { $0 }
        let killed = try #require(lines.first { $0.input == crash }, "\(lines.map(\.object))")
        #expect(killed.status == "signal")
        #expect(killed.object["exitClass"] is NSNull, "no exit status: the status is the class")
        #expect(killed.object["signal"] as? String == signalName)
        #expect(killed.exitCode == 128 + Int(number))
        #expect(killed.error?.hasPrefix("\(crash): the conversion was killed by \(signalName)") == true,
                "\(killed.error ?? "")")
        #expect(killed.error?.contains("GIFX_TEST_CRASH: dying of \(signalName) after 10 frames") == true,
                "the child's last line is quoted: \(killed.error ?? "")")
        // The next input, in the fresh worker that replaces the crashed one, is unaffected.
        #expect(lines.first { $0.input == small }?.status == "ok")
        let expected: Set<String> = command[0] == "to-mp4"
            ? ["b-small.mp4"] : Set(command[2].split(separator: ",").map { "b-small.\($0)" })
        #expect(filesUnder(out) == expected, "only the small input's outputs, no temporary left")
        // The crashed child's hidden temporaries existed and the batch removed them.
        #expect(run.stderr.contains("1 killed by a signal"), "\(run.stderr)")
        #expect(run.stderr.range(of: #"removed [1-9][0-9]* temporary file\(s\) left by killed conversions"#,
                                 options: .regularExpression) != nil, "\(run.stderr)")
    }

    /// A worker that converted an input and then crashes on the next costs that input only: the first
    /// stays converted (its report line and outputs), the crash is reported with its own last stderr line
    /// (each job's stderr is its own file, not the worker's), and a fresh worker (another pid) converts the
    /// third input.
    @Test func workerCrashingAfterEarlierInputsCostsOnlyTheInputInFlight() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try BatchLimitsTests.makeSmallInput(in: folder, name: "a-small.gif")
        let crashURL = folder.appendingPathComponent("b-crash.gif")
        try FileManager.default.moveItem(atPath: try Self.makeCrashingInput(in: folder), toPath: crashURL.path)
        let crash = crashURL.path
        let third = try BatchLimitsTests.makeSmallInput(in: folder, name: "c-small.gif")
        let out = folder.appendingPathComponent("out")
        let report = folder.appendingPathComponent("report.jsonl").path
        var environment = ProcessInfo.processInfo.environment
        environment["GIFX_TEST_CRASH"] = "SIGABRT@10"
        let run = try runGifx(
            ["batch", "to-mp4", first, crash, third, "--out-dir", out.path, "--report", report, "--jobs", "1",
             "--progress", "json"], timeout: 120, environment: environment)
        #expect(run.status == 1, "\(run.stderr)")
        let lines = readReport(report).compactMap { $0 }
        #expect(lines.map(\.input) == [first, crash, third])
        #expect(lines.map(\.status) == ["ok", "signal", "ok"])
        let killed = try #require(lines.first { $0.input == crash })
        #expect(killed.object["signal"] as? String == "SIGABRT")
        #expect(killed.error?.contains("GIFX_TEST_CRASH: dying of SIGABRT after 10 frames") == true, "\(killed.error ?? "")")
        let starts = run.stderrLines.compactMap(ProgressJSONTests.object).filter { $0["event"] as? String == "jobStart" }
        let pids = starts.compactMap { $0["pid"] as? Int }
        #expect(pids.count == 3, "\(starts)")
        #expect(pids.count == 3 && pids[0] == pids[1] && pids[2] != pids[1], "the crashed worker is replaced: \(pids)")
        #expect(filesUnder(out) == ["a-small.mp4", "c-small.mp4"])
    }

    /// Outside a batch the switch kills gifx itself with the real signal (no handler turns it into an exit
    /// status), which is what the batch tests above rely on; an input shorter than N frames is unaffected.
    @Test func switchKillsWithTheRealSignalAndOnlyAfterNFrames() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let crash = try Self.makeCrashingInput(in: folder)
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        environment["GIFX_TEST_CRASH"] = "SIGSEGV@10"
        let output = folder.appendingPathComponent("a.mp4").path
        let killed = try runGifx(["to-mp4", crash, "-o", output, "--quiet"], timeout: 60, environment: environment)
        #expect(killed.status == 128 + SIGSEGV, "\(killed.stderr)")
        environment["GIFX_TEST_CRASH"] = "SIGSEGV@41"
        let whole = try runGifx(["to-mp4", crash, "-o", output, "--quiet"], timeout: 60, environment: environment)
        #expect(whole.status == 0, "\(whole.stderr)")
        #expect(FileManager.default.fileExists(atPath: output))
    }
}
