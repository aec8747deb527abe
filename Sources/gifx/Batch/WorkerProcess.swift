import ChildProcesses
import Foundation
import GifxPOSIXFiles
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// The batch's side of one `BatchWorker` process: the pipe it sends jobs on, the pipe the answers come
/// back on, and the job in flight. Both of the batch's pipe ends are close-on-exec, so no other worker
/// inherits them: the answers pipe reads end-of-file exactly when this worker has exited.
final class WorkerProcess {
    let pid: pid_t
    /// The batch's end of the jobs pipe; nil once closed (the worker then exits 0 when idle).
    private(set) var jobsFD: Int32?
    let resultsFD: Int32
    private var results: LineReader
    /// Jobs answered so far.
    var completed = 0
    /// Signalled (a `--timeout`): it gets no further job, whatever it answers.
    var retiring = false

    private init(pid: pid_t, jobsFD: Int32, resultsFD: Int32) {
        self.pid = pid
        self.jobsFD = jobsFD
        self.resultsFD = resultsFD
        results = LineReader(fd: resultsFD)
    }

    /// Starts a worker through `signals` (so a stopping batch starts none, and a signal reaches it), and sends it
    /// `settings` (the batch's `BatchJob.Settings` line, encoded once for every worker); nil when the batch is stopping.
    /// `label` follows `--batch-worker` on its command line (ignored there: `ps` and `pgrep -f` show whose
    /// worker it is, e.g. `--batch-worker to-mp4 OUT-DIR`).
    static func start(
        signals: SignalForwarder, executable: String, label: [String], environment: [String: String], settings: Data
    ) -> Result<WorkerProcess, any Error>? {
        // Close-on-exec pipes: the batch spawns from this one thread only, so no other child can start in between.
        let jobs: (read: Int32, write: Int32), results: (read: Int32, write: Int32)
        switch POSIXFiles.closeOnExecPipe() {
        case .success(let ends): jobs = ends
        case .failure(let error): return .failure(posixError(error))
        }
        switch POSIXFiles.closeOnExecPipe() {
        case .success(let ends): results = ends
        case .failure(let error):
            close(jobs.read); close(jobs.write)
            return .failure(posixError(error))
        }
        var inherited = ProcessInfo.processInfo.environment
        inherited.merge(environment) { _, new in new }
        inherited[BatchWorker.variable] = "1"
        let started = signals.startChild { () throws -> pid_t in
            do throws(Errno) {
                return try SpawnedProcess.spawn(
                    executable, ["--batch-worker"] + label, environment: inherited,
                    stdin: .descriptor(FileDescriptor(rawValue: jobs.read)),
                    stdout: .descriptor(FileDescriptor(rawValue: results.write)), stderr: .null
                ).pid
            } catch {
                throw posixError(error)
            }
        }
        close(jobs.read)
        close(results.write)
        switch started {
        case .success(let pid):
            let worker = WorkerProcess(pid: pid, jobsFD: jobs.write, resultsFD: results.read)
            worker.write(settings)
            return .success(worker)
        case .failure(let error):
            close(jobs.write); close(results.read)
            return .failure(error)
        case nil:
            close(jobs.write); close(results.read)
            return nil
        }
    }

    /// swift-system's errno as the `POSIXError` the batch reports.
    private static func posixError(_ error: Errno) -> POSIXError { POSIXError(POSIXErrorCode(rawValue: error.rawValue) ?? .EIO) }

    /// Sends one job. A worker that has already died cannot read it (EPIPE, SIGPIPE being ignored): its
    /// end-of-file then reports the job with the worker's wait status, as a child that died at start.
    func send(_ job: BatchJob) {
        write(BatchJob.line(job))
    }

    private func write(_ line: Data) {
        guard let jobsFD else { return }
        _ = try? POSIXFiles.writeAll(FileDescriptor(rawValue: jobsFD), line)
    }

    /// No more jobs: an idle worker exits 0.
    func closeJobs() {
        if let jobsFD { close(jobsFD) }
        jobsFD = nil
    }

    /// The exit statuses answered since the last call (the answers pipe was readable), and whether the
    /// worker has closed it (it has exited, or is exiting).
    func readAnswers() -> (statuses: [Int32], ended: Bool) {
        let (lines, ended) = results.drain()
        return (lines.compactMap { Int32(String(decoding: $0, as: UTF8.self)) }, ended)
    }

    /// After end-of-file: closes the batch's ends and reaps the process; its wait status.
    func reap(signals: SignalForwarder) -> Int32 {
        closeJobs()
        close(resultsFD)
        return signals.reap(pid)
    }
}
