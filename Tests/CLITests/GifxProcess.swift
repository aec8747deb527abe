import ChildProcesses
import Foundation
import GifFixtures

#if canImport(Glibc)
import Glibc
#endif

/// The `gifx` binary built beside this test bundle (SwiftPM puts both in the same products folder).
func gifxExecutable() -> URL {
    var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = folder.appendingPathComponent("gifx")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        folder.deleteLastPathComponent()
    }
    fatalError("gifx binary not found next to \(CommandLine.arguments[0]); build it with `swift build` first")
}

/// What one run of `gifx` did.
struct GifxRun: Sendable {
    /// Exit status, or 128 + signal number when killed (as a shell reports it).
    var status: Int32
    var stdout: Data
    var stderr: String
    var timedOut: Bool
    /// The child's peak resident set size (wait4's ru_maxrss): a growth measured per process, not in this
    /// test process where other suites run in parallel; as an absolute figure it is at least this process's
    /// own peak at the spawn (use `through: /usr/bin/time`).
    var peakRSSBytes: Int = 0
    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    /// stderr split into non-empty lines.
    var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }
}

/// Runs `gifx arguments…` with optional standard input, killing it after `timeout` seconds
/// (times `testTimeScale`). Through `CapturedRun` (stdin/stdout/stderr on temporary files: no pipe to
/// drain, exact exit status, wait4's peak RSS). `through` runs it under another program (`/usr/bin/time -f %M
/// -o FILE`: an absolute peak RSS; wait4's figure for a child spawned from this process is at least this
/// process's own peak, since Linux keeps the spawner's high-water mark across exec).
func runGifx(
    _ arguments: [String], stdin: Data? = nil, timeout: TimeInterval = 30, environment: [String: String]? = nil,
    through wrapper: [String] = []
) throws -> GifxRun {
    let program = wrapper.first ?? gifxExecutable().path
    let programArguments = wrapper.isEmpty ? arguments : Array(wrapper.dropFirst()) + [gifxExecutable().path] + arguments
    let run = try CapturedRun.run(
        program, programArguments, stdin: stdin, environment: environment, timeout: timeout * testTimeScale)
    return GifxRun(
        status: run.status, stdout: run.stdout, stderr: String(decoding: run.stderr, as: UTF8.self),
        timedOut: run.timedOut, peakRSSBytes: run.termination.peakRSSBytes)
}

/// A fresh empty folder under the temporary directory for one test's files.
func temporaryFolder(_ name: String = #function) throws -> URL {
    let url = TestScratch.path("cli", name: name)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Writes a fixture GIF into `folder` and returns its path.
func writeGIF(_ gif: FixtureGIF, to folder: URL, name: String = "in.gif") throws -> String {
    let url = folder.appendingPathComponent(name)
    try gif.encode().write(to: url)
    return url.path
}

