#if canImport(Glibc)
import Glibc
#endif

/// The two job types a `WorkerPool` runs (`gifx batch`'s conversions, `gifx serve --workers`' requests), and what
/// tells a `gifx` process that it is one of their workers: the only place the workers' environment variables are
/// named. A worker runs the pool's own binary, so its `main` asks `WorkerChannel.adopt(role)` for each role first
/// thing; the job type's code (`BatchWorker` in the tool, `ServeWorker` in the server) then reads jobs from the
/// channel and answers them.
package struct WorkerRole: Sendable, Hashable {
    /// `1` in a worker's environment: the process serves jobs from its standard input instead of running its
    /// command line. Removed from the environment at once, with the others below.
    package let variable: String
    /// The pool's pid: the worker asks the kernel for `parentDeathSignal` when the pool's spawner thread ends
    /// (prctl PR_SET_PDEATHSIG), so a pool killed with SIGKILL leaves no worker on; a worker whose pool died before
    /// it asked exits at once, as if it had got the signal.
    package let parentVariable: String
    /// The worker's RLIMIT_DATA in bytes for its whole life (`DataMemoryLimit`), when its pool sets one.
    package let memoryLimitVariable: String?
    /// The first words after the executable on a worker's command line: read by nobody but `ps` and `pgrep -f`.
    package let arguments: [String]
    /// What the kernel sends a worker whose pool has ended.
    package let parentDeathSignal: Int32

    /// `gifx batch`'s workers (docs/batch-scaling.md): SIGTERM when the batch dies, so a conversion still removes
    /// its temporary output on the way out; `--max-memory` for the whole process.
    package static let batch = WorkerRole(
        variable: "GIFX_BATCH_WORKER", parentVariable: "GIFX_BATCH_PARENT", memoryLimitVariable: "GIFX_BATCH_MAX_MEMORY",
        arguments: ["--batch-worker"], parentDeathSignal: SIGTERM)

    /// `gifx serve --workers`' workers (docs/serve.md): SIGKILL when the service dies; each job's memory grant is
    /// set by the worker itself, job by job.
    package static let serve = WorkerRole(
        variable: "GIFX_SERVE_WORKER", parentVariable: "GIFX_SERVE_PARENT", memoryLimitVariable: nil,
        arguments: ["serve-worker"], parentDeathSignal: SIGKILL)

    /// Every variable a pool sets for this role.
    var variables: [String] { [variable, parentVariable] + (memoryLimitVariable.map { [$0] } ?? []) }
}
