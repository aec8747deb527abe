import AsyncHTTPClient
import ChildProcesses
import Foundation
import GifFixtures
@testable import GifxServer
import Testing

/// `format=auto` (issue 60): the format chosen from `Accept`, with real browsers' `Accept` for images. The headers
/// are the browsers' own, copied as they send them for an `<img>`; the expected choices are written by hand from the
/// rule (AVIF where `image/avif` is named, else WebP where `image/webp` is, else the source; q-values honoured,
/// wildcards choosing neither).
enum BrowserAccept {
    /// Chromium (Chrome 85 and later, Edge): avif listed first.
    static let chromium = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"
    /// Firefox (93 and later).
    static let firefox = "image/avif,image/webp,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5"
    /// Safari 17 and later, as WebKit documents it: webp before avif, both at q=1.
    static let safari = "image/webp,image/avif,image/jxl,image/heic,image/heic-sequence,video/*;q=0.8,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5"
    /// Safari 13 (neither AVIF nor WebP).
    static let old = "image/png,image/svg+xml,image/*;q=0.8,video/*;q=0.8,*/*;q=0.5"
    /// Chrome before 85: WebP, no AVIF.
    static let chrome84 = "image/webp,image/apng,image/*,*/*;q=0.8"
}

struct AutoFormatChoiceTests {
    @Test(arguments: [
        (BrowserAccept.chromium, AutoFormat.avif), (BrowserAccept.firefox, .avif), (BrowserAccept.safari, .avif),
        (BrowserAccept.old, .source), (BrowserAccept.chrome84, .webp),
    ])
    func browsersGetWhatTheyName(_ accept: String, _ expected: AutoFormat) {
        #expect(AutoFormat.choose(accept: accept) == expected, "\(accept)")
    }

    @Test(arguments: [
        (nil, AutoFormat.source),
        ("", .source),
        ("*/*", .source),
        ("image/*", .source),
        ("image/avif", .avif),
        ("IMAGE/AVIF", .avif),
        ("image/webp", .webp),
        ("image/avif;q=0.5, image/webp", .webp),  // the higher q wins
        ("image/avif;q=0.9,image/webp;q=0.9", .avif),  // a tie is AVIF's
        ("image/webp;q=0.9,image/avif;q=0.9", .avif),
        ("image/avif;q=0,image/webp", .webp),  // q=0: not acceptable
        ("image/avif;q=0,image/webp;q=0.000,*/*", .source),
        ("image/avif ; q=0.2 , image/webp ; Q=0.1", .avif),
        ("image/avif;q=2,image/webp;q=0.5", .webp),  // a malformed weight drops its range
        ("image/avif;q=0.8001,image/webp;q=0.1", .webp),
        ("image/avif;q=1.0;level=1", .avif),
        ("image/avif;q=0.3,image/avif;q=0.9,image/webp;q=0.5", .avif),  // named twice: the higher
    ] as [(String?, AutoFormat)])
    func qValuesAndWildcards(_ accept: String?, _ expected: AutoFormat) {
        #expect(AutoFormat.choose(accept: accept) == expected, "\(accept ?? "no Accept")")
    }
}

@Suite(.serialized, .enabled(if: oracleAvailable("webpmux"), "webpmux (webp), the oracle, is not installed"))
struct AutoFormatServiceTests {
    /// Each browser's answer: the type it named, `Vary: Accept`, the choice in `X-Gifx-Format`, the usual
    /// `Cache-Control`; the entry is the named format's (the same key as `format=avif`), not one per `Accept`.
    @Test func eachBrowserGetsItsFormatFromTheNamedFormatsEntry() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let server = try await RunningServer.start(ServerTests.configuration(cache))
        let avif = try await server.send(.POST, "/v1/convert?format=avif&width=16", body: ServerTests.gif)
        let webp = try await server.send(.POST, "/v1/convert?format=webp&width=16", body: ServerTests.gif)
        #expect(avif.status == 200 && webp.status == 200)
        let cases: [(String, String, String, RunningServer.Reply)] = [
            (BrowserAccept.chromium, "avif", "image/avif", avif), (BrowserAccept.firefox, "avif", "image/avif", avif),
            (BrowserAccept.safari, "avif", "image/avif", avif), (BrowserAccept.chrome84, "webp", "image/webp", webp),
        ]
        for (accept, format, type, named) in cases {
            let reply = try await server.send(.POST, "/v1/convert?format=auto&width=16", body: ServerTests.gif, headers: [("Accept", accept)])
            #expect(reply.status == 200, "\(accept): \(reply.json)")
            #expect(reply.header("Content-Type") == type, "\(accept)")
            #expect(reply.header("Vary") == "Accept")
            #expect(reply.header("X-Gifx-Format") == format)
            #expect(reply.header("Cache-Control") == "public, max-age=31536000, immutable")
            #expect(reply.header("X-Gifx-Timeline") == "frames=4, duration=0.28, tick=0.02")
            #expect(reply.header("X-Gifx-Key") == named.header("X-Gifx-Key"), "\(accept): not the named format's entry")
            #expect(reply.body == named.body)
        }
        // Two conversions in all (the named AVIF and WebP); the auto answers were hits.
        #expect(try await server.metric("gifx_conversions_total{format=\"avif\"}") == 1)
        #expect(try await server.metric("gifx_conversions_total{format=\"webp\"}") == 1)
        try await server.stop()
        #expect(leftovers(in: cache).isEmpty, "\(leftovers(in: cache))")
    }

    /// A browser that names neither gets the source, byte for byte, typed as the source is, from a cache entry of
    /// its own (`Location` serves it; `If-None-Match` of its ETag is 304); settings and edits shape only AVIF and
    /// WebP answers.
    @Test func neitherNamedPassesTheSourceThrough() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let server = try await RunningServer.start(ServerTests.configuration(cache))
        for query in ["format=auto", "format=auto&width=16&reverse"] {
            let reply = try await server.send(.POST, "/v1/convert?\(query)", body: ServerTests.gif, headers: [("Accept", BrowserAccept.old)])
            #expect(reply.status == 200, "\(reply.json)")
            #expect(reply.body == ServerTests.gif)
            #expect(reply.header("Content-Type") == "image/gif")
            #expect(reply.header("Vary") == "Accept")
            #expect(reply.header("X-Gifx-Format") == "source")
            #expect(reply.header("Cache-Control") == "public, max-age=31536000, immutable")
            #expect(reply.header("X-Gifx-Timeline") == "frames=4, duration=0.28, tick=0.02")
            let key = try #require(reply.header("X-Gifx-Key"))
            #expect(reply.header("ETag") == "\"\(key)\"")
            let object = try await server.send(.GET, "/v1/o/\(key)")
            #expect(object.status == 200 && object.body == ServerTests.gif && object.header("Content-Type") == "image/gif")
        }
        // No Accept at all is the same choice.
        let bare = try await server.send(.POST, "/v1/convert?format=auto", body: ServerTests.gif)
        #expect(bare.status == 200 && bare.header("X-Gifx-Format") == "source" && bare.body == ServerTests.gif)
        try await server.stop()
        #expect(leftovers(in: cache).isEmpty, "\(leftovers(in: cache))")
    }

    /// `format=auto&stream=1` is answered as `stream=1` of the chosen format: AVIF and WebP do not stream, nor does a
    /// source passed through (400, JSON). Settings neither AVIF nor WebP both take are refused whatever the Accept,
    /// so one URL never answers 200 to one browser and 400 to another.
    @Test func streamAndSettingsRefusals() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let server = try await RunningServer.start(ServerTests.configuration(cache))
        let refusals: [(String, String, String)] = [
            ("format=auto&stream=1", BrowserAccept.chromium, "format=avif: stream is for mp4 and webm"),
            ("format=auto&stream=1", BrowserAccept.chrome84, "format=webp: stream is for mp4 and webm"),
            ("format=auto&stream=1", BrowserAccept.old,
             "format=auto: this Accept takes neither AVIF nor WebP, so the source is passed through whole; stream is for mp4 and webm"),
            ("format=auto&crf=30", BrowserAccept.chromium,
             "format=auto: crf= is not taken: auto answers AVIF or WebP, and takes the settings both take (width, height, scale and target-size)"),
            ("format=auto&quality=80", BrowserAccept.old,
             "format=auto: quality= is not taken: auto answers AVIF or WebP, and takes the settings both take (width, height, scale and target-size)"),
        ]
        for (query, accept, message) in refusals {
            let reply = try await server.send(.POST, "/v1/convert?\(query)", body: ServerTests.gif, headers: [("Accept", accept)])
            #expect(reply.status == 400 && reply.code == "bad_query", "\(query): \(reply.status)")
            #expect(reply.json["message"] as? String == message, "\(query)")
            #expect(reply.header("Content-Type") == "application/json")
        }
        try await server.stop()
    }

    /// A GIF that plays 3 times stays at 3 plays in the AVIF and the WebP that `format=auto` answers with: read back
    /// by gifx's own `timeline --json` (the AVIF's edit list) and by webpmux (the WebP's loop count).
    @Test(.enabled(if: workerBinary != nil, "the gifx binary is not built beside the tests"))
    func loopCountsStayExact() async throws {
        let binary = try #require(workerBinary)
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        // NETSCAPE2.0 loop count 3: 3 plays under the service's policy (flanimated, the reference players').
        var fixture = FixtureGIF.solidFrames(width: 32, height: 24, colorIndices: [1, 2, 3], delays: [5, 7, 9])
        fixture.loopCounts = [3]
        let gif = try fixture.encode()
        func plays(_ path: String) throws -> Int? {
            let run = try CapturedRun.run(binary, ["timeline", path, "--json"])
            let json = try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any]
            return (json?["loop"] as? [String: Any])?["plays"] as? Int
        }
        let input = cache + "/in.gif"
        try gif.write(to: URL(fileURLWithPath: input))
        #expect(try plays(input) == 3, "the fixture itself")
        let server = try await RunningServer.start(ServerTests.configuration(cache))
        let avif = try await server.send(.POST, "/v1/convert?format=auto", body: gif, headers: [("Accept", BrowserAccept.firefox)])
        let webp = try await server.send(.POST, "/v1/convert?format=auto", body: gif, headers: [("Accept", BrowserAccept.chrome84)])
        try await server.stop()
        #expect(avif.header("X-Gifx-Format") == "avif" && webp.header("X-Gifx-Format") == "webp")
        let avifPath = cache + "/out.avif", webpPath = cache + "/out.webp"
        try avif.body.write(to: URL(fileURLWithPath: avifPath))
        try webp.body.write(to: URL(fileURLWithPath: webpPath))
        #expect(try plays(avifPath) == 3)
        let info = try CapturedRun.run(tool("webpmux"), ["-info", webpPath]).stdoutText
        #expect(info.contains("Loop Count : 3"), "\(info)")
    }
}

/// `format:auto` in a signed URL's options: the same choice, headers and entries as POST's, and `If-None-Match` of
/// the chosen answer's ETag is 304 with `Vary: Accept`.
@Suite(.serialized, .enabled(if: oracleAvailable("openssl"), "openssl, the oracle, is not installed"))
struct AutoFormatSignedTests {
    @Test func aSignedURLChoosesByAccept() async throws {
        let origin = try await LocalOrigin.start()
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let server = try await RunningServer.start(SignedURLTests.configuration(cache, origins: ["http://127.0.0.1:\(origin.port)"]))
        let path = try SignedURLTests.signedPath("format:auto,width:16", "http://127.0.0.1:\(origin.port)/a.gif")
        let posted = try await server.send(.POST, "/v1/convert?format=avif&width=16", body: ServerTests.gif)
        let avif = try await server.send(.GET, path, headers: [("Accept", BrowserAccept.firefox)])
        #expect(avif.status == 200, "\(avif.json)")
        #expect(avif.header("Content-Type") == "image/avif" && avif.header("X-Gifx-Format") == "avif")
        #expect(avif.header("Vary") == "Accept")
        #expect(avif.header("Cache-Control") == "public, max-age=31536000, immutable")
        #expect(avif.header("X-Gifx-Key") == posted.header("X-Gifx-Key") && avif.body == posted.body)
        let eTag = try #require(avif.header("ETag"))
        // A client that follows no redirect: AsyncHTTPClient's default follows a 304's `Location` to /v1/o/KEY.
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        var conditional = HTTPClientRequest(url: "http://127.0.0.1:\(server.port)\(path)")
        conditional.headers.add(name: "Accept", value: BrowserAccept.chromium)
        conditional.headers.add(name: "If-None-Match", value: eTag)
        let notModified = try await client.execute(conditional, timeout: .seconds(60))
        try await client.shutdown()
        #expect(notModified.status.code == 304)
        #expect(notModified.headers.first(name: "Vary") == "Accept" && notModified.headers.first(name: "X-Gifx-Format") == "avif")
        #expect(notModified.headers.first(name: "ETag") == eTag)

        let source = try await server.send(.GET, path, headers: [("Accept", BrowserAccept.old)])
        #expect(source.status == 200, "\(source.json)")
        #expect(source.header("Content-Type") == "image/gif" && source.header("X-Gifx-Format") == "source")
        #expect(source.header("Vary") == "Accept" && source.body == ServerTests.gif)
        #expect(source.header("ETag") != eTag)
        try await server.stop()
    }
}
