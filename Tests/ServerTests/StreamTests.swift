import ChildProcesses
import Foundation
import GifFixtures
import GifxServer
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Streamed responses (`stream=1`, docs/serve.md "Streamed responses") and cached objects sent in chunks. The
/// streamed answers are read on a raw socket and their chunked framing decoded here (AsyncHTTPClient keeps
/// trailers behind an unstable trait), so the test sees what a client sees: the chunks, the trailer, and whether
/// the body's end came at all. Outputs are judged by ffprobe; the expected figures come from the fixtures'
/// delays (4, 8, 6, 10 cs: tick 2 cs, 28 cs long, 14 samples at 50 fps; the noise GIFs: 4 cs a frame).
@Suite(.serialized) struct StreamTests {
    static func probe(_ bytes: Data, _ name: String, in folder: String) throws -> String {
        let path = try ServerTests.write(bytes, name, in: folder)
        defer { unlink(path) }
        return try CapturedRun.run(tool("ffprobe"), [
            "-v", "error", "-select_streams", "v:0", "-count_frames",
            "-show_entries", "stream=codec_name,width,height,nb_read_frames:format=duration", "-of", "default=nw=1", path,
        ]).stdoutText
    }

    static func post(_ path: String, _ body: Data) -> Data {
        var request = Data("POST \(path) HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Length: \(body.count)\r\n\r\n".utf8)
        request.append(body)
        return request
    }

    @Test(.enabled(if: oracleAvailable("ffprobe"), "ffprobe (ffmpeg), the oracle, is not installed"))
    func aStreamedMP4ArrivesChunkedEndsWithItsTrailerAndIsCached() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let server = try await RunningServer.start(ServerTests.configuration(cache))
        let reply = try await RawHTTP.exchange(port: server.port, Self.post("/v1/convert?format=mp4&stream=1", ServerTests.gif))
        #expect(reply.status == 200, "\(reply.head)")
        #expect(reply.header("Transfer-Encoding") == "chunked", "\(reply.head)")
        #expect(reply.header("Content-Length") == nil)
        #expect(reply.header("Trailer") == "X-Gifx-Result")
        #expect(reply.header("Content-Type") == "video/mp4")
        #expect(reply.header("X-Gifx-Timeline") == "frames=4, duration=0.28, tick=0.02")
        #expect(reply.header("Cache-Control") == "public, max-age=31536000, immutable")
        let key = try #require(reply.header("X-Gifx-Key"))
        #expect(reply.header("ETag") == "\"\(key)\"")
        #expect(reply.header("Location") == "/v1/o/\(key)")
        #expect(reply.complete)
        #expect(reply.trailers["x-gifx-result"] == "ok; bytes=\(reply.body.count)", "\(reply.trailers)")
        // A fragmented MP4: ftyp first, then movie fragments.
        #expect(reply.body.count > 100 && reply.body[4..<8] == Data("ftyp".utf8))
        #expect(reply.body.range(of: Data("moof".utf8)) != nil)
        let probe = try Self.probe(reply.body, "streamed.mp4", in: cache)
        #expect(probe.contains("codec_name=h264"), "\(probe)")
        #expect(probe.contains("nb_read_frames=14"), "\(probe)")
        #expect(probe.contains("duration=0.280000"), "\(probe)")

        // The very bytes streamed are the cache's entry, whole and by ranges.
        let whole = try await server.send(.GET, "/v1/o/\(key)")
        #expect(whole.status == 200 && whole.body == reply.body)
        #expect(whole.header("Content-Length") == String(reply.body.count))
        let piece = try await server.send(.GET, "/v1/o/\(key)", headers: [("Range", "bytes=100-499")])
        #expect(piece.status == 206 && piece.body == reply.body[100..<500])
        // A hit with stream=1 is sent whole, from the cache.
        let hit = try await server.send(.POST, "/v1/convert?format=mp4&stream=1", body: ServerTests.gif)
        #expect(hit.status == 200 && hit.body == reply.body)
        #expect(hit.header("Content-Length") == String(reply.body.count))
        #expect(hit.header("X-Gifx-Key") == key)
        // Not the entry of the file form (other bytes: a faststart MP4).
        let file = try await server.send(.POST, "/v1/convert?format=mp4", body: ServerTests.gif)
        #expect(file.status == 200 && file.header("X-Gifx-Key") != key)
        #expect(try await server.metric("gifx_conversions_total{format=\"mp4\"}") == 2)
        try await server.stop()
        #expect(leftovers(in: cache).isEmpty, "\(leftovers(in: cache))")
    }

    @Test(.enabled(if: oracleAvailable("ffprobe"), "ffprobe (ffmpeg), the oracle, is not installed"))
    func aStreamedWebMHasTheGIFsDuration() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let server = try await RunningServer.start(ServerTests.configuration(cache))
        let reply = try await RawHTTP.exchange(port: server.port, Self.post("/v1/convert?format=webm&stream", ServerTests.gif))
        #expect(reply.status == 200, "\(reply.head)")
        #expect(reply.header("Transfer-Encoding") == "chunked" && reply.header("Content-Type") == "video/webm")
        #expect(reply.complete && reply.trailers["x-gifx-result"] == "ok; bytes=\(reply.body.count)")
        #expect(reply.body.prefix(4) == Data([0x1A, 0x45, 0xDF, 0xA3]))  // EBML
        let probe = try Self.probe(reply.body, "streamed.webm", in: cache)
        #expect(probe.contains("codec_name=vp9"), "\(probe)")
        #expect(probe.contains("nb_read_frames=14"), "\(probe)")
        #expect(probe.contains("duration=0.280000"), "\(probe)")
        let key = try #require(reply.header("X-Gifx-Key"))
        let whole = try await server.send(.GET, "/v1/o/\(key)")
        #expect(whole.status == 200 && whole.body == reply.body)
        try await server.stop()
        #expect(leftovers(in: cache).isEmpty, "\(leftovers(in: cache))")
    }

    @Test func streamIsForMP4AndWebMOnly() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let server = try await RunningServer.start(ServerTests.configuration(cache))
        for format in ["webp", "avif", "jpg", "sheet", "timeline"] {
            let reply = try await server.send(.POST, "/v1/convert?format=\(format)&stream=1", body: ServerTests.gif)
            #expect(reply.status == 400 && reply.code == "bad_query", "\(format)")
            #expect(reply.json["message"] as? String == "format=\(format): stream is for mp4 and webm")
        }
        let notASwitch = try await server.send(.POST, "/v1/convert?format=mp4&stream=yes", body: ServerTests.gif)
        #expect(notASwitch.status == 400)
        #expect(notASwitch.json["message"] as? String == "'stream=yes': stream is a switch: give stream, stream=1 or stream=0")
        // stream=0 is the file form.
        let off = try await server.send(.POST, "/v1/convert?format=webp&stream=0", body: ServerTests.gif)
        #expect(off.status == 200 && off.header("Content-Length") == String(off.body.count))
        try await server.stop()
        #expect(leftovers(in: cache).isEmpty, "\(leftovers(in: cache))")
    }

    /// The signed form takes `stream:1` among its options: the same streamed answer, and the same refusal.
    @Test(.enabled(if: oracleAvailable("openssl", "ffprobe"), "openssl and ffprobe, the oracles, are not installed"))
    func aSignedURLStreamsWithStreamInItsOptions() async throws {
        let origin = try await LocalOrigin.start()
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let server = try await RunningServer.start(SignedURLTests.configuration(cache, origins: ["http://127.0.0.1:\(origin.port)"]))
        let source = "http://127.0.0.1:\(origin.port)/a.gif"
        let path = try SignedURLTests.signedPath("format:mp4,stream:1", source)
        let request = Data("GET \(path) HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n".utf8)
        let reply = try await RawHTTP.exchange(port: server.port, request)
        #expect(reply.status == 200, "\(reply.head)")
        #expect(reply.header("Transfer-Encoding") == "chunked" && reply.header("Content-Length") == nil)
        #expect(reply.complete && reply.trailers["x-gifx-result"] == "ok; bytes=\(reply.body.count)")
        let probe = try Self.probe(reply.body, "signed.mp4", in: cache)
        #expect(probe.contains("nb_read_frames=14") && probe.contains("duration=0.280000"), "\(probe)")
        // The same input and options by POST: the same entry, served whole from the cache.
        let posted = try await server.send(.POST, "/v1/convert?format=mp4&stream=1", body: ServerTests.gif)
        #expect(posted.status == 200 && posted.body == reply.body && posted.header("X-Gifx-Key") == reply.header("X-Gifx-Key"))
        let webp = try await server.send(.GET, try SignedURLTests.signedPath("format:webp,stream:1", source))
        #expect(webp.status == 400 && webp.json["message"] as? String == "format=webp: stream is for mp4 and webm")
        try await server.stop()
        await origin.stop()
        #expect(leftovers(in: cache).isEmpty, "\(leftovers(in: cache))")
    }

    /// Past --conversion-timeout, after the 200 went out: the connection is closed without the body's end (no
    /// last chunk, no trailer), nothing is cached, nothing is left in the spool, and the service goes on. The
    /// conversion writes a few bytes and is held until it is cancelled (`HeldConverter`), so the timeout is reached
    /// however fast the machine is.
    @Test func aStreamCutByItsTimeoutEndsWithoutTheLastChunkAndLeavesNothing() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let gif = try noiseGIF(width: 32, height: 24, frames: 60, seed: 40)
        var configuration = ServerTests.configuration(cache)
        configuration.conversionTimeout = .milliseconds(300)
        let converter = HeldConverter()
        let server = try await RunningServer.start(configuration, converter: converter)
        let reply = try await RawHTTP.exchange(port: server.port, Self.post("/v1/convert?format=mp4&stream=1", gif))
        #expect(reply.status == 200, "\(reply.head)")
        #expect(reply.header("X-Gifx-Timeline") == "frames=60, duration=2.40, tick=0.04")
        #expect(!reply.complete)
        #expect(reply.trailers.isEmpty)
        // Nothing but what the conversion wrote was sent, and the timeout cancelled it.
        #expect(HeldConverter.written.starts(with: reply.body), "\(reply.body.count) bytes")
        #expect(converter.held == 1 && converter.cancelled == 1)
        #expect(try await eventually(30) { leftovers(in: cache).isEmpty }, "\(leftovers(in: cache))")
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache + "/objects").isEmpty)
        let key = try #require(reply.header("X-Gifx-Key"))
        #expect(try await server.send(.GET, "/v1/o/\(key)").status == 404)
        #expect(try await server.send(.POST, "/v1/convert?format=timeline", body: ServerTests.gif).status == 200)
        try await server.stop()
    }

    /// The client reads the head and goes: the conversion (admitted, paid for) runs on into the cache, so a
    /// retry, or a CDN's, is a hit. The head came while the conversion was still running.
    @Test(.enabled(if: oracleAvailable("ffprobe"), "ffprobe (ffmpeg), the oracle, is not installed"))
    func aClientGoneMidStreamLeavesTheEntryCached() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let slow = try noiseGIF(width: 320, height: 240, frames: 40, seed: 41)
        let server = try await RunningServer.start(ServerTests.configuration(cache))
        let connection = try await RawHTTP.connect(port: server.port)
        try await connection.send(Self.post("/v1/convert?format=mp4&stream=1", slow))
        let head = try await connection.readHead()
        #expect(head.status == 200, "\(head.head)")
        #expect(head.header("X-Gifx-Timeline") == "frames=40, duration=1.60, tick=0.04")
        #expect(try await server.metric("gifx_conversions_running") == 1)
        connection.close()
        let key = try #require(head.header("X-Gifx-Key"))
        #expect(try await eventually(120) { try await server.send(.GET, "/v1/o/\(key)").status == 200 })
        let entry = try await server.send(.GET, "/v1/o/\(key)")
        #expect(entry.body.range(of: Data("moof".utf8)) != nil)
        let probe = try Self.probe(entry.body, "gone.mp4", in: cache)
        #expect(probe.contains("nb_read_frames=40"), "\(probe)")
        #expect(probe.contains("duration=1.600000"), "\(probe)")
        try await server.stop()
        #expect(leftovers(in: cache).isEmpty, "\(leftovers(in: cache))")
    }

    /// A second identical request while the first streams shares its conversion: it waits for the entry and gets
    /// it whole (Content-Length), the very bytes the first received as a stream. The first conversion is held at a
    /// gate (`GatedConverter`) until the second has joined its flight, so the two always overlap.
    @Test func aSecondIdenticalRequestWaitsAndGetsTheStreamedBytesWhole() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let slow = try noiseGIF(width: 320, height: 240, frames: 40, seed: 42)
        let gate = GatedConverter()
        let server = try await RunningServer.start(ServerTests.configuration(cache), converter: gate)
        let connection = try await RawHTTP.connect(port: server.port)
        try await connection.send(Self.post("/v1/convert?format=mp4&stream=1", slow))
        let head = try await connection.readHead()
        #expect(head.status == 200)
        async let waiting = server.send(.POST, "/v1/convert?format=mp4&stream=1", body: slow)
        #expect(try await eventually { try await server.metric("gifx_single_flight_shared_total") == 1 })
        gate.open()
        let second = try await waiting
        let first = try await connection.readToEnd()
        #expect(first.complete && first.trailers["x-gifx-result"] == "ok; bytes=\(first.body.count)")
        #expect(second.status == 200 && second.body == first.body)
        #expect(second.header("Content-Length") == String(first.body.count))
        #expect(second.header("X-Gifx-Key") == head.header("X-Gifx-Key"))
        #expect(try await server.metric("gifx_single_flight_shared_total") == 1)
        #expect(try await server.metric("gifx_conversions_total{format=\"mp4\"}") == 1)
        try await server.stop()
        #expect(leftovers(in: cache).isEmpty, "\(leftovers(in: cache))")
    }

    /// Graceful shutdown while a stream is sent: it finishes, whole, within the grace period.
    @Test func shutdownFinishesTheStreamInFlight() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let slow = try noiseGIF(width: 320, height: 240, frames: 40, seed: 43)
        let server = try await RunningServer.start(ServerTests.configuration(cache))
        let connection = try await RawHTTP.connect(port: server.port)
        try await connection.send(Self.post("/v1/convert?format=mp4&stream=1", slow))
        #expect(try await connection.readHead().status == 200)
        await server.service.shutdown()
        let reply = try await connection.readToEnd()
        #expect(reply.complete && reply.trailers["x-gifx-result"] == "ok; bytes=\(reply.body.count)")
        #expect(reply.body.range(of: Data("moof".utf8)) != nil)
        try await server.task.value
        #expect(leftovers(in: cache).isEmpty, "\(leftovers(in: cache))")
    }

    /// A grace period of zero: a streamed conversion whose client has gone is cancelled at shutdown, and leaves
    /// nothing (no entry, nothing in the spool).
    @Test func aStreamWhoseClientHasGoneIsCancelledPastTheGracePeriod() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let slow = try noiseGIF(width: 320, height: 240, frames: 60, seed: 45)
        var configuration = ServerTests.configuration(cache)
        configuration.gracePeriod = .zero
        let server = try await RunningServer.start(configuration)
        let connection = try await RawHTTP.connect(port: server.port)
        try await connection.send(Self.post("/v1/convert?format=mp4&stream=1", slow))
        #expect(try await connection.readHead().status == 200)
        connection.close()
        #expect(try await server.metric("gifx_conversions_running") == 1)
        await server.service.shutdown()
        _ = try? await server.task.value
        #expect(try await eventually(30) { leftovers(in: cache).isEmpty }, "\(leftovers(in: cache))")
        let objects = try FileManager.default.contentsOfDirectory(atPath: cache + "/objects")
        #expect(objects.isEmpty, "\(objects)")
    }

    /// A cached object over several chunks (a sprite sheet of noise, over 1 MB: more than eight 128 KiB chunks, twice the
    /// chunks a response may hold in flight) comes back byte for byte the file the cache holds, whole and in ranges that cross the chunks' boundaries.
    @Test func aLargeObjectIsSentInChunksByteForByte() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let noise = try noiseGIF(width: 320, height: 240, frames: 40, seed: 44)
        let server = try await RunningServer.start(ServerTests.configuration(cache))
        let made = try await server.send(.POST, "/v1/convert?format=sheet", body: noise)
        #expect(made.status == 200, "\(made.json)")
        let key = try #require(made.header("X-Gifx-Key"))
        let file = try Data(contentsOf: URL(fileURLWithPath: cache + "/objects/\(key).png"))
        #expect(file.count > 1 << 20, "\(file.count)")
        #expect(made.body == file)
        let whole = try await server.send(.GET, "/v1/o/\(key)")
        #expect(whole.status == 200 && whole.body == file && whole.header("Content-Length") == String(file.count))
        for (first, last) in [(0, (128 << 10) - 1), (100_000, 700_000), (file.count - 300_000, file.count - 1)] {
            let piece = try await server.send(.GET, "/v1/o/\(key)", headers: [("Range", "bytes=\(first)-\(last)")])
            #expect(piece.status == 206 && piece.body == file[first...last], "\(first)-\(last)")
            #expect(piece.header("Content-Length") == String(last - first + 1))
        }
        try await server.stop()
        #expect(leftovers(in: cache).isEmpty, "\(leftovers(in: cache))")
    }
}

/// An HTTP/1.1 exchange on a raw socket, its answer decoded here: the head, and a chunked body with its trailers
/// (or a Content-Length one), on threads of their own so blocking reads never hold Swift concurrency's pool.
final class RawHTTP: @unchecked Sendable {
    struct Reply: Sendable {
        var head = ""
        var status = 0
        var headers: [(String, String)] = []
        var body = Data()
        var trailers: [String: String] = [:]
        /// The body's end arrived: the last chunk (chunked) or every announced byte.
        var complete = false
        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
    }

    private let fd: Int32
    private var received = Data()

    private init(fd: Int32) { self.fd = fd }
    deinit { close() }

    static func connect(port: Int) async throws -> RawHTTP {
        try await onThread {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw TestFailure("socket: \(errno)") }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { cConnect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else { cClose(fd); throw TestFailure("connect: \(errno)") }
            var timeout = timeval(tv_sec: 120, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            return RawHTTP(fd: fd)
        }
    }

    /// Connects, sends `request`, reads to the connection's end.
    static func exchange(port: Int, _ request: Data) async throws -> Reply {
        let connection = try await connect(port: port)
        try await connection.send(request)
        return try await connection.readToEnd()
    }

    func send(_ bytes: Data) async throws {
        try await onThread { [self] in
            var offset = 0
            while offset < bytes.count {
                let n = bytes.withUnsafeBytes { cSend(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
                guard n > 0 else { throw TestFailure("send: \(errno)") }
                offset += n
            }
        }
    }

    /// Reads until the head is whole; the reply has no body yet.
    func readHead() async throws -> Reply {
        try await onThread { [self] in
            while received.range(of: Data("\r\n\r\n".utf8)) == nil {
                guard readSome() else { throw TestFailure("the connection ended before the head") }
            }
            return Self.parse(received)
        }
    }

    /// Reads until the server closes the connection, and decodes everything received.
    func readToEnd() async throws -> Reply {
        try await onThread { [self] in
            while readSome() {}
            return Self.parse(received)
        }
    }

    private var closed = false
    func close() {
        if !closed { cClose(fd); closed = true }
    }

    private func readSome() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let n = recv(fd, &buffer, buffer.count, 0)
        guard n > 0 else { return false }
        received.append(contentsOf: buffer[0..<n])
        return true
    }

    static func parse(_ data: Data) -> Reply {
        var reply = Reply()
        guard let end = data.range(of: Data("\r\n\r\n".utf8)) else { return reply }
        reply.head = String(decoding: data[data.startIndex..<end.lowerBound], as: UTF8.self)
        let lines = reply.head.components(separatedBy: "\r\n")
        reply.status = Int(lines[0].split(separator: " ").dropFirst().first ?? "") ?? 0
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            reply.headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var rest = data[end.upperBound...]
        if reply.header("Transfer-Encoding")?.lowercased() == "chunked" {
            let crlf = Data("\r\n".utf8)
            while let lineEnd = rest.range(of: crlf) {
                let sizeText = String(decoding: rest[rest.startIndex..<lineEnd.lowerBound], as: UTF8.self)
                guard let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16) else { break }
                rest = rest[lineEnd.upperBound...]
                if size == 0 {
                    // Trailer fields, then an empty line.
                    while let fieldEnd = rest.range(of: crlf) {
                        let field = String(decoding: rest[rest.startIndex..<fieldEnd.lowerBound], as: UTF8.self)
                        rest = rest[fieldEnd.upperBound...]
                        if field.isEmpty { reply.complete = true; break }
                        if let colon = field.firstIndex(of: ":") {
                            reply.trailers[field[..<colon].lowercased()] = field[field.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                        }
                    }
                    break
                }
                guard rest.count >= size + 2 else { break }
                reply.body.append(rest[rest.startIndex..<rest.startIndex + size])
                rest = rest[(rest.startIndex + size + 2)...]
            }
        } else {
            reply.body = Data(rest)
            reply.complete = reply.header("Content-Length").flatMap(Int.init) == rest.count
        }
        return reply
    }
}

/// Runs `body` on a thread of its own.
private func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

// The C calls, outside `RawHTTP`, whose own `connect`, `send` and `close` would shadow them.
private func cConnect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 { connect(fd, address, length) }
private func cSend(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int, _ flags: Int32) -> Int { send(fd, bytes, count, flags) }
private func cClose(_ fd: Int32) { close(fd) }
