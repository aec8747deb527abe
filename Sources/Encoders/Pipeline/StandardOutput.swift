import Foundation
import GifxFrames
import GifxPOSIXFiles
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// Standard output as an output target. The target `-` means standard output, as in every Unix tool (a file
/// named `-` is `./-`). Streamable outputs (fragmented MP4, WebM, animated WebP) go out as they are encoded; every other
/// kind is written to a private temporary file and copied out once complete, so a failed run sends nothing
/// (docs/delivery.md).
package enum StandardOutput {
    /// The target name that means standard output.
    package static let target = "-"
    /// How errors name it.
    package static let displayName = "<stdout>"

    /// Whether `path` names standard output.
    package static func isTarget(_ path: String) -> Bool { path == target }

    /// Whether standard output is a terminal (binary output there is refused by the CLI).
    package static var isTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// Copies the whole file open at `source` (from its start) to `target` (standard output, or a caller's
    /// descriptor, named `name` in errors); the reader going away throws `OutputError.readerGone`
    /// (`OutputError.writing` maps EPIPE to it), any other failure `OutputError.writing`.
    static func copy(from source: FileDescriptor, to target: FileDescriptor, name: String) throws {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var offset: Int64 = 0
        do {
            while true {
                let count = try buffer.withUnsafeMutableBytes { try source.read(fromAbsoluteOffset: offset, into: $0) }
                if count == 0 { return }
                offset += Int64(count)
                try POSIXFiles.writeAll(target, buffer.prefix(count))
            }
        } catch {
            throw OutputError.writing(name, errno: (error as? Errno)?.rawValue ?? EIO)
        }
    }
}
