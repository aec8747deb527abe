import Foundation
import GifxKit

/// One input of a batch as the batch hands it to a worker (`BatchWorker`): typed values, not a command line. What
/// every job shares (`Settings`) is encoded once by the batch and sent once to each worker, which parses the options
/// once; each job then names its input, its outputs (each a kind of the registry and its files) and where the
/// conversion's standard output and error go.
struct BatchJob: Codable, Equatable {
    /// What every conversion of a batch shares.
    struct Settings: Codable, Equatable {
        var command: BatchSubcommand
        /// The options given after `--`, minus the flags the batch sets itself, as given: checked by the
        /// subcommand's own parser before any job ran (`BatchCommand`), parsed once again by each worker (a command
        /// line's options are ArgumentParser's to read; the service's worker, by contrast, gets a typed job, `ConversionJob`).
        var options: [String]
        /// Each conversion's share of the batch: its `--memory-budget` and `--threads` (nil: the options' own).
        var memoryBudget: Int?
        var threads: Int?
    }

    /// One output: its kind (`OutputKind.name`), its file, and a sheet's description.
    struct Output: Codable, Equatable {
        var kind: String
        var path: String
        var description: String?
    }

    /// The input path (one that starts with `-` is given as `./-…`, so it never reads as standard input).
    var input: String
    /// Empty for `timeline`, whose JSON is its standard output.
    var outputs: [Output]
    var stdout: String
    var stderr: String

    /// `value`'s JSON and a newline: one line of the jobs pipe (JSON escapes newlines in paths).
    static func line(_ value: some Encodable) -> Data {
        var data = (try? JSONEncoder().encode(value)) ?? Data()
        data.append(UInt8(ascii: "\n"))
        return data
    }
}
