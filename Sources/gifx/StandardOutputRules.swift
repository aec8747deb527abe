import ArgumentParser
import GifxKit

/// The rules every subcommand applies to `-o -` (docs/delivery.md): one output at most on standard output,
/// `--stats` (which prints there) not with it, and no binary output to a terminal.
enum StandardOutputRules {
    /// Usage checks of the parsed command line: `targets` are every output path, `binary` whether the
    /// standard-output one is binary.
    static func validate(targets: [String], stats: Bool) throws {
        let piped = targets.filter(StandardOutput.isTarget).count
        if piped > 1 { throw ValidationError("only one output can go to standard output (-)") }
        if piped == 1 && stats {
            throw ValidationError("--stats prints on standard output, which -o - already takes; drop one of them")
        }
    }

    /// Refuses binary output to a terminal (checked when the command runs, as a terminal is not a usage error of
    /// the command line but of where it runs): one line, exit 64.
    static func refuseTerminal(binaryFormat: String?) throws {
        guard let binaryFormat, StandardOutput.isTerminal else { return }
        throw TerminalOutputRefused(format: binaryFormat)
    }
}

/// Binary output asked for a terminal.
struct TerminalOutputRefused: GifxError {
    let format: String
    var description: String {
        "is a terminal; refusing to write binary \(format) there (redirect it to a file or pipe it to a program)"
    }
    var failureClass: FailureClass { .usage }
    var subjectPath: String? { StandardOutput.target }
}
