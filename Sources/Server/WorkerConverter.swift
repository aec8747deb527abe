import ChildProcesses
import Foundation
import GifxPOSIXFiles
import SystemPackage

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

/// Conversions in worker processes (`gifx serve --workers`, issue 50): each job goes to a long-lived `gifx` process
/// of its own (`GIFX_SERVE_WORKER=1`: `ServeWorker` in the tool) as one JSON line on its standard input, and its
/// answer comes back as one line on its standard output. The service process then runs no codec: a crash in
/// libavcodec, libx264, libvpx, SVT-AV1, libwebp or libpng, the kernel's OOM killer, or a conversion that hangs
/// costs the request that worker was serving, and nothing else.
///
/// A worker that dies mid-job (its answer pipe reaches end of file) is reaped: the request gets a 500
/// `conversion_crashed` naming the signal (or the exit status), the job's temporaries (the output's and its
/// description's hidden files, its scratch folder) are removed, the crash is counted by signal on `/metrics`, and
/// the next job starts a new worker. A job cancelled (`--conversion-timeout`, the end of the grace period) kills its
/// worker with SIGKILL the same way and throws `CancellationError`. Idle workers wait for their next job; at most
/// `maxIdle` are kept.
package final class WorkerConverter: Converting, @unchecked Sendable {
    private let executable: String
    private let environment: [String: String]
    private let maxIdle: Int
    private let crashed: @Sendable (String) -> Void
    private let lock = NSLock()
    private var idle: [ServiceWorker] = []

    /// `executable`: the `gifx` binary (the service's own, `/proc/self/exe`); `environment`: added to this
    /// process's for each worker; `crashed`: told the signal's name (or `exit N`) of each worker that died mid-job.
    package init(
        executable: String, environment: [String: String] = [:], maxIdle: Int, crashed: @escaping @Sendable (String) -> Void
    ) {
        self.executable = executable
        self.environment = environment
        self.maxIdle = max(1, maxIdle)
        self.crashed = crashed
        // A job written to a worker that has just died must fail with EPIPE, not kill the service with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
    }

    deinit { for worker in idle { worker.close() } }

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
        let answer = await withTaskCancellationHandler {
            await Self.onItsOwnThread { worker.exchange(line) }
        } onCancel: {
            worker.kill()
        }
        if let answer, !Task.isCancelled {
            let reply = try JSONDecoder().decode(WorkerReply.self, from: answer)
            if reply.overGrant == true {
                // The worker ends after this answer (`MemoryGrant` in the tool): reaped now, counted as a crash.
                worker.close()
                _ = worker.reap()
                Self.removeTemporaries(of: job)
                crashed("memory_grant")
            } else {
                giveBack(worker)
            }
            return try reply.result()
        }
        // The worker died (or was killed for the cancellation): reaped, its job's temporaries removed.
        let ending = worker.reap()
        worker.close()
        Self.removeTemporaries(of: job)
        if Task.isCancelled { throw CancellationError() }
        let cause = ending.map(Self.describe) ?? "an unknown cause"
        crashed(ending?.signal.map(ChildTermination.name(ofSignal:)) ?? "exit")
        throw ServiceError(.internalServerError, "conversion_crashed", "the conversion's worker process died of \(cause)")
    }

    /// Ends the idle workers (their standard input closes: each exits 0).
    package func shutdown() {
        let workers = lock.withLock { () -> [ServiceWorker] in
            defer { idle = [] }
            return idle
        }
        for worker in workers {
            worker.close()
            _ = worker.reap()
        }
    }

    /// An idle worker that is still alive (one killed while idle, by the OOM killer or an operator, is reaped and
    /// dropped: its death is nobody's request's), else a new one.
    private func take() throws -> ServiceWorker {
        while let worker = lock.withLock({ idle.popLast() }) {
            if worker.hasEnded {
                worker.close()
                continue
            }
            return worker
        }
        return try ServiceWorker.start(executable: executable, environment: environment)
    }

    private func giveBack(_ worker: ServiceWorker) {
        let surplus = lock.withLock { () -> ServiceWorker? in
            guard idle.count < maxIdle else { return worker }
            idle.append(worker)
            return nil
        }
        if let surplus {
            surplus.close()
            _ = surplus.reap()
        }
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

    /// `body` on a thread of its own (a blocking pipe read), never on the cooperative pool.
    static func onItsOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: body()) }
            thread.start()
        }
    }
}

/// The service's side of one worker: the pipe jobs go out on and the pipe answers come back on (both of the
/// service's ends close-on-exec, so no other child inherits them and the answer pipe ends exactly when this worker
/// has exited).
package final class ServiceWorker: @unchecked Sendable {
    /// The variable that makes `gifx` a service worker.
    static let variable = "GIFX_SERVE_WORKER"

    let process: SpawnedProcess
    private let lock = NSLock()
    private var jobs: Int32
    private let answers: Int32
    private var buffer: [UInt8] = []

    private init(process: SpawnedProcess, jobs: Int32, answers: Int32) {
        self.process = process
        self.jobs = jobs
        self.answers = answers
    }

    deinit {
        close()
        Glibc.close(answers)
    }

    /// Every worker is spawned by this one thread, which lives as long as the service. A worker asks the kernel
    /// for SIGKILL when its parent ends (`ServeWorker`, `PR_SET_PDEATHSIG`), and for Linux the parent is the
    /// *thread* that spawned it: spawned from a thread of the cooperative pool, which libdispatch ends when it
    /// has been idle a while, a worker was killed mid-job with the service alive (measured: 1 request of 512 at
    /// 32 clients answered 500 "died of SIGKILL", no OOM in the kernel log). One spawner also serialises the
    /// spawns: pipe(2) and then FD_CLOEXEC is not atomic (Glibc's module has no pipe2), so another worker spawned
    /// in between could inherit this one's ends and hold its answer pipe open past its death.
    private static let spawner = SpawnerThread()

    package static func start(executable: String, environment: [String: String]) throws -> ServiceWorker {
        try spawner.run { try startLocked(executable: executable, environment: environment) }
    }

    private static func startLocked(executable: String, environment: [String: String]) throws -> ServiceWorker {
        let jobs: (read: Int32, write: Int32), answers: (read: Int32, write: Int32)
        switch POSIXFiles.closeOnExecPipe() {
        case .success(let ends): jobs = ends
        case .failure(let error): throw ServiceError.internalError("cannot start a worker: pipe: \(error)")
        }
        switch POSIXFiles.closeOnExecPipe() {
        case .success(let ends): answers = ends
        case .failure(let error):
            Glibc.close(jobs.read); Glibc.close(jobs.write)
            throw ServiceError.internalError("cannot start a worker: pipe: \(error)")
        }
        var variables = ProcessInfo.processInfo.environment
        variables.merge(environment) { _, new in new }
        variables[variable] = "1"
        // The worker asks for SIGKILL if this process ends (a service killed with SIGKILL leaves no worker on).
        variables["GIFX_SERVE_PARENT"] = String(getpid())
        defer {
            Glibc.close(jobs.read)
            Glibc.close(answers.write)
        }
        do {
            let process = try SpawnedProcess.spawn(
                executable, ["serve-worker"], environment: variables,
                stdin: .descriptor(FileDescriptor(rawValue: jobs.read)), stdout: .descriptor(FileDescriptor(rawValue: answers.write)),
                stderr: .inherited)
            return ServiceWorker(process: process, jobs: jobs.write, answers: answers.read)
        } catch {
            Glibc.close(jobs.write); Glibc.close(answers.read)
            throw ServiceError.internalError("cannot start a worker (\(executable)): \(error)")
        }
    }

    /// Sends `line` and waits for the answer's line; nil when the worker ended first (end of file).
    func exchange(_ line: Data) -> Data? {
        let fd = lock.withLock { jobs }
        guard fd >= 0 else { return nil }
        // A worker that has died cannot read it: EPIPE (SIGPIPE is ignored, `init`), and the caller reaps it.
        guard (try? POSIXFiles.writeAll(FileDescriptor(rawValue: fd), line)) != nil else { return nil }
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let answer = Data(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return answer
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = chunk.withUnsafeMutableBytes { read(answers, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return nil }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    func kill() { process.send(SIGKILL) }

    /// Whether the worker has ended (reaped here if so).
    package var hasEnded: Bool { (try? process.wait(until: Date())) != nil }

    /// Closes the jobs pipe: an idle worker then exits 0.
    package func close() {
        lock.withLock {
            if jobs >= 0 { Glibc.close(jobs) }
            jobs = -1
        }
    }

    /// Waits for the worker to end and says how.
    package func reap() -> ChildTermination? { try? process.wait() }
}

/// One long-lived thread that runs what it is handed, one thing at a time, for callers that wait for the result
/// (`ServiceWorker.start`: a child's parent-death signal follows the thread that spawned it).
final class SpawnerThread: @unchecked Sendable {
    private let condition = NSCondition()
    private var queue: [() -> Void] = []

    init() {
        let thread = Thread { [unowned self] in self.loop() }
        thread.name = "gifx-worker-spawner"
        thread.start()
    }

    private func loop() {
        while true {
            condition.lock()
            while queue.isEmpty { condition.wait() }
            let next = queue.removeFirst()
            condition.unlock()
            next()
        }
    }

    /// Runs `body` on the spawner thread and waits for it.
    func run<T>(_ body: @escaping () throws -> T) throws -> T {
        var result: Result<T, any Error>?
        let done = NSCondition()
        condition.lock()
        queue.append {
            let outcome = Result { try body() }
            done.lock()
            result = outcome
            done.signal()
            done.unlock()
        }
        condition.signal()
        condition.unlock()
        done.lock()
        while result == nil { done.wait() }
        done.unlock()
        return try result!.get()
    }
}
