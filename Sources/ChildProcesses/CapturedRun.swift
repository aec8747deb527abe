import Foundation
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// A program run to its end with its output kept: what the tests need of gifx, ffprobe or python3.
/// Standard output and error go to files (no pipe to drain, so a chatty child never blocks), read back
/// once it has ended.
package struct CapturedRun: Sendable {
    package var termination: ChildTermination
    package var stdout: Data
    package var stderr: Data
    /// The child was killed with SIGKILL after its timeout.
    package var timedOut: Bool

    /// Runs `executable arguments…` with `stdin` as its standard input (nil: /dev/null) and
    /// `environment` (nil: this process's own), killing it after `timeout` seconds.
    package static func run(
        _ executable: String, _ arguments: [String], stdin: Data? = nil, environment: [String: String]? = nil,
        timeout: TimeInterval = 600
    ) throws -> CapturedRun {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gifx-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let inPath = folder.appendingPathComponent("stdin").path
        let outPath = folder.appendingPathComponent("stdout").path
        let errPath = folder.appendingPathComponent("stderr").path
        if let stdin { try stdin.write(to: URL(fileURLWithPath: inPath)) }
        let child = try SpawnedProcess.spawn(
            executable, arguments, environment: environment, stdin: stdin == nil ? .null : .file(inPath),
            stdout: .file(outPath), stderr: .file(errPath))
        let (termination, timedOut) = try child.waitKilling(after: Date().addingTimeInterval(timeout))
        return CapturedRun(
            termination: termination, stdout: (try? Data(contentsOf: URL(fileURLWithPath: outPath))) ?? Data(),
            stderr: (try? Data(contentsOf: URL(fileURLWithPath: errPath))) ?? Data(), timedOut: timedOut)
    }

    /// The shell's status: the exit status, or 128 + the signal that killed the child.
    package var status: Int32 { termination.shellStatus }
    package var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    package var stderrText: String { String(decoding: stderr, as: UTF8.self) }
}
