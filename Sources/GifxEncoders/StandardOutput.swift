import Foundation
import GifxFrames
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// Standard output as an output target. The target `-` means standard output, as in every Unix tool (a file
/// named `-` is `./-`). Streamable outputs (fragmented MP4, WebM) go out as they are encoded; every other
/// kind is written to a private temporary file and copied out once complete, so a failed run sends nothing
/// (docs/delivery.md).
public enum StandardOutput {
    /// The target name that means standard output.
    public static let target = "-"
    /// How errors name it.
    public static let displayName = "<stdout>"

    /// Whether `path` names standard output.
    public static func isTarget(_ path: String) -> Bool { path == target }

    /// Whether standard output is a terminal (binary output there is refused by the CLI).
    public static var isTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// Copies the whole file open at `source` (from its start) to standard output; the reader going away
    /// throws `OutputError.readerGone`, any other failure `OutputError.writing`.
    static func copy(from source: FileDescriptor) throws {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var offset: Int64 = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(source.rawValue, $0.baseAddress, $0.count, off_t(offset)) }
            if count < 0 {
                if errno == EINTR { continue }
                throw OutputError.writing(displayName, errno: errno)
            }
            if count == 0 { return }
            offset += Int64(count)
            try buffer.withUnsafeBytes { try write(UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
        }
    }

    /// Writes all of `bytes` to standard output.
    static func write(_ bytes: UnsafeRawBufferPointer) throws {
        var done = 0
        while done < bytes.count {
            let written = Glibc.write(STDOUT_FILENO, bytes.baseAddress! + done, bytes.count - done)
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE { throw OutputError.readerGone }
                throw OutputError.writing(displayName, errno: errno)
            }
            done += written
        }
    }
}
