import Foundation
import GifxPOSIXFiles
import Synchronization
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// Long-lived worker processes of one job type (`WorkerRole`): `gifx batch` runs its conversions in them, `gifx
/// serve --workers` its requests. The pool owns what both need of a child that converts untrusted input on its
/// behalf, written once:
/// - spawning, on one thread that lives as long as the process (`run(onSpawner:)`), with close-on-exec pipes;
/// - the line protocol: a job is one line on the worker's standard input, an answer one line back on its standard
///   output (`PoolWorker`; the worker's side is `WorkerChannel`);
/// - the live workers, so that a signal is never sent to a reaped (possibly reused) pid, and a stopping pool
///   (`stop(forwarding:)`) starts none and passes its signal on to every one;
/// - reaping, with wait4's status and peak RSS.
///
/// A worker dies alone: whatever ends it mid-job (a crash in a codec, the OOM killer, a memory limit, a timeout's
/// signal) ends its answers pipe, and the job type reports that one job from the wait status.
package final class WorkerPool: Sendable {
    private struct State {
        var stopping: Int32?
        var live: Set<pid_t> = []
    }

    package let role: WorkerRole
    private let executable: String
    private let arguments: [String]
    /// Each worker's whole environment: this process's when the pool was made, the caller's additions, the role's.
    private let environment: [String: String]
    private let standardError: StandardStream
    private let state = Mutex(State())

    /// `executable`: this very binary (the workers run the pool's own code); `label`: more words after the role's
    /// on the command line, for `ps` only (`--batch-worker to-mp4 OUT-DIR`); `environment`: added to this
    /// process's; `memoryLimit`: each worker's RLIMIT_DATA, for the roles that take one; `standardError`: where
    /// the workers' standard error (and, outside a job, their standard output) goes.
    package init(
        role: WorkerRole, executable: String, label: [String] = [], environment: [String: String] = [:],
        memoryLimit: Int? = nil, standardError: StandardStream = .null
    ) {
        self.role = role
        self.executable = executable
        arguments = role.arguments + label
        var variables = ProcessInfo.processInfo.environment
        variables.merge(environment) { _, new in new }
        variables[role.variable] = "1"
        variables[role.parentVariable] = String(getpid())
        if let variable = role.memoryLimitVariable, let memoryLimit { variables[variable] = String(memoryLimit) }
        self.environment = variables
        self.standardError = standardError
        // A job written to a worker that has just died must fail with EPIPE, not kill this process with SIGPIPE.
        Glibc.signal(SIGPIPE, SIG_IGN)
    }

    /// The signal that stopped the pool, if one did.
    package var stoppingSignal: Int32? { state.withLock { $0.stopping } }

    /// Starts a worker; nil when the pool is stopping. Under the pool's lock, so a signal being forwarded
    /// (`stop(forwarding:)`) reaches every worker, this one included.
    package func start() -> Result<PoolWorker, Errno>? {
        state.withLock { state -> Result<PoolWorker, Errno>? in
            guard state.stopping == nil else { return nil }
            let started = Self.run(onSpawner: { self.spawn() })
            if case .success(let worker) = started { state.live.insert(worker.pid) }
            return started
        }
    }

    /// Stops the pool: no worker starts from now on, and `signal` goes to every live one (the batch's SIGINT and
    /// SIGTERM: each conversion removes its temporary output and exits 130 or 143).
    package func stop(forwarding signal: Int32) {
        state.withLock { state in
            if state.stopping == nil { state.stopping = signal }
            for pid in state.live { kill(pid, signal) }
        }
    }

    /// Sends `signal` to `worker`; false when it has already been reaped.
    @discardableResult
    package func signal(_ worker: PoolWorker, _ signal: Int32) -> Bool {
        state.withLock { state in
            guard state.live.contains(worker.pid) else { return false }
            return kill(worker.pid, signal) == 0
        }
    }

    /// Closes the pool's ends of `worker`'s pipes, waits for it to end and reaps it: how it ended (nil when it was
    /// reaped already). The wait is outside the pool's lock (waitid with WNOWAIT leaves it a zombie, whose pid
    /// cannot be reused), the reaping inside it.
    @discardableResult
    package func reap(_ worker: PoolWorker) -> ChildTermination? {
        worker.closePipes()
        var info = siginfo_t()
        while waitid(P_PID, id_t(worker.pid), &info, WEXITED | WNOWAIT) != 0, errno == EINTR {}
        return state.withLock { state in
            guard state.live.remove(worker.pid) != nil else { return nil }
            return try? worker.process.wait()
        }
    }

    /// Whether `worker` has ended (reaped here if so: a worker killed while idle, by the OOM killer or an operator).
    package func hasEnded(_ worker: PoolWorker) -> Bool {
        state.withLock { state in
            guard state.live.contains(worker.pid) else { return true }
            guard (try? worker.process.wait(until: Date())) != nil else { return false }
            state.live.remove(worker.pid)
            worker.closePipes()
            return true
        }
    }

    /// One worker: two close-on-exec pipes, the spawn, and the child's ends closed here. Glibc's module has no
    /// pipe2, so pipe(2) and FD_CLOEXEC are two steps: only the spawner thread spawns, so no other child can
    /// start in between and inherit these ends (it would hold the answers pipe open past this worker's death).
    private func spawn() -> Result<PoolWorker, Errno> {
        var pipes: [(read: Int32, write: Int32)] = []
        while pipes.count < 2 {
            switch POSIXFiles.closeOnExecPipe() {
            case .success(let ends): pipes.append(ends)
            case .failure(let error):
                for ends in pipes { close(ends.read); close(ends.write) }
                return .failure(error)
            }
        }
        let (jobs, answers) = (pipes[0], pipes[1])
        defer {
            close(jobs.read)
            close(answers.write)
        }
        do throws(Errno) {
            let process = try SpawnedProcess.spawn(
                executable, arguments, environment: environment,
                stdin: .descriptor(FileDescriptor(rawValue: jobs.read)),
                stdout: .descriptor(FileDescriptor(rawValue: answers.write)), stderr: standardError)
            return .success(PoolWorker(process: process, jobs: jobs.write, answers: answers.read))
        } catch {
            close(jobs.write); close(answers.read)
            return .failure(error)
        }
    }

    // MARK: - The spawner thread

    /// Every worker is spawned by this one thread, which lives as long as the process. A worker asks the kernel
    /// for its parent-death signal, and for Linux the parent is the *thread* that spawned it: spawned from a thread
    /// of Swift's cooperative pool, which libdispatch ends when it has been idle a while, a service worker was
    /// killed mid-job with the service alive (measured: 1 request of 512 at 32 clients answered 500 "died of
    /// SIGKILL", no OOM in the kernel log). One spawner also serialises the spawns (see `spawn`).
    ///
    /// Its queue holds one task: callers wait for the slot, then for their result.
    private final class Spawner: @unchecked Sendable {
        private let condition = NSCondition()
        private var task: (() -> Void)?
        /// Held by the caller whose task is in the slot or running.
        private let caller = NSLock()

        init() {
            let thread = Thread { [unowned self] in self.loop() }
            thread.name = "gifx-worker-spawner"
            thread.start()
        }

        private func loop() {
            while true {
                condition.lock()
                while task == nil { condition.wait() }
                let next = task!
                condition.unlock()
                next()
                condition.lock()
                task = nil
                condition.broadcast()
                condition.unlock()
            }
        }

        func run<T>(_ body: @escaping () -> T) -> T {
            caller.lock()
            defer { caller.unlock() }
            var result: T?
            condition.lock()
            task = { result = body() }
            condition.broadcast()
            while task != nil { condition.wait() }
            condition.unlock()
            return result!
        }
    }

    private static let spawner = Spawner()

    /// Runs `body` on the spawner thread and waits for it.
    static func run<T>(onSpawner body: @escaping () -> T) -> T { spawner.run(body) }
}

/// The pool's side of one worker: the pipe jobs go out on, the pipe answers come back on. Both ends are
/// close-on-exec, so no other child holds them: the answers pipe ends exactly when this worker has exited.
/// A job is sent from one thread and its answer read on that thread (`exchange`, or `send` and `readAnswers`
/// after poll(2)); closing and the pool's signals may come from any.
package final class PoolWorker: @unchecked Sendable {
    package let process: SpawnedProcess
    package var pid: pid_t { process.pid }
    private let lock = NSLock()
    private var jobs: Int32
    private var answers: LineReader

    fileprivate init(process: SpawnedProcess, jobs: Int32, answers: Int32) {
        self.process = process
        self.jobs = jobs
        self.answers = LineReader(fd: answers)
    }

    deinit { closePipes() }

    /// The answers pipe's read end, for poll(2); -1 once closed.
    package var answersFD: Int32 { lock.withLock { answers.fd } }

    /// Whether the jobs pipe is still open (`closeJobs` has not been called).
    package var takesJobs: Bool { lock.withLock { jobs >= 0 } }

    /// Sends one line (`line` ends with its newline). A worker that has died cannot read it: false (EPIPE, SIGPIPE
    /// being ignored), and its end of file then tells how it ended.
    @discardableResult
    package func send(_ line: Data) -> Bool {
        let fd = lock.withLock { jobs }
        guard fd >= 0 else { return false }
        return (try? POSIXFiles.writeAll(FileDescriptor(rawValue: fd), line)) != nil
    }

    /// Sends `line` and waits for the answer's line; nil when the worker ended first (end of file).
    package func exchange(_ line: Data) -> Data? {
        guard send(line) else { return nil }
        return answers.fd >= 0 ? answers.next() : nil
    }

    /// The lines answered since the last call (the answers pipe was readable), and whether the worker has closed
    /// it (it has exited, or is exiting).
    package func readAnswers() -> (lines: [Data], ended: Bool) { answers.drain() }

    /// No more jobs: an idle worker exits 0.
    package func closeJobs() {
        lock.withLock {
            if jobs >= 0 { close(jobs) }
            jobs = -1
        }
    }

    fileprivate func closePipes() {
        closeJobs()
        lock.withLock {
            if answers.fd >= 0 { close(answers.fd) }
            answers = LineReader(fd: -1)
        }
    }
}
