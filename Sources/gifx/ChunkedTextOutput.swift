import Foundation

/// Lines written to a file handle in 64 KiB pieces, so a table of a million frames never becomes one
/// huge string (the `timeline` table and the `timeline --fps` plan table).
struct ChunkedTextOutput {
    private let handle: FileHandle
    private var buffer = ""

    init(_ handle: FileHandle) { self.handle = handle }

    /// Appends `line` and a newline; writes the buffer out once it holds 64 KiB.
    mutating func writeLine(_ line: String) {
        buffer += line
        buffer += "\n"
        if buffer.utf8.count >= 1 << 16 { flush() }
    }

    /// Writes whatever is buffered.
    mutating func flush() {
        guard !buffer.isEmpty else { return }
        handle.write(Data(buffer.utf8))
        buffer.removeAll(keepingCapacity: true)
    }
}
