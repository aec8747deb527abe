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
    /// The child's peak resident set size (wait4's ru_maxrss), so memory is measured per process,
    /// not in this test process where other suites run in parallel.
    var peakRSSBytes: Int = 0
    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    /// stderr split into non-empty lines.
    var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }
}

/// Runs `gifx arguments…` with optional standard input, killing it after `timeout` seconds
/// (times `testTimeScale`).
/// posix_spawn with stdin/stdout/stderr on temporary files: no pipe to drain, exact exit status.
func runGifx(
    _ arguments: [String], stdin: Data? = nil, timeout: TimeInterval = 30, environment: [String: String]? = nil
) throws -> GifxRun {
    let folder = try temporaryFolder("run")
    defer { try? FileManager.default.removeItem(at: folder) }
    let inPath = folder.appendingPathComponent("stdin").path
    let outPath = folder.appendingPathComponent("stdout").path
    let errPath = folder.appendingPathComponent("stderr").path
    try (stdin ?? Data()).write(to: URL(fileURLWithPath: inPath))

    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, stdin == nil ? "/dev/null" : inPath, O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)

    let executable = gifxExecutable().path
    let env = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp = env.map { strdup($0) } + [nil]
    defer { (argv + envp).forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
    guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }

    var status: Int32 = 0
    var usage = rusage()
    var timedOut = false
    let deadline = Date().addingTimeInterval(timeout * testTimeScale)
    while wait4(pid, &status, WNOHANG, &usage) == 0 {
        if Date() > deadline {
            timedOut = true
            kill(pid, SIGKILL)
            wait4(pid, &status, 0, &usage)
            break
        }
        usleep(1_000)
    }
    let exitStatus = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    return GifxRun(
        status: exitStatus, stdout: (try? Data(contentsOf: URL(fileURLWithPath: outPath))) ?? Data(),
        stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "", timedOut: timedOut,
        peakRSSBytes: usage.ru_maxrss * 1024)
}

/// A fresh empty folder under the temporary directory for one test's files.
func temporaryFolder(_ name: String = #function) throws -> URL {
    let safe = name.filter { $0.isLetter || $0.isNumber }
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("gifx-cli-\(safe)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Writes a fixture GIF into `folder` and returns its path.
func writeGIF(_ gif: FixtureGIF, to folder: URL, name: String = "in.gif") throws -> String {
    let url = folder.appendingPathComponent(name)
    try gif.encode().write(to: url)
    return url.path
}

