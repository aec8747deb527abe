import ChildProcesses
import Foundation
import GifxKit
import GifxPOSIXFiles
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// Runs the conversions of a batch, at most `jobs` at a time, each in a worker process of the batch's `WorkerPool`
/// (`BatchWorker`) that converts input after input until the batch ends or the worker dies; and reports each input
/// as it ends. A worker that dies (crash, `--timeout`, `--max-memory`, a signal) costs only its input in flight,
/// reported from its wait status as a process of its own would have been; a fresh worker takes the next.
/// Memory is bounded: one record per worker, no queue beyond the input list.
final class BatchRunner {
    private struct Running {
        let input: BatchInput
        let base: String
        let started: Date
        let stdoutPath: String
        let stderrPath: String
        /// For `timeline`: the hidden file beside the target that the child's stdout fills.
        let temporaryOutput: String?
        /// When `--timeout` runs out.
        let deadline: Date?
        /// When SIGTERM was sent for the timeout, and whether SIGKILL followed.
        var terminatedAt: Date? = nil
        var killed = false
        var timedOut: Bool { terminatedAt != nil }
    }

    /// One of the batch's workers: the pool's handle on it, and what the batch counts of it.
    private final class Worker {
        let process: PoolWorker
        /// Jobs answered so far.
        var completed = 0
        /// Signalled (a `--timeout`): it gets no further job, whatever it answers.
        var retiring = false
        var pid: pid_t { process.pid }

        init(_ process: PoolWorker) { self.process = process }
    }

    private let settings: Settings
    private let report: BatchReport?
    /// The batch's workers (`BatchWorker.pool`); stopped by SIGINT/SIGTERM, which it forwards to every worker.
    private let pool: WorkerPool
    private let scratch: String
    /// Every live worker, busy or idle.
    private var workers: [Worker] = []
    /// The job each busy worker converts, by the worker's pid.
    private var inFlight: [pid_t: Running] = [:]
    /// Inputs whose conversion failed to allocate under `--max-memory` in a worker that had converted others:
    /// run again, once, as the first job of a fresh worker (its heap may have held what earlier jobs freed).
    private var retries: [BatchInput] = []
    private var retried: Set<String> = []
    private var summary = Summary()
    private var sequence = 0
    private var progress: ProgressBar?
    /// Inputs of this run (the JSON lines' `total`).
    private var total = 0

    init(settings: Settings, report: BatchReport?, pool: WorkerPool, scratch: String) {
        self.settings = settings
        self.report = report
        self.pool = pool
        self.scratch = scratch
    }

    func run(_ inputs: [BatchInput]) -> Summary {
        total = inputs.count
        let bar = ProgressBar(
            total: inputs.count, label: "batch \(settings.target.command.rawValue)", quiet: settings.quiet || !settings.showBar)
        progress = bar
        summary.leftoversRemoved += LeftoverTemporaries.sweep(
            bases: inputs.filter { $0.problem == nil }.map(base(of:)), target: settings.target)
        var next = 0
        while true {
            while inFlight.count < settings.jobs, pool.stoppingSignal == nil {
                if !retries.isEmpty {
                    start(retries.removeFirst(), freshWorker: true)
                } else if next < inputs.count {
                    start(inputs[next], freshWorker: false)
                    next += 1
                } else {
                    break
                }
            }
            if inFlight.isEmpty { break }
            waitForAnswers(until: nextDeadline())
        }
        // Idle workers exit 0 once their jobs pipe closes; a stopping batch's have the signal already.
        for worker in workers { pool.reap(worker.process) }
        workers.removeAll()
        bar.finish()
        summary.stoppedBy = pool.stoppingSignal
        summary.notStarted += inputs.count - next + retries.count
        return summary
    }

    // MARK: - Workers

    /// Sleeps in poll(2) until a worker answers or exits, or `deadline` (a `--timeout`) passes.
    private func waitForAnswers(until deadline: Date?) {
        var descriptors = workers.map { pollfd(fd: $0.process.answersFD, events: Int16(POLLIN), revents: 0) }
        let timeout = deadline.map { Int32(max(0, min(($0.timeIntervalSinceNow * 1000).rounded(.up), 3_600_000))) } ?? -1
        let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
        if ready > 0 {
            for (worker, descriptor) in zip(workers, descriptors) where descriptor.revents != 0 {
                handleAnswers(of: worker)
            }
        }
        if let deadline, Date() >= deadline { enforceTimeouts() }
    }

    /// Reports the jobs `worker` has answered; on its end-of-file, reaps it and reports its job in flight
    /// (if any) from its wait status.
    private func handleAnswers(of worker: Worker) {
        let (lines, ended) = worker.process.readAnswers()
        for status in lines.compactMap({ Int32(String(decoding: $0, as: UTF8.self)) }) {
            guard let job = inFlight.removeValue(forKey: worker.pid) else { continue }
            let earlier = worker.completed
            worker.completed += 1
            if worker.retiring || worker.completed >= (settings.inputsPerWorker ?? .max) { worker.process.closeJobs() }
            conclude(job, waitStatus: (status & 0xFF) << 8, earlierJobs: earlier)
        }
        guard ended else { return }
        let waitStatus = pool.reap(worker.process)?.waitStatus ?? 0
        workers.removeAll { $0 === worker }
        guard let job = inFlight.removeValue(forKey: worker.pid) else { return }
        conclude(job, waitStatus: waitStatus, earlierJobs: worker.completed)
    }

    /// Reports a job, unless it is an allocation failure under `--max-memory` in a worker that had converted
    /// other inputs before (`earlierJobs`): its heap may hold what they freed, so the input runs once more as
    /// the first job of a fresh worker and is judged as a process of its own would judge it.
    private func conclude(_ job: Running, waitStatus: Int32, earlierJobs: Int) {
        if earlierJobs > 0, settings.maxMemory != nil, !job.timedOut, pool.stoppingSignal == nil,
           !retried.contains(job.input.path), ChildOutcome(waitStatus: waitStatus).exitStatus != 0,
           AllocationFailure.isMentioned(in: ChildProcess.tail(ofFile: job.stderrPath)) {
            discard(job, waitStatus: waitStatus)
            retried.insert(job.input.path)
            retries.append(job.input)
            return
        }
        finish(job, waitStatus: waitStatus)
    }

    /// An idle worker that may take another job, or a new one; nil when the batch is stopping (the
    /// failure is reported by the caller).
    private func worker(fresh: Bool) -> Result<Worker, any Error>? {
        while !fresh, settings.inputsPerWorker != 1,
              let idle = workers.first(where: { inFlight[$0.pid] == nil && !$0.retiring && $0.process.takesJobs }) {
            // An idle worker that died meanwhile (killed from outside) must not take the input: its end of
            // file would be reported as this input's. Whatever it left readable is handled first.
            var descriptor = pollfd(fd: idle.process.answersFD, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 0) > 0 else { return .success(idle) }
            handleAnswers(of: idle)
            idle.process.closeJobs()  // still there (a stray line): it exits once idle, and takes no more jobs
        }
        switch pool.start() {
        case .success(let process):
            let worker = Worker(process)
            workers.append(worker)
            // The settings first: every worker parses the batch's options once.
            process.send(jobSettingsLine)
            return .success(worker)
        case .failure(let error):
            return .failure(POSIXError(POSIXErrorCode(rawValue: error.rawValue) ?? .EIO))
        case nil:
            return nil
        }
    }

    private var done: Int { summary.converted + summary.skipped + summary.failed }

    private func base(of input: BatchInput) -> String {
        settings.outDir + "/" + BatchFiles.removingExtension(input.relativePath)
    }

    // MARK: - Timeouts

    /// The next moment a running child must be signalled: its timeout, or the end of its grace after SIGTERM.
    private func nextDeadline() -> Date? {
        inFlight.values.compactMap { job -> Date? in
            if job.killed { return nil }
            if let terminatedAt = job.terminatedAt { return terminatedAt.addingTimeInterval(settings.terminationGrace) }
            return job.deadline
        }.min()
    }

    /// SIGTERM to every child past its `--timeout` (it removes its temporary output and exits), SIGKILL
    /// to those still there `terminationGrace` later (their temporary files are removed in `finish`).
    private func enforceTimeouts() {
        let now = Date()
        for (pid, job) in inFlight {
            if let terminatedAt = job.terminatedAt {
                if !job.killed, now >= terminatedAt.addingTimeInterval(settings.terminationGrace) {
                    if let worker = workers.first(where: { $0.pid == pid }) { pool.signal(worker.process, SIGKILL) }
                    inFlight[pid]?.killed = true
                }
            } else if let deadline = job.deadline, now >= deadline {
                let worker = workers.first { $0.pid == pid }
                if let worker { pool.signal(worker.process, SIGTERM) }
                inFlight[pid]?.terminatedAt = now
                // Its answer may be on the way already: it still gets no further job.
                worker?.retiring = true
            }
        }
    }

    private func start(_ input: BatchInput, freshWorker: Bool) {
        let base = base(of: input)
        if let problem = input.problem {
            record(BatchReportLine(
                input: input.path, outputs: [], status: .failed, error: "\(displayName(input.path)): \(problem)",
                exitCode: input.exitCode, wallSeconds: 0))
            return
        }
        if settings.target.isUpToDate(base: base, input: input.path) {
            record(BatchReportLine(
                input: input.path, outputs: settings.target.existingOutputs(base: base), status: .skipped,
                wallSeconds: 0))
            return
        }
        let started = Date()
        func fail(_ message: String, _ code: Int32) {
            record(BatchReportLine(
                input: input.path, outputs: [], status: .failed, error: message, exitCode: code,
                wallSeconds: Date().timeIntervalSince(started)))
        }
        let folder = (base as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            fail("\(folder): cannot create folder: \(error.localizedDescription)", 73)
            return
        }
        sequence += 1
        let stderrPath = "\(scratch)/\(sequence).err"
        var stdoutPath = "\(scratch)/\(sequence).out"
        var temporaryOutput: String?
        if settings.target.outputIsStandardOutput {
            let target = settings.target.standardOutputPath(base: base)
            let temporary: String
            switch BatchFiles.makeTemporary(beside: target) {
            case .success(let path): temporary = path
            case .failure(let error):
                fail("\(target): cannot create output: \(error)", 73)
                return
            }
            stdoutPath = temporary
            temporaryOutput = temporary
        }
        let job = settings.target.job(input: input.path, base: base, stdout: stdoutPath, stderr: stderrPath)
        switch worker(fresh: freshWorker) {
        case .success(let worker):
            settings.events?.event("jobStart", [
                ("input", input.path), ("pid", Int(worker.pid)), ("running", inFlight.count + 1), ("done", done),
                ("total", total),
            ])
            inFlight[worker.pid] = Running(
                input: input, base: base, started: started, stdoutPath: stdoutPath, stderrPath: stderrPath,
                temporaryOutput: temporaryOutput, deadline: settings.timeout.map { started.addingTimeInterval($0) })
            worker.process.send(BatchJob.line(job))
        case .failure(let error):
            if let temporaryOutput { unlink(temporaryOutput) }
            fail("\(displayName(input.path)): cannot start a child process: \(error)", 70)
        case nil:
            // Stopping: this input was not started and is not reported (a rerun picks it up).
            if let temporaryOutput { unlink(temporaryOutput) }
            summary.notStarted += 1
        }
    }

    /// The settings every worker is sent first, encoded once.
    private lazy var jobSettingsLine = BatchJob.line(settings.job)

    /// Forgets a job that will run again: its captured streams, its output's temporary, and whatever
    /// hidden temporaries its death left.
    private func discard(_ job: Running, waitStatus: Int32) {
        unlink(job.stderrPath)
        unlink(job.temporaryOutput ?? job.stdoutPath)
        summary.leftoversRemoved += LeftoverTemporaries.remove(base: job.base, target: settings.target)
    }

    private func finish(_ job: Running, waitStatus: Int32) {
        let outcome = ChildOutcome(waitStatus: waitStatus)
        let code = outcome.shellCode
        let wall = Date().timeIntervalSince(job.started)
        let message = ChildProcess.lastLine(ofFile: job.stderrPath)
        let stderrTail = outcome.exitStatus == 0 ? "" : ChildProcess.tail(ofFile: job.stderrPath)
        defer {
            unlink(job.stderrPath)
            if job.temporaryOutput == nil { unlink(job.stdoutPath) }
        }
        if outcome.signal != nil {
            // A child killed by a signal could not remove its own hidden temporary files.
            summary.leftoversRemoved += LeftoverTemporaries.remove(base: job.base, target: settings.target)
        }
        if code != 0, !job.timedOut, let signal = pool.stoppingSignal,
           code == 128 + signal || code == ExitStatus.interrupted || code == ExitStatus.terminated {
            // Stopped by the signal we forwarded: not a failure of this input; a rerun redoes it.
            if let temporary = job.temporaryOutput { unlink(temporary) }
            return
        }
        if code == 0 {
            let facts = JobFacts(json: ChildProcess.contents(ofFile: job.stdoutPath), target: settings.target)
            if let temporary = job.temporaryOutput {
                let target = settings.target.standardOutputPath(base: job.base)
                if let failure = BatchFiles.commit(temporary, to: target) {
                    let reason = failure.description
                    unlink(temporary)
                    record(BatchReportLine(
                        input: job.input.path, outputs: [], status: .failed,
                        error: "\(target): cannot create output: \(reason)", exitCode: ExitStatus.cannotCreate, wallSeconds: wall))
                    return
                }
            }
            record(BatchReportLine(
                input: job.input.path, outputs: settings.target.existingOutputs(base: job.base), status: .ok,
                exitCode: 0, frames: facts.frames, duration: facts.duration, wallSeconds: wall, stats: facts.stats))
            return
        }
        if let temporary = job.temporaryOutput { unlink(temporary) }
        let name = displayName(job.input.path)
        let childLine = message.map { $0.hasPrefix("gifx: ") ? String($0.dropFirst(6)) : $0 }
        var line = BatchReportLine(
            input: job.input.path, outputs: [], status: .failed, error: nil, exitCode: code,
            signal: outcome.signalName, exitClass: outcome.exitStatus.map(ChildOutcome.exitClass),
            wallSeconds: wall)
        if job.timedOut {
            line.status = .timeout
            line.exitClass = nil
            line.error = "\(name): timed out after \(Self.seconds(settings.timeout ?? 0)) s (--timeout); "
                + (job.killed ? "killed with SIGKILL after ignoring SIGTERM" : "stopped with SIGTERM")
        } else if let maxMemory = settings.maxMemory, AllocationFailure.isMentioned(in: stderrTail) {
            line.status = .memory
            line.error = "\(name): out of memory: needs more than --max-memory \(Self.size(maxMemory))"
                + (outcome.signalName.map { " (the conversion died of \($0))" } ?? "")
        } else if let signalName = outcome.signalName {
            line.status = .signal
            line.error = "\(name): the conversion was killed by \(signalName)"
                + (childLine.map { " (\($0))" } ?? "")
        } else {
            line.error = childLine ?? "\(name): exited with status \(code)"
        }
        record(line)
    }

    /// `20`, `1.5`: seconds as typed.
    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    /// `512M`, `1.5G`, `1000000`: a byte count the way `--max-memory` takes it.
    static func size(_ bytes: Int) -> String {
        for (unit, scale) in [("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)] where bytes >= scale {
            let value = Double(bytes) / Double(scale)
            return (value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)) + unit
        }
        return String(bytes)
    }

    private func record(_ line: BatchReportLine) {
        switch line.status {
        case .ok: summary.converted += 1
        case .skipped: summary.skipped += 1
        case .failed: summary.failed += 1
        case .timeout: summary.failed += 1; summary.timedOut += 1
        case .memory: summary.failed += 1; summary.outOfMemory += 1
        case .signal: summary.failed += 1; summary.killedBySignal += 1
        }
        settings.events?.event("jobEnd", [
            ("input", line.input), ("status", line.status.rawValue), ("exitCode", line.exitCode.map { Int($0) }),
            ("exitClass", line.exitClass ?? (line.status == .ok || line.status == .skipped ? nil : line.status.rawValue)),
            ("signal", line.signal), ("seconds", (line.wallSeconds * 1000).rounded() / 1000), ("outputs", line.outputs.count),
            ("done", done), ("total", total), ("failed", summary.failed),
        ])
        if let report, !report.append(line) {
            summary.reportFailures += 1
            if summary.reportFailures == 1 {
                progress?.finish()
                printError(report.path, "cannot append to report: \(String(cString: strerror(errno)))")
            }
        }
        if line.status.isFailure, !settings.quiet, let error = line.error {
            progress?.finish()
            FileHandle.standardError.write(Data("gifx: \(error)\n".utf8))
        }
        progress?.update(done, extra: summary.failed > 0 ? "\(summary.failed) failed" : "")
    }
}
