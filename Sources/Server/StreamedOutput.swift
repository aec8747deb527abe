import Foundation
import GifxPOSIXFiles
import Hummingbird
import NIOCore
import ServiceLifecycle
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// How response bodies are sent from files: in chunks of this many bytes, each written (and, through the channel's
/// back-pressure, waited for) before the next is read, so a response holds about one chunk of memory whatever
/// the object's size.
let responseChunkBytes = 256 << 10

/// Sends `range` of the open file `fd` to `writer` in chunks (`responseChunkBytes`); throws when the file is
/// shorter than the range (the connection is then closed without the body's end).
func sendFile(_ fd: SystemPackage.FileDescriptor, _ range: Range<Int>, to writer: inout any ResponseBodyWriter) async throws {
    var offset = range.lowerBound
    while offset < range.upperBound {
        let wanted = min(responseChunkBytes, range.upperBound - offset)
        var buffer = ByteBufferAllocator().buffer(capacity: wanted)
        let start = offset
        let read = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: wanted) { raw in
            try fd.read(fromAbsoluteOffset: Int64(start), into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<wanted]))
        }
        guard read > 0 else { throw ServiceError.internalError("the file is shorter than it was") }
        offset += read
        try await writer.write(buffer)
    }
}

/// A cache entry's open file and its pin, held by the response body that reads it: released (the descriptor
/// closed, the entry unpinned) when the body is done with it, or dropped unsent.
final class ObjectLease: Sendable {
    let fd: SystemPackage.FileDescriptor
    private let release: @Sendable () -> Void

    init(fd: SystemPackage.FileDescriptor, release: @escaping @Sendable () -> Void) {
        self.fd = fd
        self.release = release
    }

    deinit {
        try? fd.close()
        release()
    }
}
