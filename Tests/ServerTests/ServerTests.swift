import ChildProcesses
import Foundation
import GifFixtures
import GifxKit
import GifxServer
import Testing

/// `gifx serve` as a client sees it: the real service on 127.0.0.1 at an ephemeral port, talked to over
/// HTTP with AsyncHTTPClient. Outputs are judged by ffprobe and webpmux; expected figures come from the
/// fixture's construction (delays 4, 8, 6, 10 cs: tick 2 cs, 28 cs long; timeline.md), not from gifx.
@Suite(.serialized) struct ServerTests {
    static let gif = try! FixtureGIF.solidFrames(
        width: 32, height: 24, colorIndices: [1, 2, 3, 4], delays: [4, 8, 6, 10]).encode()

    static func configuration(_ cache: String) -> ServerConfiguration {
        var configuration = ServerConfiguration(cacheDirectory: cache, version: "gifx-test")
        configuration.port = 0
        configuration.memoryBudget = 2 << 30
        configuration.threads = 2
        configuration.jobs = 2
        return configuration
    }

    static func write(_ data: Data, _ name: String, in folder: String) throws -> String {
        let path = folder + "/" + name
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(.enabled(if: oracleAvailable("ffprobe"), "ffprobe (ffmpeg), the oracle, is not installed"))
    func anMP4HasTheGIFsFramesAndExactDuration() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let server = try await RunningServer.start(Self.configuration(cache))
        let reply = try await server.send(.POST, "/v1/convert?format=mp4", body: Self.gif)
        try await server.stop()
        #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
        #expect(reply.header("Content-Type") == "video/mp4")
        #expect(reply.header("Content-Length") == String(reply.body.count))
        #expect(reply.header("X-Gifx-Timeline") == "frames=4, duration=0.28, tick=0.02")
        let key = try #require(reply.header("X-Gifx-Key"))
        #expect(key.count == 64 && key.allSatisfy(\.isHexDigit))
        #expect(reply.header("ETag") == "\"\(key)\"")
        #expect(reply.header("Location") == "/v1/o/\(key)")
        let path = try Self.write(reply.body, "out.mp4", in: cache)
        let probe = try CapturedRun.run(tool("ffprobe"), [
            "-v", "error", "-select_streams", "v:0", "-count_frames",
            "-show_entries", "stream=codec_name,width,height,nb_read_frames,duration", "-of", "default=nw=1", path,
        ]).stdoutText
        // The tick (2 cs) is 50 fps: 28 cs is 14 samples, exactly 0.28 s.
        #expect(probe.contains("codec_name=h264"), "\(probe)")
        #expect(probe.contains("width=32") && probe.contains("height=24"), "\(probe)")
        #expect(probe.contains("nb_read_frames=14"), "\(probe)")
        #expect(probe.contains("duration=0.280000"), "\(probe)")
        #expect(leftovers(in: cache).isEmpty, "\(leftovers(in: cache))")
    }

    @Test(.enabled(if: oracleAvailable("webpmux"), "webpmux (webp), the oracle, is not installed"))
    func aWebPAtItsOwnWidthHasTheGIFsDelays() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let server = try await RunningServer.start(Self.configuration(cache))
        let reply = try await server.send(.POST, "/v1/convert?format=webp&width=16", body: Self.gif)
        try await server.stop()
        #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
        #expect(reply.header("Content-Type") == "image/webp")
        let path = try Self.write(reply.body, "out.webp", in: cache)
        let info = try CapturedRun.run(tool("webpmux"), ["-info", path]).stdoutText
        #expect(info.contains("Canvas size: 16 x 12"), "\(info)")
        #expect(info.contains("Number of frames: 4"), "\(info)")
        // Columns: No.: width height alpha x_offset y_offset duration ...
        let durations = info.split(separator: "\n").compactMap { line -> Int? in
            let fields = line.split(separator: " ")
            guard fields.count > 6, fields[0].hasSuffix(":"), Int(fields[0].dropLast()) != nil else { return nil }
            return Int(fields[6])
        }
        #expect(durations == [40, 80, 60, 100], "\(info)")
    }

    @Test func theCacheServesRangesAnd304AndSurvivesARestart() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        var server = try await RunningServer.start(Self.configuration(cache))
        let made = try await server.send(.POST, "/v1/convert?format=webp", body: Self.gif)
        #expect(made.status == 200)
        let key = try #require(made.header("X-Gifx-Key"))
        let whole = made.body
        #expect(whole.count > 100)

        let range = try await server.send(.GET, "/v1/o/\(key)", headers: [("Range", "bytes=10-99")])
        #expect(range.status == 206)
        #expect(range.header("Content-Range") == "bytes 10-99/\(whole.count)")
        #expect(range.body == whole[10..<100])
        let suffix = try await server.send(.GET, "/v1/o/\(key)", headers: [("Range", "bytes=-16")])
        #expect(suffix.status == 206 && suffix.body == whole.suffix(16))
        let outside = try await server.send(.GET, "/v1/o/\(key)", headers: [("Range", "bytes=\(whole.count)-")])
        #expect(outside.status == 416 && outside.code == "range_not_satisfiable")
        #expect(outside.header("Content-Range") == "bytes */\(whole.count)")

        let get = try await server.send(.GET, "/v1/o/\(key)")
        #expect(get.status == 200 && get.body == whole)
        #expect(get.header("Cache-Control") == "public, max-age=31536000, immutable")
        #expect(get.header("ETag") == "\"\(key)\"")
        #expect(get.header("Content-Type") == "image/webp")
        let notModified = try await server.send(.GET, "/v1/o/\(key)", headers: [("If-None-Match", "\"\(key)\"")])
        #expect(notModified.status == 304 && notModified.body.isEmpty)
        let otherTag = try await server.send(.GET, "/v1/o/\(key)", headers: [("If-None-Match", "\"other\"")])
        #expect(otherTag.status == 200)
        try await server.stop()

        // A crash's leftovers: an output without its description, a hidden temporary, a spooled body, and a
        // worker's scratch folder with a file in it (a service killed with SIGKILL takes its workers along).
        let orphan = String(repeating: "ab", count: 32)
        try Data("partial".utf8).write(to: URL(fileURLWithPath: cache + "/objects/\(orphan).mp4"))
        try Data("temp".utf8).write(to: URL(fileURLWithPath: cache + "/objects/.\(orphan).mp4.XXXXXX"))
        try Data("body".utf8).write(to: URL(fileURLWithPath: cache + "/spool/in-XXXXXX"))
        try FileManager.default.createDirectory(atPath: cache + "/spool/job-XXXXXX", withIntermediateDirectories: false)
        try Data("canvas".utf8).write(to: URL(fileURLWithPath: cache + "/spool/job-XXXXXX/canvases-XXXXXX"))

        server = try await RunningServer.start(Self.configuration(cache))
        let again = try await server.send(.GET, "/v1/o/\(key)")
        #expect(again.status == 200 && again.body == whole)
        let partial = try await server.send(.GET, "/v1/o/\(orphan)")
        #expect(partial.status == 404 && partial.code == "not_found")
        // The same request is answered from the cache, not converted again.
        let repeated = try await server.send(.POST, "/v1/convert?format=webp", body: Self.gif)
        #expect(repeated.status == 200 && repeated.body == whole)
        #expect(try await server.metric("gifx_cache_misses_total") == 0)
        #expect(try await server.metric("gifx_conversions_total{format=\"webp\"}") == 0)
        try await server.stop()
        #expect(!FileManager.default.fileExists(atPath: cache + "/objects/\(orphan).mp4"))
        #expect(leftovers(in: cache).isEmpty, "\(leftovers(in: cache))")
    }

    @Test func everyErrorIsJSONWithItsStableCode() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        var configuration = Self.configuration(cache)
        configuration.maxBodyBytes = 4096
        let server = try await RunningServer.start(configuration)

        func expectError(_ reply: RunningServer.Reply, _ status: Int, _ code: String, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(reply.status == status, "\(String(decoding: reply.body, as: UTF8.self))", sourceLocation: sourceLocation)
            #expect(reply.code == code, sourceLocation: sourceLocation)
            #expect(reply.header("Content-Type") == "application/json", sourceLocation: sourceLocation)
            #expect((reply.json["message"] as? String)?.isEmpty == false, sourceLocation: sourceLocation)
        }
        // 400: the same words as convert's -o prefix (RenditionTests checks the CLI's).
        let width = try await server.send(.POST, "/v1/convert?format=mp4&width=0", body: Self.gif)
        expectError(width, 400, "bad_query")
        #expect(width.json["message"] as? String == "'width=0': width=0: must be 1...16384")
        let unknown = try await server.send(.POST, "/v1/convert?format=mp4&colour=red", body: Self.gif)
        expectError(unknown, 400, "bad_query")
        #expect((unknown.json["message"] as? String)?.contains("unknown setting 'colour'") == true)
        expectError(try await server.send(.POST, "/v1/convert?format=gif", body: Self.gif), 400, "bad_query")
        expectError(try await server.send(.POST, "/v1/convert", body: Self.gif), 400, "bad_query")
        expectError(try await server.send(.POST, "/v1/convert?format=webp&crf=20", body: Self.gif), 400, "bad_query")
        // 413: a body over --max-body.
        var big = Data("GIF89a".utf8)
        big.append(Data(count: 5000))
        expectError(try await server.send(.POST, "/v1/convert?format=mp4", body: big), 413, "body_too_large")
        // 415: not a GIF.
        let bitmap = try await server.send(.POST, "/v1/convert?format=mp4", body: Data("BM6\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}6\u{0}".utf8))
        expectError(bitmap, 415, "unsupported_format")
        // The formats named as the CLI names them (AnimatedInputTests), from the registry of input formats.
        #expect(bitmap.json["message"] as? String == "the body is not a GIF, WebP, PNG or AVIF file")
        // 422: the header is cut inside the first image descriptor (the keep rule needs one frame).
        let cut = Self.gif.prefix(13 + 24 + 19 + 8 + 5)  // header and screen, palette, loop, GCE, 5 bytes of the descriptor
        let damaged = try await server.send(.POST, "/v1/convert?format=mp4", body: Data(cut))
        expectError(damaged, 422, "damaged_gif")
        let offset = try #require(damaged.json["byteOffset"] as? Int)
        #expect(offset >= 0 && offset <= cut.count, "\(damaged.json)")
        // 404: an unknown route; a key that is not 64 hex digits never reaches the file system.
        expectError(try await server.send(.GET, "/v1/nothing"), 404, "not_found")
        expectError(try await server.send(.GET, "/v1/o/..%2F..%2Fetc%2Fpasswd"), 404, "not_found")
        expectError(try await server.send(.GET, "/v1/o/\(String(repeating: "0", count: 64))"), 404, "not_found")
        try await server.stop()
        #expect(leftovers(in: cache).isEmpty, "\(leftovers(in: cache))")
    }

    @Test func aConversionLargerThanTheWholeBudgetIs413WithTheFigure() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        var configuration = Self.configuration(cache)
        // docs/memory.md: the process's fixed cost alone is 24 MiB, libav 28 MiB more.
        configuration.memoryBudget = 16 << 20
        let server = try await RunningServer.start(configuration)
        let reply = try await server.send(.POST, "/v1/convert?format=mp4", body: Self.gif)
        try await server.stop()
        #expect(reply.status == 413 && reply.code == "over_budget")
        let message = try #require(reply.json["message"] as? String)
        // "needs at least N MiB (B bytes)": more than the 52 MiB of fixed costs, and over the budget.
        let bytes = try #require(message.split(separator: "(").dropFirst().first.flatMap { Int($0.split(separator: " ")[0]) })
        #expect(bytes >= 52 << 20, "\(message)")
        #expect(message.contains("16 MiB"), "\(message)")
        #expect(leftovers(in: cache).isEmpty)
    }

    @Test func readinessHealthAndMetrics() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let server = try await RunningServer.start(Self.configuration(cache))
        #expect(try await server.send(.GET, "/healthz").status == 200)
        #expect(try await server.send(.GET, "/readyz").status == 200)
        let timeline = try await server.send(.POST, "/v1/convert?format=timeline", body: Self.gif)
        #expect(timeline.status == 200 && timeline.header("Content-Type") == "application/json")
        let schedule = try #require(try JSONSerialization.jsonObject(with: timeline.body) as? [String: Any])
        #expect((schedule["duration"] as? [String: Any])?["centiseconds"] as? Int == 28)
        #expect((schedule["tick"] as? [String: Any])?["centiseconds"] as? Int == 2)
        let metrics = try await server.send(.GET, "/metrics")
        let text = String(decoding: metrics.body, as: UTF8.self)
        #expect(metrics.status == 200)
        #expect(metrics.header("Content-Type")?.hasPrefix("text/plain") == true)
        #expect(text.contains("# TYPE gifx_conversions_total counter"), "\(text)")
        #expect(try await server.metric("gifx_conversions_total{format=\"timeline\"}") == 1)
        #expect(try await server.metric("gifx_memory_budget_bytes") == Double(2 << 30))
        try await server.stop()
    }

    /// A budget that fits one conversion at a time, a queue of one: the second request waits for the
    /// first, the third finds the queue full (503 with Retry-After), and /readyz says so meanwhile. The first
    /// conversion is held at a gate (`GatedConverter`) until the test has seen all that.
    @Test func admissionQueuesThenOverflowsTo503() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let slow = try noiseGIF(width: 320, height: 240, frames: 40, seed: 36)
        // The smallest budget of this conversion at one thread, as the planner states it.
        let smallest = try GifConverter(settings: RunSettings(threads: 1)).smallestMemoryBudget(
            .bytes(slow), to: [.video(target: .file(cache + "/probe.mp4"), options: VideoSettings(crf: 30))])
        var configuration = Self.configuration(cache)
        configuration.memoryBudget = smallest + smallest / 2
        configuration.threads = 4
        configuration.jobs = 4  // slots do not limit: memory does
        configuration.queueLength = 1
        configuration.queueTimeout = .seconds(600)
        let gate = GatedConverter()
        let server = try await RunningServer.start(configuration, converter: gate)

        async let first = server.send(.POST, "/v1/convert?format=mp4&crf=30", body: slow)
        #expect(try await eventually { try await server.metric("gifx_conversions_running") == 1 })
        async let second = server.send(.POST, "/v1/convert?format=mp4&crf=31", body: slow)
        #expect(try await eventually { try await server.metric("gifx_queue_waiting") == 1 })
        let ready = try await server.send(.GET, "/readyz")
        #expect(ready.status == 503 && ready.code == "queue_full")
        let third = try await server.send(.POST, "/v1/convert?format=mp4&crf=32", body: slow)
        #expect(third.status == 503 && third.code == "queue_full")
        #expect(Int(third.header("Retry-After") ?? "") ?? 0 >= 1)
        gate.open()
        let (a, b) = try await (first, second)
        #expect(a.status == 200 && b.status == 200)
        // The second ran only after the first: never two at once under this budget.
        #expect(gate.mostAtOnce == 1)
        #expect(try await server.metric("gifx_conversions_total{format=\"mp4\"}") == 2)
        #expect(try await server.send(.GET, "/readyz").status == 200)
        try await server.stop()
        #expect(leftovers(in: cache).isEmpty, "\(leftovers(in: cache))")
    }

    /// Graceful shutdown (what SIGTERM starts): the conversion in flight (held at a gate until the shutdown has
    /// begun) finishes and is answered, the service then ends, and nothing is
    /// left behind.
    @Test func shutdownFinishesTheConversionInFlight() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let gate = GatedConverter()
        let server = try await RunningServer.start(Self.configuration(cache), converter: gate)
        async let inFlight = server.send(.POST, "/v1/convert?format=mp4", body: Self.gif)
        #expect(try await eventually { try await server.metric("gifx_conversions_running") == 1 })
        await server.service.shutdown()
        gate.open()
        let reply = try await inFlight
        #expect(reply.status == 200)
        try await server.task.value
        #expect(leftovers(in: cache).isEmpty, "\(leftovers(in: cache))")
    }

    /// A grace period of zero: the conversion in flight (held until it is cancelled, `HeldConverter`) is
    /// cancelled, and its temporaries go with it.
    @Test func aConversionPastTheGracePeriodIsCancelledCleanly() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        var configuration = Self.configuration(cache)
        configuration.gracePeriod = .zero
        let converter = HeldConverter()
        let server = try await RunningServer.start(configuration, converter: converter)
        let request = Task { try? await server.send(.POST, "/v1/convert?format=mp4", body: Self.gif) }
        #expect(try await eventually { try await server.metric("gifx_conversions_running") == 1 })
        await server.service.shutdown()
        _ = try? await server.task.value
        _ = await request.value
        #expect(converter.held == 1 && converter.cancelled == 1)
        // The cancelled conversion removes its temporaries as it stops; give its thread a moment.
        #expect(try await eventually(30) { leftovers(in: cache).isEmpty }, "\(leftovers(in: cache))")
        let objects = try FileManager.default.contentsOfDirectory(atPath: cache + "/objects")
        #expect(objects.isEmpty, "\(objects)")
    }

    /// The conversion is held until it is cancelled (`HeldConverter`), so the timeout is reached however fast the
    /// machine is.
    @Test func aConversionPastItsTimeoutIs503AndLeavesNothing() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        var configuration = Self.configuration(cache)
        configuration.conversionTimeout = .milliseconds(300)
        let converter = HeldConverter()
        let server = try await RunningServer.start(configuration, converter: converter)
        let reply = try await server.send(.POST, "/v1/convert?format=mp4", body: Self.gif)
        #expect(reply.status == 503, "\(String(decoding: reply.body, as: UTF8.self))")
        #expect(reply.code == "conversion_timeout")
        #expect(reply.header("Retry-After") == nil)
        // The conversion began, and the timeout cancelled it before the answer went out.
        #expect(converter.held == 1 && converter.cancelled == 1)
        // The cancelled conversion removed its temporaries before the answer went out; nothing was cached.
        #expect(leftovers(in: cache).isEmpty, "\(leftovers(in: cache))")
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache + "/objects").isEmpty)
        // The service goes on: a small conversion within the limit succeeds.
        #expect(try await server.send(.POST, "/v1/convert?format=timeline", body: Self.gif).status == 200)
        try await server.stop()
    }

    @Test func aBodyThatTricklesPastTheReadTimeoutIs408() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        var configuration = Self.configuration(cache)
        configuration.readTimeout = .milliseconds(500)
        let server = try await RunningServer.start(configuration)
        // A raw socket: announce 1000 bytes, send 6, then wait for the answer.
        let answer = try await rawExchange(
            port: server.port,
            "POST /v1/convert?format=mp4 HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\n\r\nGIF89a")
        #expect(answer.hasPrefix("HTTP/1.1 408"), "\(answer)")
        #expect(answer.contains("\"code\":\"read_timeout\""), "\(answer)")
        try await server.stop()
        #expect(leftovers(in: cache).isEmpty, "\(leftovers(in: cache))")
    }

    @Test func everyAnswerCarriesItsRequestID() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let server = try await RunningServer.start(Self.configuration(cache))
        let first = try await server.send(.GET, "/healthz")
        let second = try await server.send(.GET, "/v1/nothing")
        let ids = [first.header("X-Request-Id"), second.header("X-Request-Id")]
        #expect(ids.allSatisfy { $0 != nil && !$0!.isEmpty }, "\(ids)")
        #expect(ids[0] != ids[1])
        try await server.stop()
    }
}

/// Sends `text` on a new connection to 127.0.0.1:`port` and returns what comes back before the server closes
/// the connection or 10 s pass; on a thread of its own, so its blocking reads never hold a thread of Swift
/// concurrency's pool, which the server's timeouts run on.
func rawExchange(port: Int, _ text: String) async throws -> String {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try blockingExchange(port: port, text) }) }.start()
    }
}

private func blockingExchange(port: Int, _ text: String) throws -> String {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestFailure("socket: \(errno)") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else { throw TestFailure("connect: \(errno)") }
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let bytes = Array(text.utf8)
    guard send(fd, bytes, bytes.count, 0) == bytes.count else { throw TestFailure("send: \(errno)") }
    var received = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = recv(fd, &buffer, buffer.count, 0)
        if n <= 0 { break }
        received += buffer[0..<n]
        if String(decoding: received, as: UTF8.self).contains("\r\n\r\n{") && received.last == 0x0A { break }
    }
    return String(decoding: received, as: UTF8.self)
}
