import Foundation
import Frames
import POSIXFiles

#if canImport(Glibc)
import Glibc
#endif

/// Runs the conversions of a batch, at most `jobs` child processes at a time, and reports each
/// input as it ends. Memory is bounded: one record per running child, no queue beyond the input list.
final class BatchRunner {
    struct Settings {
        var target: BatchTarget
        var outDir: String
        var jobs: Int
        /// Passed to every child as its own `--memory-budget` (the batch's budget divided by `jobs`).
        var memoryBudgetPerJob: Int?
        var passthrough: [String]
        var quiet: Bool
    }

    struct Summary {
        var converted = 0
        var skipped = 0
        var failed = 0
        var notStarted = 0
        var reportFailures = 0
        /// SIGINT or SIGTERM, when one stopped the batch.
        var stoppedBy: Int32?
    }

    private struct Running {
        let input: BatchInput
        let base: String
        let started: Date
        let stdoutPath: String
        let stderrPath: String
        /// For `timeline`: the hidden file beside the target that the child's stdout fills.
        let temporaryOutput: String?
    }

    private let settings: Settings
    private let report: BatchReport?
    private let signals: SignalForwarder
    private let scratch: String
    private var running: [pid_t: Running] = [:]
    private var summary = Summary()
    private var sequence = 0
    private var progress: ProgressBar?

    init(settings: Settings, report: BatchReport?, signals: SignalForwarder, scratch: String) {
        self.settings = settings
        self.report = report
        self.signals = signals
        self.scratch = scratch
    }

    func run(_ inputs: [BatchInput]) -> Summary {
        let bar = ProgressBar(total: inputs.count, label: "batch \(settings.target.rawValue)", quiet: settings.quiet)
        progress = bar
        var next = 0
        while true {
            while running.count < settings.jobs, next < inputs.count, signals.stoppingSignal == nil {
                start(inputs[next])
                next += 1
            }
            if running.isEmpty { break }
            guard let (pid, status) = signals.waitForChild() else { break }
            if let job = running.removeValue(forKey: pid) { finish(job, waitStatus: status) }
        }
        bar.finish()
        summary.stoppedBy = signals.stoppingSignal
        summary.notStarted += inputs.count - next
        return summary
    }

    private var done: Int { summary.converted + summary.skipped + summary.failed }

    private func start(_ input: BatchInput) {
        let base = settings.outDir + "/" + Self.removingExtension(input.relativePath)
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
            let target = settings.target.markerPath(base: base)
            guard let temporary = Self.makeTemporary(beside: target) else {
                fail("\(target): cannot create output: \(String(cString: strerror(errno)))", 73)
                return
            }
            stdoutPath = temporary
            temporaryOutput = temporary
        }
        let arguments = settings.target.childArguments(
            input: input.path, base: base, memoryBudget: settings.memoryBudgetPerJob,
            passthrough: settings.passthrough)
        let result = signals.startChild {
            try ChildProcess.spawn(
                executable: ChildProcess.currentExecutable, arguments: arguments,
                stdoutPath: stdoutPath, stderrPath: stderrPath)
        }
        switch result {
        case .success(let pid):
            running[pid] = Running(
                input: input, base: base, started: started, stdoutPath: stdoutPath, stderrPath: stderrPath,
                temporaryOutput: temporaryOutput)
        case .failure(let error):
            if let temporaryOutput { unlink(temporaryOutput) }
            fail("\(displayName(input.path)): cannot start a child process: \(error)", 70)
        case nil:
            // Stopping: this input was not started and is not reported (a rerun picks it up).
            if let temporaryOutput { unlink(temporaryOutput) }
            summary.notStarted += 1
        }
    }

    private func finish(_ job: Running, waitStatus: Int32) {
        let code = ChildProcess.exitCode(fromWaitStatus: waitStatus)
        let wall = Date().timeIntervalSince(job.started)
        let message = ChildProcess.lastLine(ofFile: job.stderrPath)
        defer {
            unlink(job.stderrPath)
            if job.temporaryOutput == nil { unlink(job.stdoutPath) }
        }
        if code != 0, let signal = signals.stoppingSignal, code == 128 + signal || code == ExitStatus.interrupted || code == ExitStatus.terminated {
            // Stopped by the signal we forwarded: not a failure of this input; a rerun redoes it.
            if let temporary = job.temporaryOutput { unlink(temporary) }
            return
        }
        if code == 0 {
            let facts = JobFacts(json: ChildProcess.contents(ofFile: job.stdoutPath), target: settings.target)
            if let temporary = job.temporaryOutput {
                let target = settings.target.markerPath(base: job.base)
                guard Self.commit(temporary, to: target) else {
                    let reason = String(cString: strerror(errno))
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
        var error = message.map { $0.hasPrefix("gifx: ") ? String($0.dropFirst(6)) : $0 }
            ?? (code > 128 ? "killed by signal \(code - 128)" : "exited with status \(code)")
        if message == nil { error = "\(displayName(job.input.path)): \(error)" }
        record(BatchReportLine(
            input: job.input.path, outputs: [], status: .failed, error: error, exitCode: code, wallSeconds: wall))
    }

    private func record(_ line: BatchReportLine) {
        switch line.status {
        case .ok: summary.converted += 1
        case .skipped: summary.skipped += 1
        case .failed: summary.failed += 1
        }
        if let report, !report.append(line) {
            summary.reportFailures += 1
            if summary.reportFailures == 1 {
                progress?.finish()
                printError(report.path, "cannot append to report: \(String(cString: strerror(errno)))")
            }
        }
        if line.status == .failed, !settings.quiet, let error = line.error {
            progress?.finish()
            FileHandle.standardError.write(Data("gifx: \(error)\n".utf8))
        }
        progress?.update(done, extra: summary.failed > 0 ? "\(summary.failed) failed" : "")
    }

    // MARK: - Files

    /// `sub/a.gif` → `sub/a`; a leading dot (`.gif`) is a name, not an extension.
    static func removingExtension(_ relativePath: String) -> String {
        let slash = relativePath.lastIndex(of: "/").map { relativePath.index(after: $0) } ?? relativePath.startIndex
        let name = relativePath[slash...]
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return relativePath }
        return String(relativePath[..<dot])
    }

    /// An output counts as done when it exists and is not older than its input.
    static func isUpToDate(_ output: String, input: String) -> Bool {
        var out = stat(), source = stat()
        guard stat(output, &out) == 0, stat(input, &source) == 0 else { return false }
        let a = out.st_mtim, b = source.st_mtim
        return a.tv_sec > b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec >= b.tv_nsec)
    }

    /// A hidden, empty file beside `target` (same folder, so the final rename is atomic), with the
    /// permissions a new file would get.
    private static func makeTemporary(beside target: String) -> String? {
        guard case .success(let file) = POSIXFiles.makeHiddenTemporary(beside: target) else { return nil }
        close(file.fd)
        return file.path
    }

    /// Flushes the finished temporary file and renames it over the target.
    private static func commit(_ temporary: String, to target: String) -> Bool {
        POSIXFiles.durableRename(temporary, to: target) == 0
    }
}
