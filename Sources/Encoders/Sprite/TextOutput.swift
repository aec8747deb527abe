import Foundation
import GifxFrames
import GifxPOSIXFiles
import GifxPipeline
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// gifx's one buffered text writer: text is gathered and handed on in pieces of `capacity` bytes (64 KiB), so that a
/// document of millions of frames is written as it is generated and never held whole: sprite JSON and `.tres`
/// documents (into a file descriptor), the `timeline` command's tables (to standard output).
package final class TextOutput {
    private let sink: ([UInt8]) throws -> Void
    private var buffer: [UInt8] = []
    private let capacity: Int

    /// Text handed to `sink` a piece at a time.
    package init(capacity: Int = 1 << 16, sink: @escaping ([UInt8]) throws -> Void) {
        self.sink = sink
        self.capacity = capacity
        buffer.reserveCapacity(capacity)
    }

    /// Text written to `fileDescriptor`; a failed write throws `OutputError.writing` naming `path`.
    convenience init(fileDescriptor: Int32, path: String, capacity: Int = 1 << 16) {
        let fd = FileDescriptor(rawValue: fileDescriptor)
        self.init(capacity: capacity) { bytes in
            do throws(Errno) {
                try POSIXFiles.writeAll(fd, bytes)
            } catch {
                throw OutputError.writing(path, errno: error.rawValue)
            }
        }
    }

    package func write(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= capacity { try flush() }
    }

    /// `line` and a newline.
    package func writeLine(_ line: String) throws {
        buffer.append(contentsOf: line.utf8)
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= capacity { try flush() }
    }

    /// Hands on whatever is buffered.
    package func flush() throws {
        guard !buffer.isEmpty else { return }
        try sink(buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}

/// `text` as a JSON string literal.
func jsonQuoted(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default:
            if scalar.value < 0x20 {
                out += String(format: "\\u%04x", scalar.value)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
    return out + "\""
}
