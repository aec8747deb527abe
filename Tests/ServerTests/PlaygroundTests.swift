import ChildProcesses
import Foundation
import GifFixtures
import GifxServer
import Testing

/// `gifx serve --playground` (issue 60): GET /playground is 404 unless the flag is given, then one page whose
/// script and styles the `Content-Security-Policy` allows by hash (computed here by openssl), listing the animated
/// outputs the registry serves and what the service asks for; POST /v1/timeline?format=svg draws the body's schedule
/// (read back by Python's XML parser: one bar per frame, as wide as its delay) and refuses bad input in JSON.
@Suite(.serialized, .enabled(if: oracleAvailable("openssl", "python3"), "openssl or python3 is not installed"))
struct PlaygroundTests {
    static func configuration(_ cache: String, playground: Bool, token: String? = nil) -> ServerConfiguration {
        var configuration = ServerTests.configuration(cache)
        configuration.playground = playground
        configuration.bearerToken = token
        configuration.maxBodyBytes = 1 << 20
        return configuration
    }

    /// base64 of SHA-256 over `text`, by openssl.
    static func hash(_ text: String) throws -> String {
        let run = try CapturedRun.run(
            tool("bash"), ["-c", "openssl dgst -sha256 -binary | base64 -w0"], stdin: Data(text.utf8))
        return String(decoding: run.stdout, as: UTF8.self)
    }

    /// The text between the first `<tag>` and its `</tag>` in `text`.
    static func element(_ tag: String, in text: String) throws -> String {
        let open = try #require(text.range(of: "<\(tag)>"))
        let close = try #require(text.range(of: "</\(tag)>", range: open.upperBound..<text.endIndex))
        return String(text[open.upperBound..<close.lowerBound])
    }

    @Test func thePageIsOffWithoutTheFlag() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let server = try await RunningServer.start(Self.configuration(cache, playground: false))
        let page = try await server.send(.GET, "/playground")
        let posted = try await server.send(.POST, "/playground")
        try await server.stop()
        #expect(page.status == 404 && page.code == "not_found")
        #expect(page.header("Content-Type") == "application/json")
        #expect(posted.status == 405 && posted.header("Allow") == "GET")
    }

    @Test func thePageAllowsOnlyItsOwnScriptAndStylesAndAsksForTheToken() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let server = try await RunningServer.start(Self.configuration(cache, playground: true, token: "s3cret"))
        let page = try await server.send(.GET, "/playground")  // no token: the page holds no secret
        let picture = try await server.send(
            .POST, "/v1/timeline?format=svg", body: ServerTests.gif, headers: [("Authorization", "Bearer s3cret")])
        let refused = try await server.send(.POST, "/v1/timeline?format=svg", body: ServerTests.gif)
        try await server.stop()
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(page.status == 200)
        #expect(page.header("Content-Type") == "text/html; charset=utf-8")
        #expect(page.header("X-Content-Type-Options") == "nosniff")
        let policy = try #require(page.header("Content-Security-Policy"))
        let directives = Dictionary(
            policy.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.map {
                (String($0.prefix { $0 != " " }), String($0.drop { $0 != " " }.dropFirst()))
            }, uniquingKeysWith: { first, _ in first })
        #expect(directives["default-src"] == "'none'")
        #expect(directives["script-src"] == "'sha256-\(try Self.hash(try Self.element("script", in: html)))'")
        // The page's style and the picture's, both by hash: the picture's <style> is the route's own.
        #expect(picture.status == 200)
        let pictureStyle = try Self.element("style", in: String(decoding: picture.body, as: UTF8.self))
        #expect(directives["style-src"] == "'sha256-\(try Self.hash(try Self.element("style", in: html)))' 'sha256-\(try Self.hash(pictureStyle))'")
        #expect(directives["connect-src"] == "'self'")
        // Nothing loaded from elsewhere, no markup inserted from script.
        #expect(!html.contains("http://") && !html.contains("https://") && !html.contains("innerHTML"))
        #expect(html.components(separatedBy: "<script").count == 2)
        // The animated outputs the registry serves, in its order; the token asked for; no signing key.
        #expect(html.contains("data-formats=\"mp4 video/mp4,webm video/webm,avif image/avif,webp image/webp,apng image/apng\""))
        #expect(html.contains("data-token=\"1\"") && html.contains("data-signing=\"0\"") && html.contains("data-max-body=\"1048576\""))
        #expect(refused.status == 401 && refused.code == "unauthorized")
    }

    /// The picture's bars, read by Python's XML parser: (title, [(frame, width)], the caption).
    static func bars(_ svg: Data) throws -> (title: String, bars: [[Int]]) {
        let script = """
            import json, sys, xml.etree.ElementTree as ET
            ns = {'s': 'http://www.w3.org/2000/svg'}
            root = ET.fromstring(sys.stdin.buffer.read())
            bars = [[int(r.get('data-frame')), int(r.get('width'))]
                    for s in root.iter('{http://www.w3.org/2000/svg}svg') if 'schedule' in s.get('class', '').split()
                    for r in s.findall('s:rect', ns) if 'frame' in r.get('class', '').split()]
            print(json.dumps({'title': root.find('s:title', ns).text, 'bars': bars}))
            """
        let run = try CapturedRun.run(tool("python3"), ["-c", script], stdin: svg)
        let object = try #require(
            try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any],
            "\(String(decoding: run.stderr, as: UTF8.self))")
        return (object["title"] as? String ?? "", object["bars"] as? [[Int]] ?? [])
    }

    @Test func theSVGRouteDrawsOneBarPerFrameAsWideAsItsDelay() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let server = try await RunningServer.start(Self.configuration(cache, playground: false))
        let title = "<script>alert(1)</script>&.gif"
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let reply = try await server.send(
            .POST, "/v1/timeline?format=SVG&title=" + title.addingPercentEncoding(withAllowedCharacters: allowed)!,
            body: ServerTests.gif)
        try await server.stop()
        #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
        #expect(reply.header("Content-Type") == "image/svg+xml; charset=utf-8")
        #expect(reply.header("Content-Length") == String(reply.body.count))
        #expect(!String(decoding: reply.body, as: UTF8.self).contains("<script>"))
        let read = try Self.bars(reply.body)
        #expect(read.title == title)
        // ServerTests.gif: delays 4, 8, 6, 10 cs.
        #expect(read.bars == [[0, 4], [1, 8], [2, 6], [3, 10]])
    }

    @Test func badInputIsAJSONErrorWithItsStatus() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let server = try await RunningServer.start(Self.configuration(cache, playground: true))
        let frames = TimelinePictureControllerLimit.frames + 1
        let tooMany = try FixtureGIF.solidFrames(
            width: 1, height: 1, colorIndices: [UInt8](repeating: 1, count: frames), delays: [Int?](repeating: 2, count: frames)).encode()
        let cases: [(String, Data, Int, String)] = [
            ("/v1/timeline", ServerTests.gif, 400, "bad_query"),
            ("/v1/timeline?format=json", ServerTests.gif, 400, "bad_query"),
            ("/v1/timeline?format=svg&width=2", ServerTests.gif, 400, "bad_query"),
            ("/v1/timeline?format=svg", Data("not an image at all".utf8), 415, "unsupported_format"),
            ("/v1/timeline?format=svg", Data(), 415, "unsupported_format"),
            ("/v1/timeline?format=svg", ServerTests.gif.prefix(40), 422, "damaged_gif"),
            ("/v1/timeline?format=svg", Data(count: (1 << 20) + 1), 413, "body_too_large"),
            ("/v1/timeline?format=svg", tooMany, 422, "too_many_frames"),
        ]
        for (path, body, status, code) in cases {
            let reply = try await server.send(.POST, path, body: body)
            #expect(reply.status == status && reply.code == code, "\(path), \(body.count) bytes: \(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
            #expect(reply.header("Content-Type") == "application/json")
        }
        // And the service still answers.
        let after = try await server.send(.POST, "/v1/timeline?format=svg", body: ServerTests.gif)
        try await server.stop()
        #expect(after.status == 200)
        #expect(leftovers(in: cache).isEmpty, "\(leftovers(in: cache))")
    }
}

/// The most frames the picture route draws (`TimelinePictureController.maximumFrames`, internal to the service): a
/// change there should be a change here too.
enum TimelinePictureControllerLimit {
    static let frames = 20_000
}
