import ChildProcesses
import Foundation
import GifFixtures
import Testing

/// AV1 repeat pictures through the command line (docs/repeats.md, "How (AV1)"): `to-mp4 --codec av1` and
/// `convert -o x.webm --codec av1` write SVT-AV1's pictures (libaom real-time's under 64 pixels a side) and
/// `show_existing_frame` repeats, `--stats`
/// counts them (5 bytes each: a temporal delimiter and a one-byte frame header), key frames follow the seconds
/// rule with the copy after each coded, `GIFX_REPEATS=encode` gives the old path (SVT-AV1 or libaom, every copy
/// encoded), and `gifx verify` takes the outputs. Judged by FFmpeg's libdav1d and libaom decoders
/// (`-err_detect explode`), the dav1d CLI and the fixture's own delays.
@Suite(.enabled(
    if: ffprobeAvailable() && oracleAvailable("dav1d"),
    "ffprobe/ffmpeg (Debian package ffmpeg) or dav1d, the oracles, are not installed"))
struct AV1RepeatPicturesCommandTests {
    static let delays = RepeatPicturesCommandTests.delays
    static let outputFrames = RepeatPicturesCommandTests.outputFrames
    /// RepeatPicturesCommandTests' delays at 96x64 (SVT-AV1's size on the old path) and at its own 40x24 (libaom's).
    static func fixture(width: Int, height: Int) -> FixtureGIF {
        FixtureGIF.solidFrames(width: width, height: height, colorIndices: [1, 2, 3, 4, 5, 6, 7], delays: delays)
    }

    static func hashes(_ arguments: [String]) throws -> [String] {
        try RepeatPicturesCommandTests.framemd5(arguments).map {
            $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        }
    }

    @Test("MP4 and WebM, 96x64 and 40x24: --stats' pictures, key frames, three decoders agree, repeats are copies, verify passes",
          arguments: [("mp4", 96, 64), ("webm", 96, 64), ("mp4", 40, 24)])
    func repeatPictures(container: String, width: Int, height: Int) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.fixture(width: width, height: height), to: folder)
        let output = folder.appendingPathComponent("out.\(container)").path
        let old = folder.appendingPathComponent("old.\(container)").path
        let command = container == "mp4" ? ["to-mp4", input, "-o"] : ["convert", input, "-o"]
        let run = try runGifx(command + [output, "--codec", "av1", "--stats"], timeout: 180)
        #expect(run.status == 0, "\(run.stderr)")
        let stats = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        let first = try #require((stats["outputs"] as? [[String: Any]])?.first)
        let pictures = try #require(first["pictures"] as? [String: Int])
        let encoder = try #require(first["encoder"] as? [String: Any])
        // SVT-AV1 from 64 pixels a side (the shown frames it keeps in no slot stored in slot 7), libaom
        // real-time below
        let svt = width >= 64 && height >= 64
        #expect(encoder["encoder"] as? String == (svt ? "libsvtav1" : "libaom-av1"))
        #expect(encoder["setting"] as? String == (svt
            ? "libsvtav1 preset medium, hierarchical-levels=3, crf 32 (repeat pictures)" : "libaom real-time cpu-used 8 (repeat pictures)"))
        #expect(first["frames"] as? Int == Self.outputFrames)
        // one picture per GIF frame, and the copy after the key frame (the first: the default counts 250 pictures)
        // coded
        #expect(pictures["encoded"] == Self.delays.count + 1)
        #expect(pictures["repeats"] == Self.outputFrames - Self.delays.count - 1)
        #expect(pictures["repeatBytes"] == 5 * (pictures["repeats"] ?? 0))
        try RepeatPicturesCommandTests.expectKeyframes(first, output, interval: nil, required: [0])

        // libdav1d, libaom and dav1d decode the same frames; within each GIF frame's run every frame but the one
        // after a key frame (coded) is the one before it; the old path has the frame count and duration
        let dav1dFFmpeg = try Self.hashes(["-c:v", "libdav1d", "-i", output])
        #expect(dav1dFFmpeg.count == Self.outputFrames)
        #expect(try Self.hashes(["-c:v", "libaom-av1", "-i", output]) == dav1dFFmpeg)
        let ivf = folder.appendingPathComponent("out.ivf").path
        _ = try runTool(Oracle.tool("ffmpeg"), ["-v", "error", "-nostdin", "-i", output, "-c", "copy", "-f", "ivf", ivf])
        let yuv = folder.appendingPathComponent("dav1d.yuv").path
        let dav1d = try CapturedRun.run(Oracle.tool("dav1d"), ["-q", "-i", ivf, "-o", yuv])
        #expect(dav1d.status == 0 && dav1d.stderr.isEmpty, "\(String(decoding: dav1d.stderr, as: UTF8.self))")
        let raw = try Self.hashes(["-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "\(width)x\(height)", "-i", yuv])
        #expect(raw == dav1dFFmpeg)
        var start = 0
        for (k, delay) in Self.delays.enumerated() {
            let coded = k == 0 ? 2 : 1  // the key frame at 0 and its copy
            for f in (start + coded)..<(start + delay) where f < dav1dFFmpeg.count {
                #expect(dav1dFFmpeg[f] == dav1dFFmpeg[f - 1], "output frame \(f)")
            }
            start += delay
        }
        #expect(try runGifx(command + [old, "--codec", "av1"], timeout: 300, environment: ["GIFX_REPEATS": "encode"]).status == 0)
        func probe(_ path: String) throws -> String {
            String(decoding: try runTool(Oracle.tool("ffprobe"), [
                "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                "stream=nb_read_frames:format=duration", "-of", "default=nw=1", path,
            ]), as: UTF8.self)
        }
        let probed = try probe(output)
        #expect(probed.contains("nb_read_frames=\(Self.outputFrames)"), "\(probed)")
        #expect(probed.contains("duration=8.12"), "\(probed)")
        #expect(try probe(old) == probed)

        let verified = try runGifx(["verify", input, output], timeout: 180)
        #expect(verified.status == 0, "\(verified.stdoutText) \(verified.stderr)")
    }
}
