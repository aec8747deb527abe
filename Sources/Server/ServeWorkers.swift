import ChildProcesses
import Foundation
import GifxPOSIXFiles

#if canImport(Glibc)
import Glibc
#endif

/// Conversions in worker processes (`gifx serve --workers`, issue 50): the service's side of the serve job type over
/// a `WorkerPool` (`WorkerRole.serve`; the worker's side is `ServeWorker`). Each job goes to a long-lived `gifx`
/// process of its own as one JSON line (`ConversionJob`), and its answer comes back as one line (`WorkerReply`). The
/// service process then runs no codec: a crash in libavcodec, libx264, libvpx, SVT-AV1, libwebp or libpng, the
/// kernel's OOM killer, or a conversion that hangs costs the request that worker was serving, and nothing else.
///
/// A worker that dies mid-job (its answer pipe reaches end of file) is reaped: the request gets a 500
/// `conversion_crashed` naming the signal (or the exit status), the job's temporaries (the output's and its
/// description's hidden files, its scratch folder) are removed, the crash is counted by signal on `/metrics`, and
/// the next job starts a new worker. A job cancelled (`--conversion-timeout`, the end of the grace period) kills its
/// worker with SIGKILL the same way and throws `CancellationError`. Idle workers wait for their next job; at most
/// `maxIdle` are kept.
package final class ServeWorkers: Converting, @unchecked Sendable {
    private let pool: WorkerPool
    private let executable: String
    private let maxIdle: Int
    private let crashed: @Sendable (String) -> Void
    private let lock = NSLock()
    private var idle: [PoolWorker] = []

    /// `executable`: the `gifx` binary (the service's own, `/proc/self/exe`); `environment`: added to this
    /// process's for each worker; `crashed`: told the signal's name (or `exit N`) of each worker that died mid-job.
    package init(
        executable: String, environment: [String: String] = [:], maxIdle: Int, crashed: @escaping @Sendable (String) -> Void
    ) {
        pool = ServeWorker.pool(executable: executable, environment: environment)
        self.executable = executable
        self.maxIdle = max(1, maxIdle)
        self.crashed = crashed
    }

    deinit { for worker in idle { worker.closeJobs() } }

    package func convert(_ job: ConversionJob) async throws -> ConversionOutcome {
        // The job's scratch files go to a folder of its own, removed whatever happens to the worker.
        var job = job
        let scratch = try Self.makeFolder(in: job.scratchFolder)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        job.scratchFolder = scratch
        let worker = try take()
        var encoded = try JSONEncoder().encode(job)
        encoded.append(UInt8(ascii: "\n"))
        let line = encoded
        let pool = pool
        let answer = try await withTaskCancellationHandler {
            try await offThePool { worker.exchange(line) }
        } onCancel: {
            pool.signal(worker, SIGKILL)
        }
        if let answer, !Task.isCancelled {
            let reply = try JSONDecoder().decode(WorkerReply.self, from: answer)
            if reply.overGrant == true {
                // The worker ends after this answer (`MemoryGrant`): reaped now, counted as a crash.
                pool.reap(worker)
                Self.removeTemporaries(of: job)
                crashed("memory_grant")
            } else {
                giveBack(worker)
            }
            return try reply.result()
        }
        // The worker died (or was killed for the cancellation): reaped, its job's temporaries removed.
        let ending = pool.reap(worker)
        Self.removeTemporaries(of: job)
        if Task.isCancelled { throw CancellationError() }
        let cause = ending.map(Self.describe) ?? "an unknown cause"
        crashed(ending?.signal.map(ChildTermination.name(ofSignal:)) ?? "exit")
        throw ServiceError(.internalServerError, "conversion_crashed", "the conversion's worker process died of \(cause)")
    }

    /// Ends the idle workers (their standard input closes: each exits 0).
    package func shutdown() {
        let workers = lock.withLock { () -> [PoolWorker] in
            defer { idle = [] }
            return idle
        }
        for worker in workers { pool.reap(worker) }
    }

    /// An idle worker that is still alive (one killed while idle, by the OOM killer or an operator, is reaped and
    /// dropped: its death is nobody's request's), else a new one.
    private func take() throws -> PoolWorker {
        while let worker = lock.withLock({ idle.popLast() }) {
            if pool.hasEnded(worker) { continue }
            return worker
        }
        switch pool.start() {
        case .success(let worker): return worker
        case .failure(let error): throw ServiceError.internalError("cannot start a worker (\(executable)): \(error)")
        case nil: throw ServiceError.internalError("cannot start a worker (\(executable)): the service is stopping")
        }
    }

    private func giveBack(_ worker: PoolWorker) {
        let surplus = lock.withLock { () -> PoolWorker? in
            guard idle.count < maxIdle else { return worker }
            idle.append(worker)
            return nil
        }
        if let surplus { pool.reap(surplus) }
    }

    /// `SIGSEGV (signal 11)` or `exit status 3`.
    static func describe(_ ending: ChildTermination) -> String {
        if let signal = ending.signal { return "\(ChildTermination.name(ofSignal: signal)) (signal \(signal))" }
        return "exit status \(ending.exitStatus ?? -1)"
    }

    /// A new empty folder `job-XXXXXX` in `parent`.
    static func makeFolder(in parent: String) throws -> String {
        switch POSIXFiles.makeUniqueFolder(prefix: parent + "/job-") {
        case .success(let folder): return folder
        case .failure(let error): throw ServiceError.internalError("cannot create a conversion's scratch folder: \(error)")
        }
    }

    /// What a conversion that died leaves: the hidden temporaries (`.NAME.gifx-XXXXXX`) of its output and of its
    /// description, beside them, and the output and description themselves when the worker died after putting them
    /// in place but before it answered (the service writes the entry's `.meta` only on an answer, so they are
    /// nobody's: one flight per key). The spool and the upload are the service's, removed by their owners.
    package static func removeTemporaries(of job: ConversionJob) {
        for path in [job.output, job.description] {
            unlink(path)
            let folder = (path as NSString).deletingLastPathComponent
            let prefix = "." + (path as NSString).lastPathComponent + ".gifx-"
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix(prefix) {
                unlink(folder + "/" + name)
            }
        }
    }
}
