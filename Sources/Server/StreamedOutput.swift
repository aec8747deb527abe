import Foundation
import GifxPOSIXFiles
import Hummingbird
import NIOCore
import ServiceLifecycle
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// How response bodies are sent from files: in chunks of this many bytes (Hummingbird's own file chunk), at most
/// `responseChunksInFlight` of them handed to the connection and not yet written to its socket.
let responseChunkBytes = 128 << 10
let responseChunksInFlight = 4

/// Sends `range` of the open file `fd` to `writer` in chunks (`responseChunkBytes`); throws when the file is
/// shorter than the range (the connection is then closed without the body's end).
///
/// The writer's own back-pressure is loose: a write returns once the chunk is queued for the connection's event
/// loop, and only a socket that stops taking bytes makes the next one wait; a reader of the page cache outruns an
/// event loop that is behind, and the queue then grows with the object (seen: 227 MB of peak RSS for one fast
/// GET of an 800 MB object). So each chunk handed over is followed by a weak reference to its storage, which
/// the connection releases once the chunk is on the socket, and no chunk is read while `responseChunksInFlight`
/// are held: a response holds at most that many chunks, whatever the object's size or the client's pace.
func sendFile(_ fd: SystemPackage.FileDescriptor, _ range: Range<Int>, to writer: inout any ResponseBodyWriter) async throws {
    var inFlight = ChunksInFlight()
    var offset = range.lowerBound
    while offset < range.upperBound {
        try await inFlight.waitBelow(responseChunksInFlight)
        let wanted = min(responseChunkBytes, range.upperBound - offset)
        var buffer = ByteBufferAllocator().buffer(capacity: wanted)
        let start = offset
        let read = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: wanted) { raw in
            try fd.read(fromAbsoluteOffset: Int64(start), into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<wanted]))
        }
        guard read > 0 else { throw ServiceError.internalError("the file is shorter than it was") }
        offset += read
        inFlight.add(buffer)
        try await writer.write(buffer)
    }
}

/// The chunks a response has handed to its connection, as weak references to their storage: gone once the
/// connection has written and released them.
struct ChunksInFlight {
    private struct Held {
        weak var storage: AnyObject?
    }
    private var held: [Held] = []

    mutating func add(_ buffer: ByteBuffer) {
        buffer.withUnsafeReadableBytesWithStorageManagement { _, storage in
            held.append(Held(storage: storage.takeUnretainedValue()))
        }
    }

    /// Waits (polling, from 0.1 ms up to 10 ms) until fewer than `limit` are held.
    mutating func waitBelow(_ limit: Int) async throws {
        var pause = Duration.microseconds(100)
        while true {
            held.removeAll { $0.storage == nil }
            if held.count < limit { return }
            try await Task.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(10))
        }
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

/// A streamed conversion's output (`stream=1`, docs/serve.md "Streamed responses"): a file in the cache's spool
/// that the conversion writes as it encodes (`OutputTarget.fileDescriptor`: a fragmented MP4, a WebM without
/// cues; the bytes a pipe would get, appended, never rewritten), and that the response reads behind it
/// (`tail`). The conversion never waits for the client: a slow or gone client leaves it writing to disk. On
/// success the file is renamed into `objects/` as the entry's output (`commit`); on failure it is removed.
final class OutputSpool: @unchecked Sendable {
    enum Progress {
        case preparing
        case converting
        case committed
        case failed(any Error)
    }

    let path: String
    private let writer: SystemPackage.FileDescriptor
    private let reader: SystemPackage.FileDescriptor
    private let lock = NSLock()
    private var progress = Progress.preparing
    private var timeline: String?
    private var writerOpen = true
    private var renamed = false
    private var startWaiters: [CheckedContinuation<String, any Error>] = []

    /// A new empty file `out-XXXXXX` in `folder`, open for the conversion and for the response.
    init(folder: String) throws(ServiceError) {
        let file: (fd: SystemPackage.FileDescriptor, path: String)
        switch POSIXFiles.makeUniqueFile(prefix: folder + "/out-", access: .asNewFile) {
        case .success(let made): file = made
        case .failure(let error): throw ServiceError.internalError("cannot create the streamed output's spool file: \(error)")
        }
        do {
            reader = try SystemPackage.FileDescriptor.open(SystemPackage.FilePath(file.path), .readOnly, options: [.closeOnExec])
        } catch {
            try? file.fd.close()
            unlink(file.path)
            throw ServiceError.internalError("cannot open the streamed output's spool file: \(error)")
        }
        writer = file.fd
        path = file.path
    }

    deinit {
        if writerOpen { try? writer.close() }
        try? reader.close()
        if !renamed { unlink(path) }
    }

    /// The descriptor the conversion writes to (it never closes it).
    var descriptor: Int32 { writer.rawValue }

    /// Admitted, the conversion begins: the response may go out, with `timeline` as its `X-Gifx-Timeline`.
    func started(timeline: String) {
        let waiters = lock.withLock { () -> [CheckedContinuation<String, any Error>] in
            progress = .converting
            self.timeline = timeline
            defer { startWaiters = [] }
            return startWaiters
        }
        for waiter in waiters { waiter.resume(returning: timeline) }
    }

    /// The timeline header once the conversion begins; throws what stopped it before (a refusal by admission,
    /// an edit that does not fit, a damaged GIF: answered as an ordinary error, nothing sent yet).
    func waitForStart() async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            let outcome = lock.withLock { () -> Result<String, any Error>? in
                switch progress {
                case .preparing:
                    startWaiters.append(continuation)
                    return nil
                case .failed(let error): return .failure(error)
                case .converting, .committed: return .success(timeline ?? "")
                }
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    /// The conversion succeeded: the file, on disk (fsync), becomes `target` (rename within the cache's folder).
    func commit(to target: String) throws(Errno) {
        lock.withLock {
            POSIXFiles.sync(writer)
            try? writer.close()
            writerOpen = false
        }
        try POSIXFiles.rename(path, to: target)
        lock.withLock { renamed = true }
    }

    /// The entry is recorded: the response sends what is left and ends.
    func finished() {
        lock.withLock { progress = .committed }
    }

    /// The conversion failed (before it began, or part way): the file goes, and the response stops. Returns
    /// whether it had begun (the answer had gone out).
    @discardableResult
    func failed(_ error: any Error) -> Bool {
        let (waiters, begun) = lock.withLock { () -> ([CheckedContinuation<String, any Error>], Bool) in
            var begun = false
            if case .converting = progress { begun = true }
            progress = .failed(error)
            if writerOpen { try? writer.close() }
            writerOpen = false
            if !renamed { unlink(path) }
            renamed = true  // nothing more to remove
            defer { startWaiters = [] }
            return (startWaiters, begun)
        }
        for waiter in waiters { waiter.resume(throwing: error) }
        return begun
    }

    private var current: Progress { lock.withLock { progress } }

    /// Sends the output to `writer` as it grows, until the conversion ends; returns the bytes sent. Throws the
    /// conversion's error when it fails part way (the connection is then closed without the body's end, so no
    /// client or cache takes the cut output for a whole one), or the writer's when the client has gone.
    func tail(into writer: inout any ResponseBodyWriter) async throws -> Int {
        var sent = 0
        var pause = Duration.milliseconds(2)
        while true {
            // The progress first, then the size: committed before the size was read means every byte is in it.
            let progress = current
            guard let size = POSIXFiles.fileSize(reader) else {
                throw ServiceError.internalError("cannot read the streamed output's size: \(Errno(rawValue: errno))")
            }
            if size > sent {
                try await sendFile(reader, sent..<size, to: &writer)
                sent = size
                pause = .milliseconds(2)
                continue
            }
            switch progress {
            case .committed: return sent
            case .failed(let error): throw error
            case .preparing, .converting:
                try await Task.sleep(for: pause)
                pause = min(pause * 2, .milliseconds(40))
            }
        }
    }
}

/// Shut down last (first in the group's list): once the server has answered its last request, waits for the
/// streamed conversions whose clients have gone (they run on into the cache); at the end of the grace period
/// (cancelled) cancels them, and waits for them to remove their temporaries.
struct StreamWatch: Service {
    let service: GifxService
    func run() async throws {
        try? await gracefulShutdown()
        await service.flights.finishDetached()
    }
}
