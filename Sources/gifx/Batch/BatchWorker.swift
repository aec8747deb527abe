import ArgumentParser
import ChildProcesses
import Foundation
import GifxKit

#if canImport(Glibc)
import Glibc
#endif

/// A long-lived child of `gifx batch` that converts many inputs one after another in its own process, so
/// a batch pays the process start-up (dynamic loading of libav* and its closure, the Swift runtime's
/// conformance scans: 8 ms for `timeline`, 45 ms for `to-mp4` on 2 cores, docs/batch-scaling.md) once per
/// worker instead of once per input.
///
/// Protocol: the batch's `WorkerPool` (`WorkerRole.batch`) starts `/proc/self/exe`, its jobs a pipe of JSON lines and
/// its answers a pipe of results (`WorkerChannel`). The first line is the batch's `BatchJob.Settings` (the subcommand and its
/// options, which the worker parses once, with the subcommand's own parser); every later line is one `BatchJob`: an
/// input, its outputs (kinds of the registry and their files), and the files for the conversion's standard output
/// and error. For each job the worker points its standard output and error at the job's files, runs the conversion
/// through the subcommand's own core (`ConversionOptions.runConversion`, `TimelineOptions.run`), flushes, and answers
/// one line: the exit status the same conversion would have ended with as a process of its own.
/// End of standard input: exit 0. Whatever kills the process mid-job (a signal, a crash, `exit`, the
/// SIGTERM of a `--timeout`, an allocation failure under `--max-memory`) ends it as it would have ended a
/// child of its own, and the batch reports that input from the wait status exactly as before; no other
/// input was in flight in this process, and a fresh worker takes the rest.
enum BatchWorker {
    /// The batch's workers: this binary, `--batch-worker COMMAND OUT-DIR` on their command line (for `ps`), their
    /// standard error /dev/null (each job points it at a file of its own), and `--max-memory` as each worker's
    /// RLIMIT_DATA. A crash report from the Swift runtime's backtracer would be thrown away with a job's stderr
    /// (only its last line reaches the report) and can take seconds, so it is off unless the user set it.
    static func pool(command: BatchSubcommand, outDir: String, maxMemory: Int?) -> WorkerPool {
        let environment = ProcessInfo.processInfo.environment["SWIFT_BACKTRACE"] == nil ? ["SWIFT_BACKTRACE": "enable=no"] : [:]
        return WorkerPool(
            role: .batch, executable: ChildProcess.currentExecutable, label: [command.rawValue, outDir],
            environment: environment, memoryLimit: maxMemory, standardError: .null)
    }

    /// In a process started as a batch's worker, serves jobs and exits; anywhere else returns at once.
    static func serveIfRequested() {
        guard var channel = WorkerChannel.adopt(.batch) else { return }
        exit(serve(&channel))
    }

    private static func serve(_ channel: inout WorkerChannel) -> Int32 {
        let decoder = JSONDecoder()
        guard let first = channel.nextJob(), let settings = try? decoder.decode(BatchJob.Settings.self, from: first) else {
            return ExitStatus.software
        }
        // Checked by the batch with the same parser before any job ran: a failure here is reported with each job.
        let command = Result { try BatchConversion(settings) }
        while let line = channel.nextJob() {
            guard let job = try? decoder.decode(BatchJob.self, from: line) else { return ExitStatus.software }
            let status = run(job, command)
            // The batch is gone when its end of the pipe is closed.
            guard channel.answer(Data("\(status)".utf8)) else { return 0 }
        }
        return 0
    }

    /// Runs one job with its output streams on the job's files; the exit status, as `Gifx.main` would end with it.
    private static func run(_ job: BatchJob, _ command: Result<BatchConversion, any Error>) -> Int32 {
        guard redirect(STDOUT_FILENO, to: job.stdout), redirect(STDERR_FILENO, to: job.stderr) else {
            return ExitStatus.cannotCreate
        }
        defer {
            fflush(nil)
            pointAtNull(STDOUT_FILENO, STDERR_FILENO)
        }
        do {
            try command.get().run(job)
            return 0
        } catch {
            // What ParsableCommand.exit(withError:) prints before it exits.
            let code = Gifx.exitCode(for: error)
            let message = Gifx.fullMessage(for: error)
            if !message.isEmpty {
                if code == .success {
                    print(message)
                } else {
                    FileHandle.standardError.write(Data((message + "\n").utf8))
                }
            }
            return code.rawValue
        }
    }

    /// Opens `path` for writing (created 0600 if missing, truncated) onto `target`.
    private static func redirect(_ target: Int32, to path: String) -> Bool {
        fflush(nil)
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return dup2(fd, target) == target
    }

    private static func pointAtNull(_ targets: Int32...) {
        let fd = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return }
        for target in targets { dup2(fd, target) }
        close(fd)
    }
}

/// The subcommand a batch runs, its options parsed once (`BatchJob.Settings`) by the subcommand's own type.
enum BatchConversion {
    case conversion(any ConversionOptions)
    case timeline(TimelineOptions)

    /// Refuses (as the subcommand's parser would) options that do not parse or validate.
    init(_ settings: BatchJob.Settings) throws {
        switch settings.command {
        case .toMP4: self = .conversion(try ToMP4Options.batch(settings))
        case .toSprite: self = .conversion(try ToSpriteOptions.batch(settings))
        case .convert: self = .conversion(try ConvertOptions.batch(settings))
        case .timeline:
            var options = try TimelineOptions.parse(settings.options)
            options.json = true
            options.quiet = true
            self = .timeline(options)
        }
    }

    /// The usage errors of the options with these outputs (`ConversionOptions.validate(for:)`).
    func validate(for outputs: [BatchJob.Output]) throws {
        guard case .conversion(let options) = self else { return }
        let outputs = try Self.outputs(outputs)
        for output in outputs { _ = try options.request(output) }
        try options.validate(for: outputs)
    }

    /// Converts the job's input to its outputs, through the subcommand's own core.
    func run(_ job: BatchJob) throws {
        switch self {
        case .conversion(let options): try options.runConversion(input: job.input, outputs: try Self.outputs(job.outputs))
        case .timeline(let options): try options.run(input: job.input)
        }
    }

    /// A job's outputs, each kind found in the registry by its name.
    private static func outputs(_ outputs: [BatchJob.Output]) throws -> [ConversionOutput] {
        try outputs.map { output in
            guard let kind = OutputKind.all.first(where: { $0.name == output.kind }) else {
                throw ValidationError("no output kind is named \(output.kind)")
            }
            return ConversionOutput(kind: kind, path: output.path, description: output.description)
        }
    }
}
