import ChildProcesses
import Foundation
import GifFixtures
import Testing

/// VP9 repeat pictures through the command line (docs/repeats.md): `convert --stats` reports them for a WebM,
/// `-o webm:-` streams them, `to-mp4 --codec vp9` writes them in MP4, `convert --verify` and `gifx verify` take
/// them, and `GIFX_REPEATS=encode` gives the old path. Judged by FFmpeg (lossless encodes decode to the same
/// frames both ways), libvpx's vpxdec and the fixture's own delays.
@Suite(.enabled(
    if: ffprobeAvailable() && oracleAvailable("vpxdec"),
    "ffprobe/ffmpeg (Debian package ffmpeg) or vpxdec (vpx-tools), the oracles, are not installed"))
struct VP9RepeatPicturesCommandTests {
    static let delays = RepeatPicturesCommandTests.delays
    static let fixture = RepeatPicturesCommandTests.fixture
    static let outputFrames = RepeatPicturesCommandTests.outputFrames

    @Test("convert --stats counts encoded and repeat pictures in a WebM (the default); the old path encodes every output frame")
    func statsCountPictures() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.fixture, to: folder)
        let output = folder.appendingPathComponent("out.webm").path
        for (encode, environment) in [(false, nil), (true, ["GIFX_REPEATS": "encode"])] as [(Bool, [String: String]?)] {
            let run = try runGifx(
                ["convert", input, "-o", output, "--overwrite", "--stats"], timeout: 120, environment: environment)
            #expect(run.status == 0, "\(run.stderr)")
            let stats = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
            let first = try #require((stats["outputs"] as? [[String: Any]])?.first)
            let pictures = try #require(first["pictures"] as? [String: Int])
            #expect(first["frames"] as? Int == Self.outputFrames)
            #expect((pictures["encoded"] ?? 0) + (pictures["repeats"] ?? 0) == Self.outputFrames)
            if encode {
                #expect(pictures["repeats"] == 0 && pictures["repeatBytes"] == 0)
            } else {
                // one picture per GIF frame, and the copy after the key frame (the first: the default counts 250
                // pictures) coded, so no repeat shows a key frame
                #expect(pictures["encoded"] == Self.delays.count + 1)
                // coded skip frames (VP9SkipFrame), tens of bytes each
                #expect((pictures["repeatBytes"] ?? 0) > 8 * (pictures["repeats"] ?? 0))
                #expect((pictures["repeatBytes"] ?? 0) < 64 * (pictures["repeats"] ?? 0))
            }
            try RepeatPicturesCommandTests.expectKeyframes(first, output, interval: nil, required: [0])
        }
    }

    @Test("-o webm:-, to-mp4 --codec vp9, convert --verify: lossless frames equal the old path's; verify passes")
    func streamedAndConvert() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.fixture, to: folder)
        let old = folder.appendingPathComponent("old.webm").path
        let file = folder.appendingPathComponent("new.webm").path
        let mp4 = folder.appendingPathComponent("vp9.mp4").path
        #expect(try runGifx(["convert", input, "-o", old, "--crf", "0"], timeout: 120,
                            environment: ["GIFX_REPEATS": "encode"]).status == 0)
        let verified = try runGifx(["convert", input, "-o", file, "--crf", "0", "--verify"], timeout: 120)
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(try runGifx(["to-mp4", input, "-o", mp4, "--codec", "vp9", "--crf", "0"], timeout: 120).status == 0)
        let piped = try runGifx(["convert", input, "-o", "webm:-", "--crf", "0"], timeout: 120)
        #expect(piped.status == 0, "\(piped.stderr)")

        let expected = try RepeatPicturesCommandTests.framemd5(["-i", old])
        #expect(expected.count == Self.outputFrames)
        #expect(try RepeatPicturesCommandTests.framemd5(["-i", file]) == expected)
        #expect(try RepeatPicturesCommandTests.framemd5(["-f", "webm", "-i", "pipe:0"], stdin: piped.stdout) == expected)
        // the MP4's timestamps are in its own time base: its hashes
        let hashes = expected.map { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
        let mp4Hashes = try RepeatPicturesCommandTests.framemd5(["-i", mp4]).map {
            $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
        #expect(mp4Hashes == hashes)
        // libvpx's own decoder agrees
        let vpxdec = try CapturedRun.run(Oracle.tool("vpxdec"), [
            "--md5", "--i420", "-o", folder.appendingPathComponent("f-%6.i420").path, file,
        ])
        #expect(vpxdec.status == 0 && vpxdec.stderr.isEmpty)
        let decoded = String(decoding: vpxdec.stdout, as: UTF8.self).split(separator: "\n").map {
            $0.split(separator: " ").first.map(String.init)
        }
        #expect(decoded == hashes)
        for path in [file, mp4] {
            let run = try runGifx(["verify", input, path], timeout: 120)
            #expect(run.status == 0, "\(run.stdoutText) \(run.stderr)")
        }
    }
}
