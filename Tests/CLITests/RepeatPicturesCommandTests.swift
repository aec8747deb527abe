import ChildProcesses
import Foundation
import GifFixtures
import Testing

/// Repeat pictures through the command line (docs/repeats.md): `--stats` reports them, `-o -` streams them in a
/// fragmented MP4, `convert` and `gifx verify` take them, and `GIFX_REPEATS=encode` gives the old path. Judged
/// by FFmpeg (lossless encodes decode to the same frames both ways) and by the fixture's own delays.
@Suite(.enabled(if: ffprobeAvailable(), "ffprobe/ffmpeg (Debian package ffmpeg), the oracle, is not installed"))
struct RepeatPicturesCommandTests {
    /// A 1 cs tick (delays 2 and 3 cs) with long holds: 7 frames, 812 output frames at 100 fps.
    static let delays = [2, 300, 3, 250, 2, 252, 3]
    static let fixture = FixtureGIF.solidFrames(
        width: 40, height: 24, colorIndices: [1, 2, 3, 4, 5, 6, 7], delays: delays)
    static let outputFrames = delays.reduce(0, +)

    static func framemd5(_ arguments: [String], stdin: Data? = nil) throws -> [String] {
        let run = try CapturedRun.run(
            "/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-err_detect", "explode", "-xerror"] + arguments
                + ["-fps_mode", "passthrough", "-f", "framemd5", "-"], stdin: stdin)
        #expect(run.status == 0 && run.stderr.isEmpty, "\(String(decoding: run.stderr, as: UTF8.self))")
        return String(decoding: run.stdout, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }
            .map { $0.split(separator: ",").dropFirst(2).joined(separator: ",") }
    }

    @Test("--stats counts encoded and repeat pictures; the old path encodes every output frame")
    func statsCountPictures() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.fixture, to: folder)
        let output = folder.appendingPathComponent("out.mp4").path
        for encode in [false, true] {
            let run = try runGifx(
                ["to-mp4", input, "-o", output, "--overwrite", "--stats"], timeout: 120,
                environment: encode ? ["GIFX_REPEATS": "encode"] : nil)
            #expect(run.status == 0, "\(run.stderr)")
            let stats = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
            let pictures = try #require(stats["pictures"] as? [String: Int])
            #expect(stats["outputFrames"] as? Int == Self.outputFrames)
            #expect((pictures["encoded"] ?? 0) + (pictures["repeats"] ?? 0) == Self.outputFrames)
            let fileBytes = try #require(try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int)
            #expect((pictures["encodedBytes"] ?? 0) + (pictures["repeatBytes"] ?? 0) < fileBytes)
            if encode {
                #expect(pictures["repeats"] == 0 && pictures["repeatBytes"] == 0)
            } else {
                // one picture per GIF frame, plus a key frame forced inside a hold at most every 250 output frames
                let encoded = pictures["encoded"] ?? 0
                #expect(encoded >= Self.delays.count && encoded <= Self.delays.count + Self.outputFrames / 250)
                #expect((pictures["repeatBytes"] ?? 0) <= 16 * (pictures["repeats"] ?? 0))
            }
        }
    }

    @Test("-o - (fragmented, streamed), convert and the file: lossless frames equal the old path's; verify passes")
    func streamedAndConvert() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.fixture, to: folder)
        let old = folder.appendingPathComponent("old.mp4").path
        let file = folder.appendingPathComponent("new.mp4").path
        let converted = folder.appendingPathComponent("c.mp4").path
        #expect(try runGifx(["to-mp4", input, "-o", old, "--crf", "0"], timeout: 120,
                            environment: ["GIFX_REPEATS": "encode"]).status == 0)
        #expect(try runGifx(["to-mp4", input, "-o", file, "--crf", "0"], timeout: 120).status == 0)
        #expect(try runGifx(["convert", input, "-o", converted, "-o", folder.appendingPathComponent("c.webp").path,
                             "--crf", "0", "--verify"], timeout: 120).status == 0)
        let piped = try runGifx(["to-mp4", input, "-o", "-", "--crf", "0"], timeout: 120)
        #expect(piped.status == 0, "\(piped.stderr)")

        let expected = try Self.framemd5(["-i", old])
        #expect(expected.count == Self.outputFrames)
        #expect(try Self.framemd5(["-i", file]) == expected)
        #expect(try Self.framemd5(["-i", converted]) == expected)
        #expect(try Self.framemd5(["-f", "mp4", "-i", "pipe:0"], stdin: piped.stdout) == expected)
        for path in [file, converted] {
            let verified = try runGifx(["verify", input, path], timeout: 120)
            #expect(verified.status == 0, "\(verified.stdoutText) \(verified.stderr)")
        }
    }
}
