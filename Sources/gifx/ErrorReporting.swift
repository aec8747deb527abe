import ArgumentParser
import Foundation
import Frames

/// One line on stderr, prefixed with the tool name: what scripts grep for.
func printError(_ subject: String, _ message: String) {
    FileHandle.standardError.write(Data("gifx: \(subject): \(message)\n".utf8))
}

/// Runs `body`, turning a `ToolError` into one stderr line naming the file and its sysexits code,
/// and any other error into exit 70: no stack traces, no half sentences.
func reportingErrors(input: String, _ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as any ToolError {
        printError(displayName(error.subjectPath ?? input), error.description)
        throw ExitCode(error.exitCode)
    } catch let error as ExitCode {
        throw error
    } catch {
        printError(displayName(input), "internal error: \(error)")
        throw ExitCode(ExitStatus.software)
    }
}

/// `-` reads as "stdin" in messages.
func displayName(_ path: String) -> String { path == "-" ? "<stdin>" : path }

/// Warnings (damaged data kept, and similar) unless `--quiet`.
func printWarnings(_ warnings: [String], input: String, quiet: Bool) {
    guard !quiet else { return }
    for warning in warnings { printError(displayName(input), "warning: \(warning)") }
}
