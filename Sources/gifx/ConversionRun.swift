import ArgumentParser
import Foundation
import GifxEncoders
import GifxKit
import GifxTimeline

/// What `convert`, `to-mp4` and `to-sprite` share: the run-wide options, requests built from the output-kind registry
/// over the command's defaults, and the one way they run (`runConversion()`): one progress and error path, one set
/// of warnings, one `--stats` format (`ConversionStats`). A batch's workers run their jobs through the same core.
protocol ConvertingCommand: ParsableCommand {
    /// A path, or `-` for standard input.
    var input: String { get }
    var policy: TimelinePolicy { get }
    var common: RunOptions { get }
    var verification: VerifyOptions { get }
    var edits: EditOptions { get }
    /// What an output has unless its own settings say otherwise: the command's options.
    var defaults: OutputDefaults { get }
    /// The outputs, in command-line order; throws a usage error (one the parser could not see) before anything
    /// is written.
    func requests() throws -> [OutputRequest]
    /// Every file the command names (checked before the run, counted by `--progress json` when it fails).
    var targets: [String] { get }
    /// The binary format written to standard output, if any (refused on a terminal).
    var standardOutputFormat: String? { get }
    /// Whether `--stats` also gives the one output's figures at the top level (to-mp4, to-sprite).
    static var liftsOutputStats: Bool { get }
    /// What the command says of a finished conversion beyond its warnings (to-sprite's `--dedupe` line).
    func describe(_ report: ConversionReport)
}

extension ConvertingCommand {
    static var liftsOutputStats: Bool { true }
    func describe(_ report: ConversionReport) {}

    /// The run's settings: the common options under the policy, then verification, then the edits.
    var runSettings: RunSettings { edits.applied(to: verification.applied(to: common.settings(policy: policy))) }

    /// The request for one output of `kind`: the registry's (`OutputKind.request`) over `defaults`. A refusal is a
    /// usage error worded for the command line, after `label` (the `-o` value) when given.
    func request(
        _ kind: OutputKind, path: String, description: String? = nil, own: OutputSettings = OutputSettings(),
        label: String? = nil
    ) throws -> OutputRequest {
        do {
            return try kind.request(OutputBuild(
                target: OutputTarget(commandLine: path), description: description.map { OutputTarget(commandLine: $0) },
                own: own, defaults: defaults))
        } catch {
            throw ValidationError((label.map { "'\($0)': " } ?? "") + error.wording(.commandLine))
        }
    }

    /// The command's run: its outputs checked, one conversion (`runConversion(input:requests:progress:)`), the
    /// warnings of the run and its videos, `describe`, then `--stats`. Errors are printed and end the run with their
    /// exit code (`reportingErrors`); the progress is finished on every exit.
    func runConversion() throws {
        let started = Date()
        installCleanupSignalHandlers()
        let progress = ProgressReporter(
            label: Self.configuration.commandName ?? "gifx", quiet: common.quiet, progress: common.progress)
        let targets = self.targets
        try reportingErrors(input: input, progress: progress.json, outputBytes: { JSONProgress.bytes(of: targets) }) {
            let requests = try requests()
            try StandardOutputRules.refuseTerminal(binaryFormat: standardOutputFormat)
            for target in targets where !StandardOutput.isTarget(target) { try ensureOutput(target, isNot: input) }
            let report = try runConversion(input: input, requests: requests, progress: progress)
            var warnings = report.warnings
            for case let result as VideoResult in report.outputs {
                warnings += [result.droppedFramesWarning, result.levelWarning, result.imageTimingAdvice].compactMap { $0 }
            }
            printWarnings(warnings, input: input, quiet: common.quiet)
            describe(report)
            if common.stats {
                printStats(ConversionStats(
                    command: Self.configuration.commandName ?? "gifx", report: report,
                    seconds: Date().timeIntervalSince(started), liftsOutput: Self.liftsOutputStats))
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
}
