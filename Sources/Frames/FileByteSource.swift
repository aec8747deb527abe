import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file descriptor through one fixed 64 KiB buffer (never the whole file) and counts the bytes
/// handed out, so every error can name its byte offset. Seeks cheaply inside the buffered window.
final class FileByteSource {
    static let bufferSize = 64 * 1024

    private let fd: FileDescriptor
    private let buffer: UnsafeMutableRawPointer
    /// File offset of `buffer[0]`.
    private var bufferStart = 0
    private var bufferLength = 0
    private var cursor = 0
    /// errno of the last failed read(2), 0 when reads only ever ran out of data.
    private(set) var readErrno: Int32 = 0
    /// Whether a read ran into the end of the file.
    private(set) var reachedEnd = false

    /// Offset of the next byte to be handed out.
    var offset: Int { bufferStart + cursor }

    /// Opens `path` read-only; throws `.cannotOpen` when it cannot be opened or is a directory.
    init(path: String) throws {
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(FilePath(path), .readOnly, options: .closeOnExec)
        } catch {
            throw GifDecodeError(.cannotOpen, at: nil, "\(error)")
        }
        var info = stat()
        if fstat(fd.rawValue, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
            try? fd.close()
            throw GifDecodeError(.cannotOpen, at: nil, String(cString: strerror(EISDIR)))
        }
        self.fd = fd
        self.buffer = UnsafeMutableRawPointer.allocate(byteCount: Self.bufferSize, alignment: 16)
    }

    deinit {
        buffer.deallocate()
        try? fd.close()
    }

    /// Copies up to `count` bytes to `destination`; fewer only at end of file or on a read error.
    func copyBytes(into destination: UnsafeMutableRawPointer, count: Int) -> Int {
        var copied = 0
        while copied < count {
            if cursor == bufferLength, !refill() { break }
            let chunk = Swift.min(count - copied, bufferLength - cursor)
            (destination + copied).copyMemory(from: buffer + cursor, byteCount: chunk)
            cursor += chunk
            copied += chunk
        }
        return copied
    }

    /// Moves to absolute `target`: inside the buffered window by moving the cursor, else with lseek.
    func seek(to target: Int) -> Bool {
        if target >= bufferStart && target <= bufferStart + bufferLength {
            cursor = target - bufferStart
            return true
        }
        do {
            try fd.seek(offset: Int64(target), from: .start)
        } catch {
            readErrno = (error as? Errno)?.rawValue ?? EIO
            return false
        }
        bufferStart = target; bufferLength = 0; cursor = 0; reachedEnd = false
        return true
    }

    private func refill() -> Bool {
        bufferStart += bufferLength
        bufferLength = 0; cursor = 0
        do {
            let n = try fd.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: Self.bufferSize))
            if n > 0 { bufferLength = n; return true }
            reachedEnd = true
            return false
        } catch {
            readErrno = (error as? Errno)?.rawValue ?? EIO
            return false
        }
    }
}
