import ChildProcesses
import Foundation
import GifFixtures
import GifxServer
import Testing

/// `GET /v1/embed?source=URL`: the markup of `gifx embed` for a source on an allowed origin. It parses with no error in
/// html5lib's strict parser, its URLs are signed with the service's key (one of them fetched back converts), a text
/// made of markup comes back as text, and it needs the signing key, an allowed origin and a source that is an image.
/// Whether python3 has html5lib (make deps installs it).
let html5libAvailable = oracleAvailable("python3")
    && (try? CapturedRun.run(tool("python3"), ["-c", "import html5lib"]).status) == 0

@Suite(.serialized, .enabled(if: oracleAvailable("openssl") && html5libAvailable, "openssl, python3 or html5lib is not installed"))
struct EmbedRouteTests {
    /// html5lib's strict parse of `fragment`: its errors, then every element as `tag attr=value …` lines.
    static func parse(_ fragment: String) throws -> (errors: [String], elements: [[String: String]]) {
        let script = """
            import html5lib, json, sys
            parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
            try:
                tree = parser.parseFragment(sys.stdin.read()); errors = []
            except html5lib.html5parser.ParseError as e:
                tree = None; errors = [str(e)]
            out = []
            def walk(node):
                for child in node:
                    if isinstance(child.tag, str):
                        d = dict(child.attrib); d['<tag>'] = child.tag; out.append(d); walk(child)
            if tree is not None: walk(tree)
            print(json.dumps({'errors': errors, 'elements': out}))
            """
        let run = try CapturedRun.run(tool("python3"), ["-c", script], stdin: Data(fragment.utf8))
        let object = try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any]
        return (object?["errors"] as? [String] ?? ["no output: \(String(decoding: run.stderr, as: UTF8.self))"],
                object?["elements"] as? [[String: String]] ?? [])
    }

    static func query(_ items: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return items.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed)!)" }.joined(separator: "&")
    }

    @Test func markupParsesWithSignedURLsThatConvertWhenAsked() async throws {
        let origin = try await LocalOrigin.start()
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let server = try await RunningServer.start(
            SignedURLTests.configuration(cache, origins: ["http://127.0.0.1:\(origin.port)"]))
        let source = "http://127.0.0.1:\(origin.port)/a.gif"
        let alt = "\"><script>alert(1)</script>&"
        let reply = try await server.send(
            .GET, "/v1/embed?" + Self.query([("source", source), ("alt", alt), ("base", "https://cdn.example/")]))
        let html = String(decoding: reply.body, as: UTF8.self)
        #expect(reply.status == 200, "\(html)")
        #expect(reply.header("Content-Type") == "text/html; charset=utf-8")
        #expect(!html.contains("<script>alert"))
        let parsed = try Self.parse(html)
        #expect(parsed.errors.isEmpty, "\(parsed.errors)")
        let image = try #require(parsed.elements.first { $0["<tag>"] == "img" })
        #expect(image["alt"] == alt && image["src"] == source)
        // ServerTests.gif: 32×24, no loop extension but the default NETSCAPE count 0: forever.
        #expect(image["width"] == "32" && image["height"] == "24")
        let video = try #require(parsed.elements.first { $0["<tag>"] == "video" })
        #expect(video["loop"] != nil && video["width"] == "32")
        let sources = parsed.elements.filter { $0["<tag>"] == "source" }
        #expect(sources.count == 5)
        // Each URL is the path openssl signs for those options and this source.
        let h264 = try #require(sources[2]["src"])
        #expect(h264 == "https://cdn.example" + (try SignedURLTests.signedPath("format:mp4", source)))
        // Nothing was converted to write the markup; the H.264 URL converts when asked.
        #expect(try await server.metric("gifx_conversions_total{format=\"mp4\"}") == 0)
        let video264 = try await server.send(.GET, String(h264.dropFirst("https://cdn.example".count)))
        #expect(video264.status == 200 && video264.header("Content-Type") == "video/mp4")
        #expect(try await server.metric("gifx_conversions_total{format=\"mp4\"}") == 1)

        // Without base=, the URLs name the service as the request reached it.
        let plain = try await server.send(.GET, "/v1/embed?" + Self.query([("source", source)]))
        let plainHTML = String(decoding: plain.body, as: UTF8.self)
        #expect(plain.status == 200)
        #expect(plainHTML.contains("src=\"http://127.0.0.1:\(server.port)/v1/"), "\(plainHTML)")
        try await server.stop()
        await origin.stop()
    }

    @Test func refusals() async throws {
        let origin = try await LocalOrigin.start()
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let unsigned = try await RunningServer.start(ServerTests.configuration(cache))
        let off = try await unsigned.send(.GET, "/v1/embed?" + Self.query([("source", "http://127.0.0.1:\(origin.port)/a.gif")]))
        #expect(off.status == 404)
        try await unsigned.stop()

        let server = try await RunningServer.start(
            SignedURLTests.configuration(cache, origins: ["http://127.0.0.1:\(origin.port)"]))
        let cases: [(String, Int, String)] = [
            (Self.query([("source", "http://127.0.0.1:1/a.gif")]), 403, "origin_not_allowed"),
            (Self.query([("source", "a.gif")]), 400, "bad_source"),
            ("", 400, "bad_source"),
            (Self.query([("source", "http://127.0.0.1:\(origin.port)/a.gif"), ("width", "3")]), 400, "bad_query"),
            (Self.query([("source", "http://127.0.0.1:\(origin.port)/a.gif"), ("base", "cdn")]), 400, "bad_query"),
        ]
        for (query, status, code) in cases {
            let reply = try await server.send(.GET, "/v1/embed?" + query)
            let body = String(decoding: reply.body, as: UTF8.self)
            #expect(reply.status == status, "\(query): \(body)")
            #expect(body.contains("\"\(code)\""), "\(query): \(body)")
        }
        try await server.stop()
        await origin.stop()
    }
}
