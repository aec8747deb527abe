import ArgumentParser
import Foundation
import GifxKit
import GifxTimeline

/// One line on stderr, prefixed with the tool name: what scripts grep for.
func printError(_ subject: String, _ message: String) {
    FileHandle.standardError.write(Data("gifx: \(subject): \(message)\n".utf8))
}

/// Runs `body`, turning a `GifxError` into one stderr line naming the file and its sysexits code,
/// and any other error into exit 70: no stack traces, no half sentences. With `progress` (`--progress
/// json`), the JSON end line follows on the way out, whatever the way (`outputBytes`: the files written,
/// asked on success only).
/// The end line also carries the first error line printed (`"error"`, without the `gifx: ` prefix).
func reportingErrors(
    input: String, progress: JSONProgress? = nil, outputBytes: () -> Int = { 0 }, _ body: () throws -> Void
) throws {
    var firstError: String?
    try ProgressOptions.endingRun(
        progress, outputBytes: outputBytes, extra: { firstError.map { [("error", $0)] } ?? [] }
    ) {
        try reportingErrorLines(input: input, body) { subject, message in
            printError(subject, message)
            if firstError == nil { firstError = "\(subject): \(message)" }
        }
    }
}

private func reportingErrorLines(
    input: String, _ body: () throws -> Void, printError: (String, String) -> Void
) throws {
    do {
        try body()
    } catch let error as VerificationFailed {
        // One line per failing output, named after it (the report itself is printed where it is asked for).
        for report in error.reports where !report.passed {
            printError(outputDisplayName(report.path), "verification failed: " + report.failures.joined(separator: "; "))
        }
        throw ExitCode(error.exitCode)
    } catch let error as any GifxError where error.failureClass == .outputClosed {
        // The reader of a piped output went away (`| head`): a quiet end, as a filter's, with 141.
        throw ExitCode(error.exitCode)
    } catch let error as any GifxError {
        printError(error.subjectPath.map(outputDisplayName) ?? displayName(input), commandLineWording(error))
        throw ExitCode(error.exitCode)
    } catch let error as ExitCode {
        throw error
    } catch {
        printError(displayName(input), "internal error: \(error)")
        throw ExitCode(ExitStatus.software)
    }
}

/// The library's message with the remedy in this command line's terms: the library names no flag.
func commandLineWording(_ error: any GifxError) -> String {
    switch error {
    case let error as OutputError where error.kind == .exists:
        return "\(error.description) (use --overwrite to replace it)"
    case let error as OutputError where error.kind == .tooManyOpenFiles:
        return "\(error.description); raise `ulimit -n`, or use --scale/--max-size for fewer pages"
    case let error as VideoPlanError:
        return error.commandLineWording
    case let error as EditError:
        return error.problem.commandLineWording
    case let error as RunSettingsProblem:
        return error.commandLineWording
    case let error as TargetSizeUnreachable:
        return "\(error.description); a smaller frame (--scale, --width, --height) or fewer frames (--vfr, --max-fps) may fit"
    case let error as SpriteLayoutError:
        return "\(error.description); \(spriteLayoutRemedy(error))"
    default:
        return error.description
    }
}

/// The options that fix a sprite layout problem.
private func spriteLayoutRemedy(_ error: SpriteLayoutError) -> String {
    switch error {
    case .frameTooLarge(_, _, let extrude, let maxSize):
        let extrusion = extrude > 0 ? " (--extrude \(extrude) adds \(2 * extrude) px)" : ""
        return "--max-size is \(maxSize)\(extrusion): shrink the frames with --scale/--width/--height or raise --max-size"
    case .tooManyColumns(_, _, _, let maxSize, let fitting):
        return "give --columns \(fitting) or fewer, or raise --max-size (\(maxSize))"
    case .rowTooLarge:
        return "lower --max-size or --columns, or shrink the frames with --scale/--width/--height"
    case .singleSheetFormat:
        return "raise --max-size, use --trim/--pack maxrects/--dedupe, or --format phaser"
    }
}

/// `-` reads as "stdin" in messages about the input.
func displayName(_ path: String) -> String { path == "-" ? "<stdin>" : path }

/// `-` reads as "stdout" in messages about an output (an error's `subjectPath` is never the input).
func outputDisplayName(_ path: String) -> String { StandardOutput.isTarget(path) ? StandardOutput.displayName : path }

/// Warnings (damaged data kept, and similar) unless `--quiet`.
func printWarnings(_ warnings: [String], input: String, quiet: Bool) {
    guard !quiet else { return }
    for warning in warnings { printError(displayName(input), "warning: \(warning)") }
}

extension VideoPlanError {
    /// The problem and what would work instead, in this command line's flags (`--vfr`, `--fps 1`); the library's
    /// `description` states the facts alone, and `remedy` names what would change, not how to ask for it.
    var commandLineWording: String {
        switch remedy {
        case nil:
            return description
        case .resize:
            return "\(description); use --scale, --width or --height"
        case .shorterFrames(let longest):
            return "\(description): use --vfr, or --fps \(Rational(longest.den, longest.num)) or faster"
        case .stillOutput:
            return "\(description): write .webp, .png or .jpg instead"
        }
    }
}

extension RunSettingsProblem {
    /// The problem in this command line's terms (the environment switches are named by their variable).
    var commandLineWording: String {
        switch self {
        case .threads: return "--threads must be \(RunSettings.threadRange.lowerBound)...\(RunSettings.threadRange.upperBound)"
        case .memoryBudget: return "--memory-budget must be at least 1 byte"
        case .edit(let problem): return problem.commandLineWording
        case .editWithVerify: return "--verify checks an output against the GIF as it plays; it does not take an edit (--from, --to, --speed, --reverse, --boomerang, --crop)"
        }
    }
}
