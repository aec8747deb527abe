import ChildProcesses
import Foundation
import GifFixtures
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// Runs `gifx arguments…` like `runGifx`, but with standard input from a pipe that `writer` feeds on a
/// thread of its own, closed once `writer` returns: a producer that is slow or closes late. `writer` may
/// write up to the pipe's buffer (64 KiB) whether or not gifx reads.
func runGifx(
    _ arguments: [String], stdinPipe writer: @escaping @Sendable (FileDescriptor) -> Void,
    timeout: TimeInterval = 30, environment: [String: String]? = nil
) throws -> GifxRun {
    let folder = try temporaryFolder("pipe")
    defer { try? FileManager.default.removeItem(at: folder) }
    let fifo = folder.appendingPathComponent("stdin").path
    let outPath = folder.appendingPathComponent("stdout").path
    let errPath = folder.appendingPathComponent("stderr").path
    // A named pipe, so the write end is close-on-exec from its open: no child another test spawns
    // meanwhile can hold it (which would keep gifx from seeing the end of its input). Opened read-write,
    // it never blocks, and the child's read-only open of the pipe completes at once.
    guard mkfifo(fifo, 0o600) == 0 else { throw Errno(rawValue: errno) }
    let writeEnd = try FileDescriptor.open(fifo, .readWrite, options: [.closeOnExec])
    let child: SpawnedProcess
    do {
        child = try SpawnedProcess.spawn(
            gifxExecutable().path, arguments, environment: environment, stdin: .file(fifo),
            stdout: .file(outPath), stderr: .file(errPath))
    } catch {
        try? writeEnd.close()
        throw error
    }
    let written = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        writer(writeEnd)
        try? writeEnd.close()
        written.signal()
    }
    defer { written.wait() }
    let (termination, timedOut) = try child.waitKilling(after: Date().addingTimeInterval(timeout * testTimeScale))
    return GifxRun(
        status: termination.shellStatus, stdout: (try? Data(contentsOf: URL(fileURLWithPath: outPath))) ?? Data(),
        stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "", timedOut: timedOut,
        peakRSSBytes: termination.peakRSSBytes)
}
