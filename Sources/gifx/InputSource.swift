import Encoders
import Foundation
import Frames

#if canImport(Glibc)
import Glibc
#endif

/// The GIF to read: a path, or `-` for standard input. The decoder reads a file twice (metadata, then
/// pixels), so stdin is spooled to a hidden temporary file first, removed when done or on a signal.
final class InputSource {
    /// What the user typed (for messages).
    let argument: String
    /// A readable file path.
    let path: String
    private let spooled: Bool

    init(_ argument: String) throws {
        self.argument = argument
        guard argument == "-" else {
            path = argument
            spooled = false
            return
        }
        path = try Self.spoolStandardInput()
        spooled = true
    }

    deinit {
        if spooled {
            unlink(path)
            TemporaryFiles.shared.unregister(path)
        }
    }

    private static func spoolStandardInput() throws -> String {
        var template = Array("\(NSTemporaryDirectory())/gifx-stdin-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw GifDecodeError(.io, at: nil, "cannot spool standard input: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        TemporaryFiles.shared.register(path)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                let code = errno
                unlink(path)
                throw GifDecodeError(.io, at: nil, "reading standard input: \(String(cString: strerror(code)))")
            }
            var offset = 0
            while offset < count {
                let written = buffer.withUnsafeBytes { write(fd, $0.baseAddress! + offset, count - offset) }
                if written < 0 {
                    if errno == EINTR { continue }
                    let code = errno
                    unlink(path)
                    throw GifDecodeError(.io, at: nil, "spooling standard input: \(String(cString: strerror(code)))")
                }
                offset += written
            }
        }
        return path
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
        throw OutputError(path: output, reason: "is the input file; choose another output", exitCode: ExitStatus.usage)
    }
}
