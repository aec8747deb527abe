import GifxEncoders
import Foundation
import GifxFrames
import GifxPOSIXFiles
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// The GIF to read: a path, or `-` for standard input. The decoder reads a file twice (metadata, then
/// pixels), so stdin is spooled to a hidden temporary file first, removed when done or on a signal.
enum InputSource {
    /// Runs `body` with a readable path for `argument`: the argument itself, or for `-` the spool of
    /// standard input. The spool exists for exactly the duration of `body` and is removed when `body`
    /// returns or throws (or by the signal handlers, through `TemporaryFiles`, in the commands that install
    /// them): no object's release decides when, so it cannot go before the last read. A command does all
    /// its reading of the input inside `body`.
    static func withPath<Result>(_ argument: String, _ body: (_ path: String) throws -> Result) throws -> Result {
        guard argument == "-" else { return try body(argument) }
        let path = try spoolStandardInput()
        defer {
            // Removed, then forgotten: a signal in between finds it still registered and only unlinks again.
            unlink(path)
            TemporaryFiles.shared.unregister(path)
        }
        return try body(path)
    }

    private static func spoolStandardInput() throws -> String {
        let file: (fd: FileDescriptor, path: String)
        switch POSIXFiles.makeUniqueFile(prefix: "\(NSTemporaryDirectory())/gifx-stdin-", access: .ownerOnly) {
        case .success(let made): file = made
        case .failure(let error): throw GifDecodeError(.io, at: nil, "cannot spool standard input: \(error)")
        }
        defer { try? file.fd.close() }
        TemporaryFiles.shared.register(file.path)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count: Int
            do {
                count = try buffer.withUnsafeMutableBytes { try FileDescriptor.standardInput.read(into: $0) }
            } catch {
                unlink(file.path)
                TemporaryFiles.shared.unregister(file.path)
                throw GifDecodeError(.io, at: nil, "reading standard input: \(error)")
            }
            if count == 0 { break }
            do throws(Errno) {
                try POSIXFiles.writeAll(file.fd, buffer[..<count])
            } catch {
                unlink(file.path)
                TemporaryFiles.shared.unregister(file.path)
                throw GifDecodeError(.io, at: nil, "spooling standard input: \(error)")
            }
        }
        return file.path
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
