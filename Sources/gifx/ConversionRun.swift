import ArgumentParser
import Foundation
import GifxKit
import GifxTimeline

/// One output a conversion writes: a kind of the registry, its file (a sheet's PNG), a sheet's description, and the
/// output's own settings (a `convert -o` prefix). `convert`, `to-mp4` and `to-sprite` name theirs from the command
/// line; a batch's jobs carry them typed (`BatchJob.Output`).
struct ConversionOutput {
    var kind: OutputKind
    var path: String
    var description: String?
    var own = OutputSettings()
    /// The `-o` value it was read from, which a refusal names.
    var label: String?

    /// Every file it names (a sheet's pages beyond the first are named by the sheet).
    var paths: [String] { [path] + [description].compactMap { $0 } }
}

/// The options of `convert`, `to-mp4` or `to-sprite`: everything but the input and the outputs, parsed by the
/// subcommand's own parser (from its command line, or once for a whole batch), and the one way those commands run a
/// conversion (`runConversion(input:outputs:)`): requests built from the output-kind registry over the command's
/// defaults, one progress and error path, one set of warnings, one `--stats` format (`ConversionStats`).
protocol ConversionOptions: ParsableArguments {
    /// The subcommand's name: the progress bar's label and `--stats`' `command`.
    static var commandName: String { get }
    /// Whether `--stats` also gives the one output's figures at the top level (to-mp4, to-sprite).
    static var liftsOutputStats: Bool { get }
    var policy: TimelinePolicy { get }
    var common: RunOptions { get set }
    var verification: VerifyOptions { get }
    var edits: EditOptions { get }
    /// What an output has unless its own settings say otherwise: the command's options.
    var defaults: OutputDefaults { get }
    /// The usage errors of these options with `outputs` (the parser sees each alone); the command's `validate` and a
    /// batch's check of its options call it.
    func validate(for outputs: [ConversionOutput]) throws
    /// What the command says of a finished conversion beyond its warnings (to-sprite's `--dedupe` line).
    func describe(_ report: ConversionReport, input: String)
}

extension ConversionOptions {
    static var liftsOutputStats: Bool { true }
    func validate(for outputs: [ConversionOutput]) throws {}
    func describe(_ report: ConversionReport, input: String) {}

    /// The run's settings: the common options under the policy, then verification, then the edits.
    var runSettings: RunSettings { edits.applied(to: verification.applied(to: common.settings(policy: policy))) }

    /// The request for `output`: its kind's (`OutputKind.request`, the one table of which settings each kind takes)
    /// over `defaults`. A refusal is a usage error worded for the command line, after the `-o` value that asked.
    func request(_ output: ConversionOutput) throws -> OutputRequest {
        do {
            return try output.kind.request(OutputBuild(
                target: OutputTarget(commandLine: output.path),
                description: output.description.map { OutputTarget(commandLine: $0) }, own: output.own, defaults: defaults))
        } catch {
            throw ValidationError((output.label.map { "'\($0)': " } ?? "") + error.wording(.commandLine))
        }
    }

    /// The command's run: `check` (a usage error the parser could not see), the outputs checked, one conversion, the
    /// warnings of the run and its videos, `describe`, then `--stats`. Errors are printed and end the run with their
    /// exit code (`reportingErrors`); the progress is finished on every exit.
    func runConversion(input: String, outputs: [ConversionOutput], check: () throws -> Void = {}) throws {
        let started = Date()
        installCleanupSignalHandlers()
        let progress = ProgressReporter(label: Self.commandName, quiet: common.quiet, progress: common.progress)
        let targets = outputs.flatMap(\.paths)
        try reportingErrors(input: input, progress: progress.json, outputBytes: { JSONProgress.bytes(of: targets) }) {
            try check()
            let requests = try outputs.map(request)
            try StandardOutputRules.refuseTerminal(
                binaryFormat: outputs.first { StandardOutput.isTarget($0.path) }.flatMap(\.kind.binaryFormat))
            for target in targets where !StandardOutput.isTarget(target) { try ensureOutput(target, isNot: input) }
            let report = try runConversion(input: input, requests: requests, progress: progress)
            var warnings = report.warnings
            for case let result as VideoResult in report.outputs {
                warnings += [result.droppedFramesWarning, result.levelWarning, result.imageTimingAdvice].compactMap { $0 }
            }
            printWarnings(warnings, input: input, quiet: common.quiet)
            describe(report, input: input)
            if common.stats {
                printStats(ConversionStats(
                    command: Self.commandName, report: report, seconds: Date().timeIntervalSince(started),
                    liftsOutput: Self.liftsOutputStats))
            }
        }
    }

    /// Runs `requests` on `input` (a path, or `-` for standard input): one decode for every output, the progress
    /// shown by `progress` and finished on every exit, a failed verification's report printed before it is thrown.
    func runConversion(input: String, requests: [OutputRequest], progress: ProgressReporter) throws -> ConversionReport {
        defer { progress.finish() }
        return try printingVerificationReport {
            try InputSource.withPath(input) { path in
                try GifConverter(settings: runSettings).convert(path: path, to: requests, progress: progress.update)
            }
        }
    }

    /// These options as a batch's worker runs them: the options given after `--`, parsed by this type, with what the
    /// batch sets itself (`--quiet`, `--stats`, `--overwrite`, and each conversion's share of memory and threads).
    static func batch(_ settings: BatchJob.Settings) throws -> Self {
        var options = try parse(settings.options)
        options.common.quiet = true
        options.common.stats = true
        options.common.overwrite = true
        if let bytes = settings.memoryBudget { options.common.memoryBudget = ByteCount(bytes: bytes) }
        if let threads = settings.threads { options.common.threads = threads }
        return options
    }
}
