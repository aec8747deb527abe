import ArgumentParser
import ChildProcesses
import Foundation
import GifxKit
import GifxPOSIXFiles

#if canImport(Glibc)
import Glibc
#endif

/// `gifx batch`: one subcommand over many GIFs, N at a time, each job a worker process that converts input
/// after input (`BatchWorker`). A conversion that crashes or runs out of memory costs one input, never the
/// batch; each conversion's memory is bounded by its own `--memory-budget`; a killed batch
/// loses only the jobs in flight.
struct BatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch",
        abstract: "Run to-mp4, to-sprite, timeline or convert over many GIFs, in parallel, resumably.",
        usage: "gifx batch <command> <inputs> ... --out-dir <dir> [<options>] [-- <command options> ...]",
        discussion: """
            Inputs are \(InputFormat.helpPhrase()) files (told by content), folders (searched recursively for \(InputFormat.folderPatterns) in any case, hidden entries \
            skipped, sorted) or - (newline-separated paths on standard input; a relative path read there \
            keeps its folders in the output name). Each output is OUT-DIR/<path relative to the input \
            folder> with the new extension: .mp4; .png (or pages -0.png, -1.png...) + .json; \
            .timeline.json; for convert, one file per --formats entry (each with its kind's file ending, \
            .mp4, .webm, .apng, .timeline.json…; sheet: .sheet.png + .sheet.json), all from one decode, all \
            committed together, listed on one report line. A file named directly keeps just its base \
            name. Two inputs with the same output: the first is converted, the others fail.

            Options for the command itself go after `--`, and are passed to every conversion, e.g. \
            `gifx batch to-mp4 lib --out-dir out -- --crf 20 --width 480`. They are checked once before \
            anything runs (`gifx batch to-mp4 -- --help` shows them). The batch names the outputs and sets \
            --quiet, --stats and --overwrite itself, so -o/--json are refused there; give --memory-budget \
            to the batch: it is divided among the --jobs conversions.

            Resumable: an input whose output exists and is not older than the input is skipped, so \
            running the same command again after a kill or a failure converts only what is missing or \
            stale; hidden temporary files left by a killed run are removed. --report appends one JSON \
            line per input as it ends: input, outputs, status, error, exitCode, exitClass (malformed, \
            cannot-open, internal, io… for a non-zero exit), signal (SIGKILL, SIGSEGV… when one ended \
            it), frames, duration (s), wallSeconds (plus the conversion's --stats as stats). status is \
            ok or skipped, or the kind of failure: failed (non-zero exit), timeout (--timeout ran out), \
            memory (an allocation failed under --max-memory), signal (killed by a signal).

            Jobs: each of the --jobs is a worker process that converts input after input, so start-up is \
            paid once per job, not per input; a conversion that crashes or times out ends its worker and \
            costs that input only, and a fresh worker takes the next. Never more jobs \
            run than there are inputs to convert: the cores and memory budget of the others go to them \
            (4 inputs on 16 cores: 4 jobs of --threads 4).

            Limits: --timeout stops a conversion that runs too long (SIGTERM, then SIGKILL after 5 s); \
            --max-memory caps each conversion's data memory (RLIMIT_DATA, inherited by nothing else). \
            Neither ever stops the batch: the input is reported and the next one starts.

            Scale-out: --shard K/N keeps the inputs whose FNV-1a 64-bit hash of the relative path, mod N, \
            is K; shards 0..N-1 of the same inputs are disjoint and cover them all. --shard auto reads \
            GIFX_SHARD_INDEX + GIFX_SHARD_COUNT, else JOB_COMPLETION_INDEX (Kubernetes Indexed Job) + \
            GIFX_SHARD_COUNT, else SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN (divided by \
            SLURM_ARRAY_TASK_STEP) + SLURM_ARRAY_TASK_COUNT. See docs/scale-out.md.

            Exit status: 0 every input ok or skipped; 1 some failed (see the report or stderr); \
            64 usage error; 73 cannot create the output folder or report; 74 the report could not be \
            written; 130/143 stopped by SIGINT/SIGTERM (passed on to the running conversions, which \
            remove their partial files; report lines already written stay).
            """)

    @Argument(help: ArgumentHelp("The conversion to run: to-mp4, to-sprite, timeline or convert.", valueName: "command"))
    var command: BatchSubcommand

    @Option(help: ArgumentHelp(
        "convert's outputs, e.g. mp4,webm,png: \(EnglishList.phrase(OutputKind.all.map(\.name), or: true)) (gifx formats).",
        valueName: "list"))
    var formats: String?

    /// What every child runs and writes.
    var target: BatchTarget {
        BatchTarget(command: command, formats: formats.flatMap(OutputKind.list(parsing:)) ?? [])
    }

    @Option(help: ArgumentHelp("Folder for the outputs (created if missing).", valueName: "dir"))
    var outDir: String

    @Option(help: ArgumentHelp(
        "Conversions at a time (default: the number of cores; never more than the inputs to convert).", valueName: "n"))
    var jobs: Int?

    @Option(help: ArgumentHelp("Append one JSON line per input to this file.", valueName: "file"))
    var report: String?

    @Option(help: ArgumentHelp("Convert only shard K of N (0-based), or auto from the scheduler's environment.",
                               valueName: "k/n|auto"))
    var shard: String?

    @Option(help: ArgumentHelp("Memory the whole batch may hold, e.g. 2G: each of the --jobs conversions gets its share as its own --memory-budget (default: the cgroup's limit, else half of the available memory).",
                               valueName: "size"))
    var memoryBudget: ByteCount?

    @Option(help: ArgumentHelp(
        "Seconds one conversion may run: then SIGTERM, and SIGKILL 5 s later; reported as status timeout.",
        valueName: "seconds"))
    var timeout: Double?

    @Option(help: ArgumentHelp(
        "Memory each conversion may allocate (RLIMIT_DATA), e.g. 512M; hitting it is reported as status memory.",
        valueName: "size"))
    var maxMemory: ByteCount?

    @Flag(help: "No progress bar, no per-file errors and no summary on stderr.") var quiet = false
    @OptionGroup var progress: ProgressOptions

    /// Inputs, then `--` and the command's options. One array, split here, because swift-argument-parser
    /// allows a single repeating positional per command: `.allUnrecognized` keeps the `--` in place.
    @Argument(
        parsing: .allUnrecognized,
        help: ArgumentHelp(
            "GIF files, folders, or - for a list of paths on standard input; then -- and options for the command.",
            valueName: "inputs"))
    var arguments: [String] = []

    /// Everything before the first `--`.
    var inputs: [String] {
        Array(arguments.prefix { $0 != "--" })
    }

    /// Everything after the first `--`.
    var options: [String] {
        guard let terminator = arguments.firstIndex(of: "--") else { return [] }
        return Array(arguments[(terminator + 1)...])
    }

    func validate() throws {
        if let unknown = inputs.first(where: { $0.hasPrefix("-") && $0 != "-" }) {
            throw ValidationError(
                "unknown option '\(unknown)' (options for \(command.rawValue) go after --, e.g. -- --crf 20)")
        }
        if inputs.isEmpty { throw ValidationError("give at least one input file, folder, or -") }
        if command == .convert {
            guard let formats else { throw ValidationError("batch convert needs --formats, e.g. --formats mp4,webm,png") }
            if OutputKind.list(parsing: formats) == nil {
                throw ValidationError(
                    "--formats takes a comma-separated list of distinct formats: "
                        + OutputKind.all.map(\.name).joined(separator: ", "))
            }
        } else if formats != nil {
            throw ValidationError("--formats names the outputs of batch convert only")
        }
        if let jobs, !(1...1024).contains(jobs) { throw ValidationError("--jobs must be 1...1024") }
        if let shard, shard != "auto", Shard(parsing: shard) == nil {
            throw ValidationError("--shard must be K/N with 0 <= K < N, or auto")
        }
        if outDir.isEmpty { throw ValidationError("--out-dir must not be empty") }
        if let timeout, !(timeout > 0 && timeout <= 31_536_000) {
            throw ValidationError("--timeout must be a number of seconds > 0")
        }
        if let maxMemory, maxMemory.bytes < 16 << 20 {
            throw ValidationError("--max-memory must be at least 16M (a conversion cannot even start below that)")
        }
    }

    func run() throws {
        let events = progress.jsonProgress()
        var counts: [(String, Any?)] = []
        try ProgressOptions.endingRun(events, extra: { counts }) {
            try run(events: events, counts: &counts)
        }
    }

    /// The batch; `counts` gets the summary's figures for `--progress json`'s end line.
    private func run(events: JSONProgress?, counts: inout [(String, Any?)]) throws {
        let passthrough = try checkedPassthrough()
        let shard: Shard
        do {
            shard = try resolvedShard()
        } catch let error as ShardError {
            printError("batch", error.description)
            throw ExitCode(ExitStatus.usage)
        }
        let outDir = self.outDir.count > 1 && self.outDir.hasSuffix("/") ? String(self.outDir.dropLast()) : self.outDir
        do {
            try FileManager.default.createDirectory(atPath: outDir, withIntermediateDirectories: true)
        } catch {
            printError(outDir, "cannot create folder: \(error.localizedDescription)")
            throw ExitCode(ExitStatus.cannotCreate)
        }
        let reportFile: BatchReport?
        do {
            reportFile = try report.map { try BatchReport(path: $0) }
        } catch let error as BatchSetupError {
            printError(error.subject, error.message)
            throw ExitCode(error.exitCode)
        }

        var all = BatchInputs.expand(inputs, standardInput: Self.readStandardInput)
        BatchInputs.flagCollisions(&all) { input in
            outDir + "/" + BatchFiles.removingExtension(input.relativePath) + target.outputExtension
        }
        let selected = all.filter { shard.contains(relativePath: $0.relativePath) }
        // Inputs up to date (skipped) or refused (reported at once) take no job, nor the cores of one.
        let toConvert = selected.filter { input in
            input.problem == nil && !target.isUpToDate(
                base: outDir + "/" + BatchFiles.removingExtension(input.relativePath), input: input.path)
        }.count
        let jobs = BatchTarget.runningJobs(requested: self.jobs, toConvert: toConvert)

        // From here on SIGINT/SIGTERM end the batch through the run loop (the pool forwards them to every worker
        // and starts none), so the scratch folder below is always removed.
        let pool = BatchWorker.pool(command: command, outDir: outDir, maxMemory: maxMemory?.bytes)
        SignalRoute.install { pool.stop(forwarding: $0) }
        guard let scratch = Self.makeScratchFolder() else {
            printError("batch", "cannot create a temporary folder: \(String(cString: strerror(errno)))")
            throw ExitCode(ExitStatus.cannotCreate)
        }
        defer { try? FileManager.default.removeItem(atPath: scratch) }

        let started = Date()
        // One reading of the machine for the whole batch, shared among the jobs: children that each took
        // their own default would each plan against all of it.
        let budget = ProcessMemoryBudget.resolve(given: memoryBudget?.bytes)
        let memoryBudgetPerJob = budget.bytes.map { max($0 / jobs, 1) }
        let threadsPerJob = target.threadsPerJob(jobs: jobs, passthrough: passthrough)
        let runner = BatchRunner(
            settings: .init(
                target: target, outDir: outDir, jobs: jobs,
                job: BatchJob.Settings(
                    command: command, options: passthrough,
                    memoryBudget: target.takesMemoryBudget ? memoryBudgetPerJob : nil, threads: threadsPerJob),
                quiet: quiet, timeout: timeout, maxMemory: maxMemory?.bytes, events: events,
                showBar: progress.mode == .bar,
                inputsPerWorker: DeveloperSwitches.current.batchProcessPerInput ? 1 : nil),
            report: reportFile, pool: pool, scratch: scratch)
        let summary = runner.run(selected)
        let seconds = Date().timeIntervalSince(started)
        counts = [
            ("inputs", selected.count), ("converted", summary.converted), ("skipped", summary.skipped),
            ("failed", summary.failed), ("timedOut", summary.timedOut), ("outOfMemory", summary.outOfMemory),
            ("killedBySignal", summary.killedBySignal), ("notStarted", summary.notStarted),
            ("signal", summary.stoppedBy.map { $0 == SIGINT ? "SIGINT" : "SIGTERM" }),
        ]

        if !quiet {
            var line = "batch \(command.rawValue): \(summary.converted) converted, \(summary.skipped) skipped, "
                + "\(summary.failed) failed"
            let kinds = [(summary.timedOut, "timed out"), (summary.outOfMemory, "out of memory"),
                         (summary.killedBySignal, "killed by a signal")].filter { $0.0 > 0 }
            if !kinds.isEmpty { line += " (" + kinds.map { "\($0.0) \($0.1)" }.joined(separator: ", ") + ")" }
            if summary.leftoversRemoved > 0 {
                line += "; removed \(summary.leftoversRemoved) temporary file(s) left by killed conversions"
            }
            if shard != .all { line += " (shard \(shard) of \(all.count) inputs: \(selected.count))" }
            line += String(format: " in %.1f s", seconds)
            if let signal = summary.stoppedBy {
                line += "; \(signal == SIGINT ? "interrupted" : "terminated"), \(summary.notStarted) not started"
            }
            if target.command != .timeline {
                let threads = threadsPerJob.map { "\($0) thread(s)" } ?? "the threads given after --"
                let memory = memoryBudgetPerJob.map { "\($0 >> 20) MiB (\(budget.source) / \(jobs))" } ?? "no memory limit"
                line += "; each of \(jobs) job(s): \(threads), \(memory)"
            }
            if let report { line += "; report: \(report)" }
            FileHandle.standardError.write(Data("gifx: \(line)\n".utf8))
        }
        if let signal = summary.stoppedBy {
            throw ExitCode(signal == SIGINT ? ExitStatus.interrupted : ExitStatus.terminated)
        }
        if summary.reportFailures > 0 { throw ExitCode(ExitStatus.ioError) }
        if summary.failed > 0 { throw ExitCode.failure }
    }

    /// The options after `--`, minus the flags the batch sets itself; refused options, and anything the command's
    /// own parser rejects alone or with the outputs the batch names, are a usage error before a single job starts.
    /// `--help` among them prints the command's help.
    private func checkedPassthrough() throws -> [String] {
        let (kept, refused) = target.filterPassthrough(options)
        if !refused.isEmpty {
            printError("batch", "\(refused.joined(separator: " ")): the batch names outputs and sets this itself "
                + "(see gifx batch --help)")
            throw ExitCode(ExitStatus.usage)
        }
        let sample = target.job(input: "input.gif", base: outDir + "/input", stdout: "", stderr: "")
        do {
            let conversion = try BatchConversion(BatchJob.Settings(command: command, options: kept))
            try conversion.validate(for: sample.outputs)
        } catch {
            if Gifx.exitCode(for: error) == .success {
                print(Gifx.helpMessage(for: command.commandType))
                throw ExitCode.success
            }
            printError("batch", "options for \(command.rawValue): \(Gifx.message(for: error))")
            throw ExitCode(ExitStatus.usage)
        }
        return kept
    }

    private func resolvedShard() throws -> Shard {
        guard let shard else { return .all }
        if shard == "auto" { return try Shard.fromEnvironment(ProcessInfo.processInfo.environment) }
        return Shard(parsing: shard) ?? .all
    }

    private static func readStandardInput() -> String {
        String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
    }

    /// A private folder for the children's captured stdout/stderr.
    private static func makeScratchFolder() -> String? {
        try? POSIXFiles.makeUniqueFolder(prefix: "\(NSTemporaryDirectory())/gifx-batch-").get()
    }
}
