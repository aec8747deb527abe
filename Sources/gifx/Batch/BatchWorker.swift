import ArgumentParser
import Foundation
import GifxEncoders
import GifxPOSIXFiles
import GifxPipeline
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// A long-lived child of `gifx batch` that converts many inputs one after another in its own process, so
/// a batch pays the process start-up (dynamic loading of libav* and its closure, the Swift runtime's
/// conformance scans: 8 ms for `timeline`, 45 ms for `to-mp4` on 2 cores, docs/batch-scaling.md) once per
/// worker instead of once per input.
///
/// Protocol: the batch starts `/proc/self/exe` with `GIFX_BATCH_WORKER=1`, standard input a pipe of JSON lines
/// and standard output a pipe of results. The first line is the batch's `BatchJob.Settings` (the subcommand and its
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
    static let variable = "GIFX_BATCH_WORKER"

    /// In a process started as a worker, serves jobs and exits; anywhere else returns at once.
    static func serveIfRequested() {
        guard EnvironmentVariable.value(variable) == "1" else { return }
        unsetenv(variable)  // not inherited by whatever a conversion starts
        exit(serve())
    }

    private static func serve() -> Int32 {
        // The pipes move off 0 and 1 (close-on-exec, so a program a conversion starts does not hold them
        // open); the conversions see /dev/null as standard input, as a batch child always has.
        let jobs = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3)
        let results = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3)
        guard jobs >= 0, results >= 0 else { return ExitStatus.software }
        pointAtNull(STDIN_FILENO, STDOUT_FILENO)
        var reader = LineReader(fd: jobs)
        let decoder = JSONDecoder()
        guard let first = reader.next(), let settings = try? decoder.decode(BatchJob.Settings.self, from: first) else {
            return ExitStatus.software
        }
        // Checked by the batch with the same parser before any job ran: a failure here is reported with each job.
        let command = Result { try BatchConversion(settings) }
        while let line = reader.next() {
            guard let job = try? decoder.decode(BatchJob.self, from: line) else { return ExitStatus.software }
            let status = run(job, command)
            // The batch is gone when its end of the pipe is closed.
            guard (try? POSIXFiles.writeAll(FileDescriptor(rawValue: results), "\(status)\n".utf8)) != nil else { return 0 }
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

/// Newline-separated lines from a descriptor, read in blocks (a pipe may deliver part of a line, or several).
struct LineReader {
    let fd: Int32
    private var buffer: [UInt8] = []
    private var ended = false

    init(fd: Int32) { self.fd = fd }

    /// The next line without its newline; nil at end of input (a last line without a newline is returned first).
    mutating func next() -> Data? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Data(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return line
            }
            if ended {
                guard !buffer.isEmpty else { return nil }
                defer { buffer.removeAll() }
                return Data(buffer)
            }
            if !fill() { ended = true }
        }
    }

    /// Lines already buffered or readable now without blocking, for a descriptor `poll` said is readable;
    /// `ended` says whether the writer has closed its end.
    mutating func drain() -> (lines: [Data], ended: Bool) {
        _ = fill()
        var lines: [Data] = []
        while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(Data(buffer[..<newline]))
            buffer.removeSubrange(...newline)
        }
        return (lines, ended)
    }

    /// One read(2); false at end of input or on an error other than EINTR.
    private mutating func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                buffer.append(contentsOf: chunk[..<count])
                return true
            }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN { return true }
            ended = true
            return false
        }
    }
}
