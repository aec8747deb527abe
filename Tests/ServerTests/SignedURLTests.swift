import ChildProcesses
import Foundation
import GifFixtures
import GifxServer
import Hummingbird
import Logging
import NIOCore
import Testing

/// The signed on-the-fly form, `GET /v1/{signature}/{options}/{source}`, against a local origin (Hummingbird on
/// 127.0.0.1 at an ephemeral port, in the test) that serves the fixture GIF, redirects, a huge body and a
/// trickle. Signatures are made by openssl's HMAC (`openssl dgst -sha256 -hmac`), not by the service; outputs
/// are read back by ffprobe.
@Suite(.serialized, .enabled(if: oracleAvailable("openssl", "ffprobe"), "openssl and ffprobe, the oracles, are not installed"))
struct SignedURLTests {
    static let key = "k3y-of-the-signed-urls-0123456789abcdef0123456789"

    static func configuration(_ cache: String, origins: [String]) -> ServerConfiguration {
        var configuration = ServerTests.configuration(cache)
        configuration.signingKey = Array(key.utf8)
        configuration.origins = origins.compactMap(AllowedOrigin.init)
        configuration.maxBodyBytes = 1 << 20
        configuration.originTimeout = .seconds(10)
        return configuration
    }

    /// `/v1/SIGNATURE/OPTIONS/SOURCE` for `source`, signed with `key` by openssl.
    static func signedPath(_ options: String, _ source: String, key: String = key) throws -> String {
        try sign("/\(options)/\(base64url(Data(source.utf8)))", key: key)
    }

    /// `/v1/SIGNATURE` + `path` (`/OPTIONS/SOURCE` as written).
    static func sign(_ path: String, key: String = key) throws -> String {
        let run = try CapturedRun.run(
            "/bin/sh", ["-c", "openssl dgst -sha256 -hmac \"$1\" -binary | base64 -w0 | tr '+/' '-_' | tr -d '='", "sh", key],
            stdin: Data(path.utf8))
        let signature = run.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        guard signature.count == 43 else { throw TestFailure("openssl: \(run.stdoutText) \(String(decoding: run.stderr, as: UTF8.self))") }
        return "/v1/\(signature)\(path)"
    }

    static func base64url(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func probe(_ body: Data, in folder: String) throws -> String {
        let path = folder + "/probe-\(UUID().uuidString).mp4"
        try body.write(to: URL(fileURLWithPath: path))
        return try CapturedRun.run(tool("ffprobe"), [
            "-v", "error", "-select_streams", "v:0", "-count_frames",
            "-show_entries", "stream=width,height,nb_read_frames,duration", "-of", "default=nw=1", path,
        ]).stdoutText
    }

    @Test func aSignedURLConvertsTheSourceAsPOSTDoes() async throws {
        let origin = try await LocalOrigin.start()
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let server = try await RunningServer.start(Self.configuration(cache, origins: ["http://127.0.0.1:\(origin.port)"]))
        let path = try Self.signedPath("format:mp4,width:16", "http://127.0.0.1:\(origin.port)/a.gif")
        let reply = try await server.send(.GET, path)
        #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
        #expect(reply.header("Content-Type") == "video/mp4")
        #expect(reply.header("Cache-Control") == "public, max-age=31536000, immutable")
        #expect(reply.header("X-Gifx-Timeline") == "frames=4, duration=0.28, tick=0.02")
        let key = try #require(reply.header("X-Gifx-Key"))
        #expect(reply.header("ETag") == "\"\(key)\"")
        #expect(reply.header("Location") == "/v1/o/\(key)")
        let probe = try Self.probe(reply.body, in: cache)
        #expect(probe.contains("width=16") && probe.contains("height=12"), "\(probe)")
        #expect(probe.contains("nb_read_frames=14") && probe.contains("duration=0.280000"), "\(probe)")

        // The same input and settings by POST: the same cache entry, not a second conversion.
        let posted = try await server.send(.POST, "/v1/convert?format=mp4&width=16", body: ServerTests.gif)
        #expect(posted.status == 200 && posted.header("X-Gifx-Key") == key && posted.body == reply.body)
        #expect(try await server.metric("gifx_conversions_total{format=\"mp4\"}") == 1)
        // Range and If-None-Match work on the signed form too (a CDN's <video> asks for ranges).
        let range = try await server.send(.GET, path, headers: [("Range", "bytes=0-9")])
        #expect(range.status == 206 && range.body == reply.body.prefix(10))
        let notModified = try await server.send(.GET, path, headers: [("If-None-Match", "\"\(key)\"")])
        #expect(notModified.status == 304)
        // A redirect within the allowed origin is followed.
        let redirected = try await server.send(.GET, try Self.signedPath("format:mp4,width:16", "http://127.0.0.1:\(origin.port)/same"))
        #expect(redirected.status == 200 && redirected.header("X-Gifx-Key") == key)
        try await server.stop()
        await origin.stop()
        #expect(leftovers(in: cache).isEmpty, "\(leftovers(in: cache))")
    }

    @Test func theOptionsAreTheQuerysWithItsEditsAndErrorTexts() async throws {
        let origin = try await LocalOrigin.start()
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let server = try await RunningServer.start(Self.configuration(cache, origins: ["http://127.0.0.1:\(origin.port)"]))
        let source = "http://127.0.0.1:\(origin.port)/a.gif"
        // A cut from 4 to 18 cs: frames of 8 and 6 cs, 14 cs at the 2 cs tick: 7 samples.
        let cut = try await server.send(.GET, try Self.signedPath("format:mp4,from:0.04,to:0.18", source))
        #expect(cut.status == 200, "\(String(decoding: cut.body, as: UTF8.self))")
        #expect(cut.header("X-Gifx-Timeline") == "frames=2, duration=0.14, tick=0.02")
        let probe = try Self.probe(cut.body, in: cache)
        #expect(probe.contains("nb_read_frames=7") && probe.contains("duration=0.140000"), "\(probe)")
        // A value with a slash is percent-encoded in the path.
        let fast = try await server.send(.GET, try Self.signedPath("format:timeline,speed:2%2F1", source))
        #expect(fast.status == 200)
        #expect(fast.header("X-Gifx-Timeline") == "frames=4, duration=0.14, tick=0.01")
        // The query's parser and words.
        let width = try await server.send(.GET, try Self.signedPath("format:mp4,width:0", source))
        #expect(width.status == 400 && width.code == "bad_query")
        #expect(width.json["message"] as? String == "'width=0': width=0: must be 1...16384")
        let from = try await server.send(.GET, try Self.signedPath("format:mp4,from:0.125", source))
        #expect(from.status == 400 && from.code == "bad_query")
        #expect(from.json["message"] as? String == "from=0.125: GIF times are whole centiseconds; give at most 2 decimals (e.g. 0.12)")
        try await server.stop()
        await origin.stop()
    }

    @Test func aBadSignatureIs403BeforeAnythingIsFetched() async throws {
        let origin = try await LocalOrigin.start()
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let server = try await RunningServer.start(Self.configuration(cache, origins: ["http://127.0.0.1:\(origin.port)"]))
        let source = "http://127.0.0.1:\(origin.port)/a.gif"
        let good = try Self.signedPath("format:mp4", source)
        // Options changed after signing; another key; a signature that is not an HMAC's length; not base64url.
        let tampered = good.replacingOccurrences(of: "/format:mp4/", with: "/format:webm/")
        let otherKey = try Self.signedPath("format:mp4", source, key: "another-key-0123456789abcdef0123456789")
        let segments = good.split(separator: "/", omittingEmptySubsequences: false)
        let short = "/v1/AAAA/\(segments[3])/\(segments[4])"
        let notBase64 = "/v1/\(String(repeating: "*", count: 43))/\(segments[3])/\(segments[4])"
        for path in [tampered, otherKey, short, notBase64] {
            let reply = try await server.send(.GET, path)
            #expect(reply.status == 403 && reply.code == "bad_signature", "\(path): \(reply.status) \(reply.json)")
        }
        #expect(origin.requests == 0)
        try await server.stop()
        await origin.stop()
    }

    @Test func onlyAllowedOriginsAndTheirRedirectsAreFetched() async throws {
        let origin = try await LocalOrigin.start()
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let listed = "http://127.0.0.1:\(origin.port)"
        let server = try await RunningServer.start(Self.configuration(cache, origins: [listed]))
        // Another host (a name for the same machine is another origin), another port, another scheme.
        for source in ["http://localhost:\(origin.port)/a.gif", "http://127.0.0.1:1/a.gif", "https://127.0.0.1:\(origin.port)/a.gif"] {
            let reply = try await server.send(.GET, try Self.signedPath("format:mp4", source))
            #expect(reply.status == 403 && reply.code == "origin_not_allowed", "\(source): \(reply.json)")
        }
        // A redirect to a host not listed is refused, and not followed.
        let before = origin.requests
        let elsewhere = try await server.send(.GET, try Self.signedPath("format:mp4", "\(listed)/elsewhere"))
        #expect(elsewhere.status == 502 && elsewhere.code == "redirect_refused", "\(elsewhere.json)")
        #expect(origin.requests == before + 1)
        // A redirect loop ends at the redirect limit.
        let loop = try await server.send(.GET, try Self.signedPath("format:mp4", "\(listed)/loop"))
        #expect(loop.status == 502 && loop.code == "redirect_refused", "\(loop.json)")
        // Not base64url; not a URL; not http(s).
        let notEncoded = try await server.send(.GET, try Self.sign("/format:mp4/not*base64"))
        #expect(notEncoded.status == 400 && notEncoded.code == "bad_source", "\(notEncoded.json)")
        let ftp = try await server.send(.GET, try Self.signedPath("format:mp4", "ftp://127.0.0.1/a.gif"))
        #expect(ftp.status == 400 && ftp.code == "bad_source", "\(ftp.json)")
        let garbage = try await server.send(.GET, try Self.signedPath("format:mp4", "not a url"))
        #expect(garbage.status == 400 && garbage.code == "bad_source", "\(garbage.json)")
        // The origin's own error.
        let missing = try await server.send(.GET, try Self.signedPath("format:mp4", "\(listed)/missing"))
        #expect(missing.status == 502 && missing.code == "origin_error", "\(missing.json)")
        try await server.stop()
        await origin.stop()
    }

    /// A listed origin named by a host name that resolves to a loopback address is refused; listed by its
    /// address, the same origin is fetched.
    @Test func aNameResolvingToAPrivateAddressIsRefused() async throws {
        let origin = try await LocalOrigin.start()
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let server = try await RunningServer.start(Self.configuration(cache, origins: ["http://localhost:\(origin.port)"]))
        let reply = try await server.send(.GET, try Self.signedPath("format:timeline", "http://localhost:\(origin.port)/a.gif"))
        #expect(reply.status == 403 && reply.code == "private_address", "\(reply.json)")
        #expect(origin.requests == 0)
        try await server.stop()
        await origin.stop()
    }

    @Test func aHugeBodyIsRefusedAsItStreams() async throws {
        let origin = try await LocalOrigin.start()
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let server = try await RunningServer.start(Self.configuration(cache, origins: ["http://127.0.0.1:\(origin.port)"]))
        for route in ["huge-chunked", "huge-announced"] {
            let reply = try await server.send(.GET, try Self.signedPath("format:mp4", "http://127.0.0.1:\(origin.port)/\(route)"))
            #expect(reply.status == 502 && reply.code == "source_too_large", "\(route): \(reply.json)")
        }
        // The chunked body was cut off: the origin did not get to send all of its 64 MiB.
        #expect(try await eventually(10) { origin.hugeBytesSent < 64 << 20 && origin.hugeFinished }, "\(origin.hugeBytesSent) bytes sent, finished: \(origin.hugeFinished)")
        try await server.stop()
        await origin.stop()
        #expect(leftovers(in: cache).isEmpty, "\(leftovers(in: cache))")
    }

    @Test func aSlowOriginIs504() async throws {
        let origin = try await LocalOrigin.start()
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        var configuration = Self.configuration(cache, origins: ["http://127.0.0.1:\(origin.port)"])
        configuration.originTimeout = .seconds(2)
        let server = try await RunningServer.start(configuration)
        // A byte every 200 ms: within each read's limit, but the whole fetch's deadline (2 s) ends it long
        // before its 100 s; a silent origin ends at the same deadline.
        let trickle = try await server.send(.GET, try Self.signedPath("format:mp4", "http://127.0.0.1:\(origin.port)/trickle"))
        #expect(trickle.status == 504 && trickle.code == "origin_timeout", "\(trickle.json)")
        let silent = try await server.send(.GET, try Self.signedPath("format:mp4", "http://127.0.0.1:\(origin.port)/silent"))
        #expect(silent.status == 504 && silent.code == "origin_timeout", "\(silent.json)")
        try await server.stop()
        await origin.stop()
    }

    @Test func withoutASigningKeyTheFormIsNotThere() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let server = try await RunningServer.start(ServerTests.configuration(cache))
        let reply = try await server.send(.GET, try Self.signedPath("format:mp4", "http://127.0.0.1:1/a.gif"))
        #expect(reply.status == 404 && reply.code == "not_found")
        try await server.stop()
    }
}

/// A local origin server: `/a.gif` (the fixture), `/same` (a redirect to `/a.gif`), `/elsewhere` (a redirect to
/// the same machine by another name), `/loop` (a redirect to itself), `/huge-chunked` (64 MiB without a
/// length, 64 KiB every 10 ms), `/huge-announced` (2 MiB with its length), `/trickle` (a byte every 200 ms),
/// `/silent` (no answer for 5 s).
final class LocalOrigin: Sendable {
    let port: Int
    private let task: Task<Void, any Error>
    private let counters: Counters

    final class Counters: @unchecked Sendable {
        private let lock = NSLock()
        private var _requests = 0
        private var _hugeBytes = 0
        private var _hugeFinished = false
        func request() { lock.withLock { _requests += 1 } }
        func huge(_ bytes: Int) { lock.withLock { _hugeBytes += bytes } }
        func hugeDone() { lock.withLock { _hugeFinished = true } }
        var requests: Int { lock.withLock { _requests } }
        var hugeBytes: Int { lock.withLock { _hugeBytes } }
        var hugeFinished: Bool { lock.withLock { _hugeFinished } }
    }

    var requests: Int { counters.requests }
    var hugeBytesSent: Int { counters.hugeBytes }
    var hugeFinished: Bool { counters.hugeFinished }

    private init(port: Int, task: Task<Void, any Error>, counters: Counters) {
        self.port = port; self.task = task; self.counters = counters
    }

    static func start() async throws -> LocalOrigin {
        let counters = Counters()
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let portBox = PortBox()
        let router = Router()
        router.add(middleware: CountingMiddleware(counters: counters))
        router.get("/a.gif") { _, _ in
            Response(status: .ok, headers: [.contentType: "image/gif"], body: .init(byteBuffer: ByteBuffer(bytes: ServerTests.gif)))
        }
        router.get("/same") { _, _ in Response(status: .found, headers: [.location: "/a.gif"]) }
        router.get("/elsewhere") { _, _ in
            Response(status: .found, headers: [.location: "http://localhost:\(portBox.port)/a.gif"])
        }
        router.get("/loop") { _, _ in Response(status: .temporaryRedirect, headers: [.location: "/loop"]) }
        router.get("/huge-chunked") { _, _ in
            Response(status: .ok, body: ResponseBody { writer in
                defer { counters.hugeDone() }
                var chunk = ByteBuffer(bytes: Array("GIF89a".utf8))
                chunk.writeRepeatingByte(0, count: (64 << 10) - 6)
                // At most 6.4 MiB/s, so that a client which reads on past its limit is seen doing so.
                for _ in 0..<1024 {
                    try await writer.write(chunk)
                    counters.huge(chunk.readableBytes)
                    try await Task.sleep(for: .milliseconds(10))
                }
                try await writer.finish(nil)
            })
        }
        router.get("/huge-announced") { _, _ in
            var body = ByteBuffer(bytes: Array("GIF89a".utf8))
            body.writeRepeatingByte(0, count: (2 << 20) - 6)
            return Response(status: .ok, body: .init(byteBuffer: body))
        }
        router.get("/trickle") { _, _ in
            Response(status: .ok, body: ResponseBody { writer in
                for byte in ServerTests.gif.prefix(500) {
                    try await writer.write(ByteBuffer(bytes: [byte]))
                    try await Task.sleep(for: .milliseconds(200))
                }
                try await writer.finish(nil)
            })
        }
        router.get("/silent") { _, _ in
            try await Task.sleep(for: .seconds(5))
            return Response(status: .ok)
        }
        var logger = Logger(label: "gifx.test.origin")
        logger.logLevel = .critical
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) }, logger: logger)
        let task = Task { try await app.runService(gracefulShutdownSignals: []) }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw TestFailure("the origin did not start") }
        portBox.port = port
        return LocalOrigin(port: port, task: task, counters: counters)
    }

    func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}

private final class PortBox: @unchecked Sendable {
    private let lock = NSLock()
    private var _port = 0
    var port: Int {
        get { lock.withLock { _port } }
        set { lock.withLock { _port = newValue } }
    }
}

private struct CountingMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext
    let counters: LocalOrigin.Counters
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        counters.request()
        return try await next(request, context)
    }
}
