import ChildProcesses
import Foundation
import GifFixtures
import Testing

/// `gifx embed`: the markup parses with no error in html5lib's strict parser; its sources come in the order and with
/// the types the issue names; every URL is signed as docs/serve.md says (checked with Python's hmac, not gifx's); the
/// loop count gives `loop`, nothing, or the replay script, whose logic is run in node against a stand-in video; and a
/// file name made of markup comes back as text.
@Suite(.enabled(if: HTML5Lib.available, "html5lib (python3 -m pip install html5lib; make deps) is not installed"))
struct EmbedCommandTests {
    static let key = "0123456789abcdef0123456789abcdef-embed-key"
    static let source = "https://media.example/cats/cat.gif"
    static let base = "https://gifx.example"

    /// 24×16, delays 10, 10, 20 cs: tick 10 cs (10 fps). H.264 level 1 (level_idc 10: 2 macroblocks a frame, 20 a
    /// second, Table A-1) and AV1 level 2.0 (seq_level_idx 0: 384 samples, 3,840 a second, Annex A.3) hold it.
    static func gif(loopCounts: [Int]) -> FixtureGIF {
        .solidFrames(width: 24, height: 16, colorIndices: [1, 2, 3], delays: [10, 10, 20], loopCounts: loopCounts)
    }

    func embed(_ gif: FixtureGIF, name: String = "in.gif", extra: [String] = []) throws -> (html: String, parsed: HTML5Lib.Result) {
        let folder = try temporaryFolder()
        let input = try writeGIF(gif, to: folder, name: name)
        let keyFile = folder.appendingPathComponent("signing.key")
        try Data((Self.key + "\n").utf8).write(to: keyFile)
        let run = try runGifx(
            ["embed", input, "--source", Self.source, "--base-url", Self.base, "--signing-key-file", keyFile.path] + extra)
        #expect(run.status == 0, "\(run.stderr)")
        let html = String(decoding: run.stdout, as: UTF8.self)
        let parsed = try HTML5Lib.check(html, fragment: true)
        #expect(parsed.errors.isEmpty, "\(parsed.errors)\n\(html)")
        return (html, parsed)
    }

    /// Checks a signed URL with Python's hmac and returns its options segment and decoded source.
    func unsign(_ url: String) throws -> (options: String, source: String) {
        #expect(url.hasPrefix(Self.base + "/v1/"), "\(url)")
        let path = String(url.dropFirst(Self.base.count + 4))
        let script = """
            import base64, hmac, hashlib, sys
            sig, opts, src = sys.argv[2].split('/')
            mac = base64.urlsafe_b64encode(hmac.new(sys.argv[1].encode(), ('/' + opts + '/' + src).encode(), hashlib.sha256).digest()).decode().rstrip('=')
            print('ok' if hmac.compare_digest(mac, sig) else 'bad')
            print(opts)
            print(base64.urlsafe_b64decode(src + '=' * (-len(src) % 4)).decode())
            """
        let run = try CapturedRun.run(Oracle.tool("python3"), ["-c", script, Self.key, path])
        let lines = String(decoding: run.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
        try #require(lines.count == 3, "\(String(decoding: run.stderr, as: UTF8.self))")
        #expect(lines[0] == "ok", "the signature of \(url) is not the key's HMAC")
        return (lines[1], lines[2])
    }

    @Test func videoAndPictureSourcesInOrderWithSignedURLs() throws {
        let (_, parsed) = try embed(Self.gif(loopCounts: [0]))
        let video = try #require(parsed.elements.first { $0.tag == "video" })
        for attribute in ["autoplay", "muted", "playsinline", "loop"] { #expect(video.attributes[attribute] != nil, "\(attribute)") }
        #expect(video.attributes["width"] == "24" && video.attributes["height"] == "16")
        #expect(video.attributes["data-gifx-plays"] == nil)
        #expect(try unsign(try #require(video.attributes["poster"])).options == "format:jpg")
        let videoSources = parsed.elements.filter { $0.tag == "source" && $0.parent == "video" }
        #expect(videoSources.map { $0.attributes["type"] ?? "" } == [
            "video/mp4; codecs=\"av01.0.00M.08\"", "video/webm; codecs=\"vp9\"", "video/mp4; codecs=\"avc1.64000A\"",
        ])
        #expect(try videoSources.map { try unsign($0.attributes["src"] ?? "").options } == ["format:mp4,codec:av1", "format:webm", "format:mp4"])
        for source in videoSources { #expect(try unsign(source.attributes["src"] ?? "").source == Self.source) }
        let pictureSources = parsed.elements.filter { $0.tag == "source" && $0.parent == "picture" }
        #expect(pictureSources.map { $0.attributes["type"] ?? "" } == ["image/avif", "image/webp"])
        #expect(try pictureSources.map { try unsign($0.attributes["srcset"] ?? "").options } == ["format:avif", "format:webp"])
        let image = try #require(parsed.elements.first { $0.tag == "img" })
        #expect(image.parent == "picture")
        #expect(image.attributes["src"] == Self.source)
        #expect(image.attributes["width"] == "24" && image.attributes["height"] == "16")
        #expect(image.attributes["alt"] == "in.gif")
        #expect(!parsed.elements.contains { $0.tag == "script" }, "a GIF that loops forever needs no script")
    }

    @Test func aGIFOfOnePlayGetsNeitherLoopNorScript() throws {
        let (_, parsed) = try embed(Self.gif(loopCounts: [1]))
        let video = try #require(parsed.elements.first { $0.tag == "video" })
        #expect(video.attributes["loop"] == nil)
        #expect(video.attributes["data-gifx-plays"] == nil)
        #expect(!parsed.elements.contains { $0.tag == "script" })
    }

    /// Loop count 3 (flanimated: 3 plays): no `loop`, the count on the video, and the script right after it, which,
    /// run in node with a stand-in video that ends each time it is played, plays it 3 times in all.
    @Test(.enabled(if: Oracle.find("node") != nil, "node is not installed"))
    func aGIFOfThreePlaysGetsTheReplayScript() throws {
        let (_, parsed) = try embed(Self.gif(loopCounts: [3]))
        let video = try #require(parsed.elements.first { $0.tag == "video" })
        #expect(video.attributes["loop"] == nil)
        #expect(video.attributes["data-gifx-plays"] == "3")
        let index = try #require(parsed.elements.firstIndex { $0.tag == "script" })
        // The script follows the video as its next sibling element (the picture is inside the video).
        let after = parsed.elements[index...].first!
        #expect(after.parent == "" && parsed.elements[..<index].last { $0.parent == "" }?.tag == "video")
        let script = after.text
        for plays in [3, 2, 5] {
            let harness = """
                let starts = 1, handlers = [];
                const video = {
                  currentTime: 7,
                  getAttribute(name) { return name === "data-gifx-plays" ? "\(plays)" : null; },
                  addEventListener(type, f) { if (type === "ended") handlers.push(f); },
                  play() { if (this.currentTime !== 0) throw new Error("replayed without rewinding"); starts += 1; this.currentTime = 7; },
                };
                globalThis.document = { currentScript: { previousElementSibling: video } };
                \(script)
                // Each play ends; the browser fires ended once per end. Stop when no new play began.
                for (let ends = 0; ends < 20; ends++) {
                  const before = starts;
                  handlers.forEach(f => f());
                  if (starts === before) break;
                }
                console.log(starts);
                """
            let run = try CapturedRun.run(Oracle.tool("node"), ["-e", harness])
            #expect(String(decoding: run.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "\(plays)",
                    "\(String(decoding: run.stderr, as: UTF8.self))")
        }
    }

    @Test func aNameMadeOfMarkupIsText() throws {
        let name = "x\"><script>alert(1)<\\script><img src=x onerror=alert(2)>&amp;.gif"
        let (html, parsed) = try embed(Self.gif(loopCounts: [0]), name: name)
        #expect(!html.contains("<script>alert"))
        #expect(parsed.elements.first { $0.tag == "img" }?.attributes["alt"] == name)
        #expect(parsed.elements.filter { $0.tag == "img" }.count == 1)
        let alt = "<b>\"a\" & 'b'</b>"
        let (_, given) = try embed(Self.gif(loopCounts: [0]), extra: ["--alt", alt])
        #expect(given.elements.first { $0.tag == "img" }?.attributes["alt"] == alt)
    }

    @Test func usageMistakesExit64InOneLine() throws {
        let folder = try temporaryFolder()
        let input = try writeGIF(Self.gif(loopCounts: [0]), to: folder)
        let keyFile = folder.appendingPathComponent("k")
        try Data(Self.key.utf8).write(to: keyFile)
        let short = folder.appendingPathComponent("short")
        try Data("short".utf8).write(to: short)
        let cases: [([String], String)] = [
            (["--source", "media.example/cat.gif", "--base-url", Self.base, "--signing-key-file", keyFile.path], "--source"),
            (["--source", Self.source, "--base-url", "gifx.example", "--signing-key-file", keyFile.path], "--base-url"),
            (["--source", Self.source, "--base-url", Self.base, "--signing-key-file", short.path], "at least 32 bytes"),
        ]
        for (arguments, words) in cases {
            let run = try runGifx(["embed", input] + arguments)
            #expect(run.status == 64, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains(words), "\(run.stderr)")
        }
        let missing = try runGifx(
            ["embed", "/nonexistent/in.gif", "--source", Self.source, "--base-url", Self.base, "--signing-key-file", keyFile.path])
        #expect(missing.status == 66)
        #expect(missing.stderrLines.count == 1)
    }
}
