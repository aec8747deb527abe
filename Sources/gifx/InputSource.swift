import Foundation
import GifxKit

#if canImport(Glibc)
import Glibc
#endif

/// The GIF to read: a path, or `-` for standard input, which the library's `InputSpool` copies to a
/// private temporary file first (the decoder reads a file twice: metadata, then pixels).
enum InputSource {
    /// Runs `body` with a readable path for `argument`: the argument itself, or for `-` the spool of
    /// standard input, which exists for exactly the duration of `body` (or until a signal handler removes
    /// it through `TemporaryFiles`). A command does all its reading of the input inside `body`.
    static func withPath<Result>(_ argument: String, _ body: (_ path: String) throws -> Result) throws -> Result {
        try InputSpool.withPath(
            argument == "-" ? .fileDescriptor(STDIN_FILENO) : .path(argument), scratchFolder: TemporaryFiles.environmentFolder, body)
    }
}

/// `path` with its extension replaced by `newExtension` (appended when it has none): the default output names.
func replacingExtension(of path: String, with newExtension: String) -> String {
    let current = URL(fileURLWithPath: path).pathExtension
    return current.isEmpty ? path + "." + newExtension : String(path.dropLast(current.count)) + newExtension
}

/// Refuses an output that is the input itself (same file, whatever the spelling): the input is never modified.
func ensureOutput(_ output: String, isNot input: String) throws {
    var a = stat(), b = stat()
    guard input != "-", stat(input, &a) == 0, stat(output, &b) == 0 else { return }
    if a.st_dev == b.st_dev && a.st_ino == b.st_ino {
        throw OutputError(path: output, reason: "is the input file; choose another output", failure: .usage)
    }
}
