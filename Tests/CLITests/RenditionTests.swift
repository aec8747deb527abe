import ChildProcesses
import Foundation
import GifFixtures
import Testing

/// `convert` with per-output settings in the `-o` prefix (issue 26, renditions): GIPHY-style sizes from one
/// decode, each output at its own size, codec and quality, read back by ffprobe and webpmux.
@Suite struct RenditionTests {
    /// 64x36 (16:9), six frames of distinct colours. (HEVC is not among the renditions: libx265 3.5 corrupts its
    /// heap on frames about 36x20 to 42x24, the ffmpeg CLI's too; see docs/delivery.md.)
    static let fixture = FixtureGIF.solidFrames(
        width: 64, height: 36, colorIndices: [1, 2, 3, 4, 5, 6], delays: [10, 20, 10, 30, 10, 20])

    static func streamSize(_ path: String) throws -> (Int, Int, String) {
        let run = try CapturedRun.run(
            Oracle.tool("ffprobe"),
            ["-v", "error", "-select_streams", "v", "-show_entries", "stream=width,height,codec_name", "-of", "csv=p=0", path])
        let fields = run.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",")
        guard fields.count == 3 else { return (0, 0, "") }
        return (Int(fields[1]) ?? 0, Int(fields[2]) ?? 0, String(fields[0]))
    }

    @Test(.enabled(if: oracleAvailable("ffprobe", "webpmux"), "ffprobe (ffmpeg) or webpmux (webp), the oracles, are not installed"))
    func oneDecodeWritesEveryRenditionAtItsOwnSize() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.fixture, to: folder)
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        let run = try runGifx([
            "convert", input, "-o", "width=48:\(path("w48.mp4"))", "-o", "height=20,crf=30:\(path("h20.mp4"))",
            "-o", "width=32,quality=80:\(path("w32.webp"))", "-o", path("still.jpg"), "-o", "scale=0.5,fps=vfr:\(path("half.webm"))",
            "--stats", "--quiet",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        // Sizes: 48 wide keeps 16:9 (27 -> 28 even); 20 high -> 35.6 -> 36 wide; 0.5 -> 32x18.
        let w48 = try Self.streamSize(path("w48.mp4"))
        #expect(w48.0 == 48 && w48.1 == 28 && w48.2 == "h264", "\(w48)")
        let h20 = try Self.streamSize(path("h20.mp4"))
        #expect(h20.0 == 36 && h20.1 == 20 && h20.2 == "h264", "\(h20)")
        let half = try Self.streamSize(path("half.webm"))
        #expect(half.0 == 32 && half.1 == 18 && half.2 == "vp9", "\(half)")
        let still = try Self.streamSize(path("still.jpg"))
        #expect(still.0 == 64 && still.1 == 36, "\(still)")
        let info = try CapturedRun.run(Oracle.tool("webpmux"), ["-info", path("w32.webp")]).stdoutText
        #expect(info.contains("Canvas size: 32 x 18"), "\(info)")
        // One decode: the GIF's six frames, once, for all five outputs.
        let stats = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        #expect(stats["frames"] as? Int == 6)
        #expect(stats["decodedFrames"] as? Int == 6)
        let outputs = try #require(stats["outputs"] as? [[String: Any]])
        #expect(outputs.map { $0["width"] as? Int } == [48, 36, 32, 64, 32])
    }

    @Test func badPrefixesAreOneLineUsageErrors() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.fixture, to: folder)
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        let cases: [(String, String)] = [
            ("colour=red:\(path("a.mp4"))", "unknown setting 'colour'"),
            ("width=0:\(path("a.mp4"))", "width=0"),
            ("width=10,height=10:\(path("a.mp4"))", "only one of width, height, scale"),
            ("quality=50:\(path("a.mp4"))", "use crf="),
            ("crf=30:\(path("a.webp"))", "for .mp4, .webm and .avif"),
            ("width=10:\(path("a.jpg"))", "poster is written at the GIF's size"),
            ("fps=fast:\(path("a.mp4"))", "auto, vfr, tick or a rate"),
        ]
        for (value, words) in cases {
            let run = try runGifx(["convert", input, "-o", value])
            #expect(run.status == 64, "\(value): \(run.stderr)")
            #expect(run.stderr.contains(words), "\(value): \(run.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["in.gif"])
        // A colon in a plain file name is a path, not a prefix.
        let plain = try runGifx(["convert", input, "-o", path("a:b.mp4"), "--quiet"])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(FileManager.default.fileExists(atPath: path("a:b.mp4")))
    }
}
