import AsyncHTTPClient
import ChildProcesses
import Foundation
import GifFixtures
import GifxKit
import GifxServer
import Logging
import NIOCore
import NIOHTTP1

/// A real `GifxService` on 127.0.0.1 at an ephemeral port, in this process, and the client that talks to it.
final class RunningServer: Sendable {
    let service: GifxService
    let port: Int
    let task: Task<Void, any Error>

    static func start(_ configuration: ServerConfiguration, converter: (any Converting)? = nil) async throws -> RunningServer {
        var logger = Logger(label: "gifx.serve.test")
        logger.logLevel = .warning
        let service = try GifxService(configuration: configuration, logger: logger, converter: converter)
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let task = Task { try await service.run(gracefulShutdownSignals: []) { continuation.yield($0) } }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw TestFailure("the server did not start") }
        return RunningServer(service: service, port: port, task: task)
    }

    private init(service: GifxService, port: Int, task: Task<Void, any Error>) {
        self.service = service; self.port = port; self.task = task
    }

    /// Graceful shutdown, and the wait for the service to end.
    func stop() async throws {
        await service.shutdown()
        try await task.value
    }

    struct Reply: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: Data
        func header(_ name: String) -> String? { headers.first(name: name) }
        /// The error body's fields.
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:] }
        var code: String? { json["code"] as? String }
    }

    func send(
        _ method: HTTPMethod, _ path: String, body: Data? = nil, headers: [(String, String)] = []
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(300))
        let bytes = try await response.body.collect(upTo: 256 << 20)
        return Reply(status: Int(response.status.code), headers: response.headers, body: Data(bytes.readableBytesView))
    }

    /// One figure of `/metrics` (0 when the series has not appeared yet).
    func metric(_ series: String) async throws -> Double {
        let text = String(decoding: try await send(.GET, "/metrics").body, as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1)) ?? 0
        }
        return 0
    }
}

/// A converter whose duration the test controls: every video conversion is held until it is cancelled (by
/// `--conversion-timeout` or the end of the grace period), after writing `written` to a streamed output's spool
/// (what a streamed encoder would have sent by then); every other output is the library's. So a test of a timeout
/// never depends on how long a real conversion takes.
final class HeldConverter: Converting, @unchecked Sendable {
    static let written = Data("partial output of a held conversion\n".utf8)
    private let lock = NSLock()
    private var _held = 0
    private var _cancelled = 0

    /// Video conversions that began, and those of them that were cancelled.
    var held: Int { lock.withLock { _held } }
    var cancelled: Int { lock.withLock { _cancelled } }

    func convert(_ job: ConversionJob) async throws -> ConversionOutcome {
        guard job.isVideo else { return try await LibraryConverter().convert(job) }
        lock.withLock { _held += 1 }
        if let spool = job.spool, let handle = FileHandle(forWritingAtPath: spool) {
            handle.write(Self.written)
            try? handle.close()
        }
        do {
            // Held until cancelled: a day is never reached by a test.
            try await Task.sleep(for: .seconds(86_400))
        } catch {
            lock.withLock { _cancelled += 1 }
            throw error
        }
        throw TestFailure("a held conversion was not cancelled")
    }
}

/// A converter whose video conversions wait at a gate the test opens (`open()`), then convert with the library:
/// the admission and shutdown tests keep a conversion in flight for as long as they need, however fast or slow
/// the machine is (they used to need a noise GIF slow enough to still be converting). Waiting at the gate is
/// cancellable, as a conversion is.
final class GatedConverter: Converting, @unchecked Sendable {
    private let lock = NSLock()
    private var isOpen = false
    private var _passing = 0
    private var _mostAtOnce = 0

    /// The most video conversions that were past the gate at once.
    var mostAtOnce: Int { lock.withLock { _mostAtOnce } }

    func open() { lock.withLock { isOpen = true } }

    func convert(_ job: ConversionJob) async throws -> ConversionOutcome {
        guard job.isVideo else { return try await LibraryConverter().convert(job) }
        while !lock.withLock({ isOpen }) { try await Task.sleep(for: .milliseconds(10)) }
        lock.withLock {
            _passing += 1
            _mostAtOnce = max(_mostAtOnce, _passing)
        }
        defer { lock.withLock { _passing -= 1 } }
        return try await LibraryConverter().convert(job)
    }
}

extension ConversionJob {
    /// Whether the job asks for a video (format mp4, webm or avif).
    var isVideo: Bool { ["mp4", "webm", "avif"].contains(order.kind.name) }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A fresh cache folder under the system's temporary folder.
func temporaryCache() throws -> String {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("gifx-serve-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url.path
}

/// Whatever the cache holds that is not a finished entry: hidden temporaries, spooled bodies.
func leftovers(in cache: String) -> [String] {
    let objects = ((try? FileManager.default.contentsOfDirectory(atPath: cache + "/objects")) ?? []).filter { $0.hasPrefix(".") }
    let spool = (try? FileManager.default.contentsOfDirectory(atPath: cache + "/spool")) ?? []
    return objects.map { "objects/" + $0 } + spool.map { "spool/" + $0 }
}

func oracleAvailable(_ names: String...) -> Bool {
    names.allSatisfy { name in
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return folders.contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(name)") }
    }
}

func tool(_ name: String) -> String {
    let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
    return folders.lazy.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) } ?? name
}

/// A GIF whose frames are noise (seeded): a real plan's memory demand for the admission tests (their conversions
/// are held by `GatedConverter`, not by how long this one takes).
func noiseGIF(width: Int, height: Int, frames: Int, seed: UInt64) throws -> Data {
    var random = SplitMix64(seed: seed)
    let frameList = (0..<frames).map { _ in
        FixtureFrame(width: width, height: height, indices: (0..<(width * height)).map { _ in UInt8(random.next() % 8) }, delay: 4)
    }
    return try FixtureGIF(width: width, height: height, frames: frameList).encode()
}

/// Polls `condition` every 20 ms for up to `seconds`.
func eventually(_ seconds: Double = 60, _ condition: () async throws -> Bool) async throws -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(20))
    }
    return false
}
