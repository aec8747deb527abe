import CProcess
import Foundation
import GifxKit
import GifxPOSIXFiles
import GifxServer
import GifxSystem
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
            var reply: WorkerReply
            var grant: MemoryGrant?
            do {
                let job = try JSONDecoder().decode(ConversionJob.self, from: line)
                grant = MemoryGrant(budget: job.memoryBudget)
                defer { grant?.lift() }
                reply = WorkerReply(outcome: try run(job))
            } catch {
                reply = WorkerReply(error: error)
                // Refused memory past the grant and failed cleanly (libav's ENOMEM, x264's malloc): the request
                // gets the crash's answer, and this worker ends after it, so that no heap the failed job left
                // behind is carried into the next one.
                if let grant, AllocationFailure.isMentioned(in: "\(error)") { reply = grant.exceeded(by: error) }
            }
            var answer = (try? JSONEncoder().encode(reply)) ?? Data("{}".utf8)
            answer.append(UInt8(ascii: "\n"))
            guard (try? POSIXFiles.writeAll(FileDescriptor(rawValue: answers), answer)) != nil else { exit(1) }
            if reply.overGrant == true { exit(0) }
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

/// A job's memory grant, enforced by the kernel (issue 50): while the job runs, this worker's RLIMIT_DATA is the
/// data memory it held when the job started, plus the grant the service admitted it with, plus `headroom`. An
/// allocation past that is refused: the Swift runtime then dies (SIGTRAP/SIGILL, `conversion_crashed` naming the
/// signal) and a C library fails with ENOMEM (answered by `exceeded(by:)`); either way the request fails alone
/// and the next job runs in a new worker, while the machine never sees the runaway.
///
/// RLIMIT_DATA counts address space, not resident memory: private writable mappings, thread stacks included.
/// Hence the headroom: SVT-AV1 starts 72 to 88 threads whatever the grant (more with more threads and cores),
/// each with an 8 MiB stack; measured on a 480x270 AVIF, 2 cores: 689 MiB of VmData for 124 MiB resident at
/// one thread, 833 MiB for 140 MiB at 16 (docs/serve.md). A cgroup v2 child with `memory.max` would count resident
/// memory exactly, but needs a delegated cgroup tree, which this machine (cgroup v1) and most pods lack
/// (docs/reliability.md, "RLIMIT_DATA, not RLIMIT_AS, not a cgroup").
struct MemoryGrant {
    /// Address space beyond the grant, for threads' stacks and the allocator's slack: 1 GiB, and 64 MiB for each
    /// core of the machine (the encoders' thread pools grow with them).
    static let headroom = (1 << 30) + max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) * (64 << 20)

    let budget: Int
    private let previous: rlimit

    /// Sets the limit for a job granted `budget` bytes; nil (and no limit) when the kernel refuses it.
    init?(budget: Int) {
        guard let held = SystemResources().dataBytes(),
              let previous = DataMemoryLimit.lower(to: rlim_t(clamping: held) &+ rlim_t(clamping: budget) &+ rlim_t(Self.headroom))
        else { return nil }
        self.previous = previous
        self.budget = budget
    }

    /// The job is over: the limit is what it was.
    func lift() { DataMemoryLimit.restore(previous) }

    /// The answer for a job that failed because an allocation past the grant was refused.
    func exceeded(by error: any Error) -> WorkerReply {
        var reply = WorkerReply(error: error)
        reply.status = 500
        reply.code = "conversion_crashed"
        reply.message = "the conversion went over its memory grant (\(budget >> 20) MiB, and \(Self.headroom >> 20) MiB of "
            + "address space for threads' stacks; RLIMIT_DATA) and was stopped: \(reply.message ?? "\(error)")"
        reply.overGrant = true
        return reply
    }
}
