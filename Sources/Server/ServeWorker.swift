import ChildProcesses
import Foundation
import GifxKit
import GifxSystem

#if canImport(Glibc)
import Glibc
#endif

/// A worker's answer to one job: the outcome, or the error the service answers with (as a `ServiceError`).
package struct WorkerReply: Codable, Sendable {
    package var outcome: ConversionOutcome?
    package var status: Int?
    package var code: String?
    package var message: String?
    /// The job went over its memory grant and the worker ends after this answer (`conversion_crashed`).
    package var overGrant: Bool?

    package init(outcome: ConversionOutcome) { self.outcome = outcome }

    /// What the service answers for `error`, carried back as its status, code and message.
    package init(error: any Error) {
        let mapped = error is CancellationError
            ? ServiceError(.serviceUnavailable, "cancelled", "the conversion was cancelled (shutdown)", retryAfter: 1)
            : ServiceError.from(error)
        status = mapped.status.code
        code = mapped.code
        message = mapped.message
    }

    /// The outcome, or the worker's error as the service's.
    func result() throws -> ConversionOutcome {
        if let outcome { return outcome }
        throw ServiceError(.init(code: status ?? 500), code ?? "internal_error", message ?? "the worker gave no answer")
    }
}

/// The worker's side of the serve job type (issue 50; the service's side is `ServeWorkers`): a `gifx` process the
/// service's `WorkerPool` started (`WorkerRole.serve`) reads one `ConversionJob` per line, converts it with the
/// library on this thread, and answers one `WorkerReply` per line; end of input: exit 0. The pool's channel has
/// asked the kernel for SIGKILL when the service ends, so no worker outlives it. A crash here ends this process
/// only; the service answers that one request and starts another worker.
package enum ServeWorker {
    /// The service's workers: `executable` (the service's own binary) with `environment` added, `serve-worker` on
    /// their command line, their standard error the service's.
    package static func pool(executable: String, environment: [String: String]) -> WorkerPool {
        WorkerPool(role: .serve, executable: executable, environment: environment, standardError: .inherited)
    }

    /// In a process started as a service worker, serves jobs and exits; anywhere else returns at once. `progress`:
    /// told the frames done, from the conversion's thread (the tool's developer switches hook in there).
    package static func serveIfRequested(progress: @escaping @Sendable (Int) -> Void) {
        guard var channel = WorkerChannel.adopt(.serve) else { return }
        signal(SIGPIPE, SIG_IGN)
        while let line = channel.nextJob() {
            var reply: WorkerReply
            var grant: MemoryGrant?
            do {
                let job = try JSONDecoder().decode(ConversionJob.self, from: line)
                grant = MemoryGrant(budget: job.memoryBudget)
                defer { grant?.lift() }
                reply = WorkerReply(outcome: try run(job, progress: progress))
            } catch {
                reply = WorkerReply(error: error)
                // Refused memory past the grant and failed cleanly (libav's ENOMEM, x264's malloc): the request
                // gets the crash's answer, and this worker ends after it, so that no heap the failed job left
                // behind is carried into the next one.
                if let grant, AllocationFailure.isMentioned(in: "\(error)") { reply = grant.exceeded(by: error) }
            }
            guard channel.answer((try? JSONEncoder().encode(reply)) ?? Data("{}".utf8)) else { exit(1) }
            if reply.overGrant == true { exit(0) }
        }
        exit(0)
    }

    /// One job, on this thread.
    private static func run(_ job: ConversionJob, progress: @escaping @Sendable (Int) -> Void) throws -> ConversionOutcome {
        let (request, settings, spool) = try job.plan()
        defer { if let spool { close(spool) } }
        let report = try GifConverter(settings: settings).convert(
            path: job.input, to: [request], progress: { done, _ in progress(done) })
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
package struct MemoryGrant {
    /// Address space beyond the grant, for threads' stacks and the allocator's slack: 1 GiB, and 64 MiB for each
    /// core of the machine (the encoders' thread pools grow with them).
    package static let headroom = (1 << 30) + max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) * (64 << 20)

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
