import POSIXFiles

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file descriptor through one fixed 64 KiB buffer (never the whole file) and counts the bytes
/// handed out, so every error can name its byte offset. Seeks cheaply inside the buffered window.
final class FileByteSource {
    static let bufferSize = 64 * 1024

    private let fd: Int32
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
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw GifDecodeError(.cannotOpen, at: nil, String(cString: strerror(errno))) }
        var info = stat()
        if fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw GifDecodeError(.cannotOpen, at: nil, String(cString: strerror(EISDIR)))
        }
        self.fd = fd
        self.buffer = UnsafeMutableRawPointer.allocate(byteCount: Self.bufferSize, alignment: 16)
    }

    deinit {
        buffer.deallocate()
        close(fd)
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
        guard lseek(fd, off_t(target), SEEK_SET) >= 0 else {
            readErrno = errno
            return false
        }
        bufferStart = target; bufferLength = 0; cursor = 0; reachedEnd = false
        return true
    }

    private func refill() -> Bool {
        bufferStart += bufferLength
        bufferLength = 0; cursor = 0
        while true {
            let n = POSIXFiles.retryingOnInterrupt { read(fd, buffer, Self.bufferSize) }
            if n > 0 { bufferLength = n; return true }
            if n == 0 { reachedEnd = true; return false }
            readErrno = errno
            return false
        }
    }
}
