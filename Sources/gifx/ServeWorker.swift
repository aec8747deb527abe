import CProcess
import Foundation
import GifxKit
import GifxPOSIXFiles
import GifxServer
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// A worker process of `gifx serve --workers` (issue 50; the service's side is `WorkerConverter`): started as
/// `gifx` with `GIFX_SERVE_WORKER=1`, it reads one `ConversionJob` per line on standard input, converts it with
/// the library on this thread, and writes one `WorkerReply` per line on standard output; end of input: exit 0.
/// It asks the kernel for SIGKILL when the service ends (`GIFX_SERVE_PARENT`), so no worker outlives it. A
/// crash here ends this process only; the service answers that one request and starts another worker.
enum ServeWorker {
    /// In a process started as a service worker, serves jobs and exits; anywhere else returns at once.
    static func serveIfRequested() {
        guard EnvironmentVariable.value("GIFX_SERVE_WORKER") == "1" else { return }
        unsetenv("GIFX_SERVE_WORKER")
        if let text = EnvironmentVariable.value("GIFX_SERVE_PARENT"), let parent = pid_t(text) {
            _ = gifx_set_parent_death_signal(SIGKILL)
            if getppid() != parent { _exit(1) }  // the service ended before the prctl
        }
        unsetenv("GIFX_SERVE_PARENT")
        // The pipes move off 0 and 1 (close-on-exec: nothing a conversion starts holds them open); standard
        // input becomes /dev/null and standard output goes where standard error goes.
        let jobs = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3)
        let answers = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3)
        let null = open("/dev/null", O_RDONLY)
        dup2(null, STDIN_FILENO)
        close(null)
        dup2(STDERR_FILENO, STDOUT_FILENO)
        signal(SIGPIPE, SIG_IGN)
        var input = LineReader(fd: jobs)
        while let line = input.next() {
            let reply: WorkerReply
            do {
                let job = try JSONDecoder().decode(ConversionJob.self, from: line)
                reply = WorkerReply(outcome: try run(job))
            } catch {
                reply = WorkerReply(error: error)
            }
            var answer = (try? JSONEncoder().encode(reply)) ?? Data("{}".utf8)
            answer.append(UInt8(ascii: "\n"))
            guard (try? POSIXFiles.writeAll(FileDescriptor(rawValue: answers), answer)) != nil else { exit(1) }
        }
        exit(0)
    }

    /// One job, on this thread, with the tool's progress hook (`GIFX_TEST_CRASH` fires there in a debug build).
    private static func run(_ job: ConversionJob) throws -> ConversionOutcome {
        let (request, settings, spool) = try job.plan()
        defer { if let spool { close(spool) } }
        let report = try GifConverter(settings: settings).convert(
            path: job.input, to: [request], progress: { done, _ in DeveloperSwitches.current.progressed(done: done) })
        return ConversionOutcome(report)
    }
}
