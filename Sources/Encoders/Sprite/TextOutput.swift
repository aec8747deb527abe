import Foundation
import GifxFrames
import GifxPOSIXFiles
import GifxPipeline
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// A buffered text stream into one file descriptor: sprite JSON and `.tres` documents are written as
/// they are generated, so a 5-million-frame sheet never holds its document in memory.
final class TextOutput {
    private let fd: FileDescriptor
    private let path: String
    private var buffer: [UInt8] = []
    private let capacity: Int

    init(fileDescriptor: Int32, path: String, capacity: Int = 1 << 16) {
        fd = FileDescriptor(rawValue: fileDescriptor)
        self.path = path
        self.capacity = capacity
        buffer.reserveCapacity(capacity)
    }

    func write(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= capacity { try flush() }
    }

    func flush() throws {
        do throws(Errno) {
            try POSIXFiles.writeAll(fd, buffer)
        } catch {
            throw OutputError.writing(path, errno: error.rawValue)
        }
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
