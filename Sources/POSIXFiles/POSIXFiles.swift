import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few POSIX file idioms gifx needs, written once: retry on EINTR, write everything, a hidden temporary
/// file beside its target, and a durable rename. Every function returns errno values instead of throwing,
/// so each caller words the failure in its own terms (a GIF read error, an output error, a batch line).
public enum POSIXFiles {
    /// Calls `call` again while it fails with EINTR (a signal arrived before any data moved); the result
    /// is the first that is not an interrupted failure, `errno` set as the call left it.
    @inline(__always)
    public static func retryingOnInterrupt<Result: BinaryInteger>(_ call: () -> Result) -> Result {
        while true {
            let result = call()
            if result < 0 && errno == EINTR { continue }
            return result
        }
    }

    /// Writes all of `bytes` to `fd` (short writes continued, EINTR retried). Returns 0, or the errno
    /// of the write that failed.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        guard var next = bytes.baseAddress else { return 0 }
        var left = bytes.count
        while left > 0 {
            let written = retryingOnInterrupt { write(fd, next, left) }
            if written < 0 { return errno }
            next += written
            left -= written
        }
        return 0
    }

    /// Creates a new empty file from `template` (a path ending in `XXXXXX`, replaced with a unique
    /// suffix), private (0600, mkstemp's mode) unless `asNewFile`: then with the permissions a new file
    /// gets under the process's umask, as an output should. Returns the open descriptor and the path, or
    /// the errno of the failure.
    public static func makeUniqueFile(
        template: String, asNewFile: Bool = false
    ) -> Result<(fd: Int32, path: String), POSIXErrorNumber> {
        var bytes = Array(template.utf8CString)
        let fd = bytes.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return .failure(POSIXErrorNumber(errno)) }
        if asNewFile {
            let mask = umask(0)
            umask(mask)
            fchmod(fd, 0o666 & ~mask)
        }
        return .success((fd, bytes.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }))
    }

    /// A hidden temporary file beside `target` (`.NAME.gifx-XXXXXX` in the same folder, so renaming it
    /// over the target is atomic), open for writing.
    public static func makeHiddenTemporary(beside target: String) -> Result<(fd: Int32, path: String), POSIXErrorNumber> {
        let url = URL(fileURLWithPath: target)
        return makeUniqueFile(
            template: "\(url.deletingLastPathComponent().path)/.\(url.lastPathComponent).gifx-XXXXXX", asNewFile: true)
    }

    /// Puts a file's data on disk (fsync) before any name points at it, so a crash never shows a
    /// truncated target; `fd` stays open.
    public static func sync(_ fd: Int32) { _ = retryingOnInterrupt { fsync(fd) } }

    /// Flushes the file at `temporary` to disk and renames it over `target`. Returns 0 or rename's errno.
    public static func durableRename(_ temporary: String, to target: String) -> Int32 {
        let fd = open(temporary, O_RDONLY | O_CLOEXEC)
        if fd >= 0 {
            sync(fd)
            close(fd)
        }
        return rename(temporary, target) == 0 ? 0 : errno
    }
}

/// An errno value, as the failure of a `POSIXFiles` call.
public struct POSIXErrorNumber: Error, Equatable, Sendable {
    public let code: Int32
    public init(_ code: Int32) { self.code = code }
    /// strerror's text.
    public var text: String { String(cString: strerror(code)) }
}
