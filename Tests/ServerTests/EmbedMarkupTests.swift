import ChildProcesses
import Foundation
import GifxServer
import GifxTimeline
import Testing

/// The parts of `EmbedMarkup` a browser test cannot reach: the AV1 levels of the `codecs` string at sizes and rates the
/// fixtures do not have (worked by hand from the AV1 specification's Annex A, Table A.1: MaxPicSize, MaxHSize,
/// MaxVSize, MaxDisplayRate), and the replay script's hash that docs/serve.md gives for a Content-Security-Policy.
@Suite struct EmbedMarkupTests {
    @Test(arguments: [
        // width, height, fps, seq_level_idx
        (24, 16, Rational(10), 0),  // 384 samples, 3,840 a second: 2.0
        (480, 270, Rational(100), 4),  // 129,600 samples, 12,960,000 a second: over 2.1's 8,363,520, 3.0
        (640, 360, Rational(100, 3), 1),  // 230,400 samples, 7,680,000 a second: 2.1
        (2100, 10, Rational(10), 1),  // 21,000 samples but wider than 2.0's 2048: 2.1
        (1920, 1080, Rational(30), 8),  // 2,073,600 samples, 62,208,000 a second: 4.0
        (1920, 1080, Rational(60), 9),  // 124,416,000 a second: 4.1
        (4096, 2304, Rational(30), 16),  // 9,437,184 samples, over 5.x's 8,912,896: 6.0
        (20000, 20000, Rational(1), 31),  // beyond the table
    ])
    func av1Level(_ width: Int, _ height: Int, _ fps: Rational, _ level: Int) {
        #expect(EmbedMarkup.av1LevelIndex(width: width, height: height, fps: fps) == level)
    }

    /// The script's text, hashed by Python's hashlib, is the `'sha256-…'` source docs/serve.md gives.
    @Test(.enabled(if: oracleAvailable("python3"), "python3 is not installed"))
    func replayScriptHashIsTheDocumentedOne() throws {
        let script = EmbedMarkup.replayScript
        let body = try #require(script.range(of: "<script>").flatMap { open in
            script.range(of: "</script>").map { script[open.upperBound..<$0.lowerBound] }
        })
        let run = try CapturedRun.run(
            tool("python3"), ["-c", "import base64,hashlib,sys;print(base64.b64encode(hashlib.sha256(sys.stdin.buffer.read()).digest()).decode())"],
            stdin: Data(body.utf8))
        let hash = String(decoding: run.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(hash == "zSoCWi7GtVLNfbJk8L7wfuFlNj39wyixY+5/7MlTUC4=")
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let serve = try String(contentsOf: repository.appendingPathComponent("docs/serve.md"), encoding: .utf8)
        #expect(serve.contains("'sha256-\(hash)'"))
    }
}
