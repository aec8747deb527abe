import ChildProcesses
import Foundation
import GifFixtures
import Testing

/// `gifx convert -o X.webm` (VP9, alpha kept), `--codec av1` and `.jpg` posters, read back by the ffmpeg
/// CLI: libvpx decodes the alpha (`-c:v libvpx-vp9`, as browsers do), ffprobe reports the packets' times.
@Suite(.enabled(if: ffprobeAvailable(), "ffprobe/ffmpeg (Debian package ffmpeg), the oracle, is not installed"))
struct ConvertWebMTests {
    /// 32×32, three frames, delays 5, 6, 7 cs: (0) the left half transparent, the right half red; (1) green
    /// over the top-left quarter (the rest as before); (2) blue over the bottom-right quarter.
    static let side = 32
    static let gif = FixtureGIF(width: side, height: side, frames: [
        FixtureFrame(
            width: side, height: side,
            indices: (0..<side * side).map { $0 % side < side / 2 ? 0 : 1 }, delay: 5, transparentIndex: 0),
        FixtureFrame.solid(2, width: side / 2, height: side / 2, delay: 6),
        FixtureFrame.solid(3, left: side / 2, top: side / 2, width: side / 2, height: side / 2, delay: 7),
    ])

    /// Frame `frame`'s composite at (x, y): RGBA, alpha 0 where transparent.
    static func composite(_ frame: Int, x: Int, y: Int) -> [UInt8] {
        let half = side / 2
        if frame >= 1 && x < half && y < half { return [0, 255, 0, 255] }
        if frame >= 2 && x >= half && y >= half { return [0, 0, 255, 255] }
        return x < half ? [0, 0, 0, 0] : [255, 0, 0, 255]
    }

    /// How far (in pixels) `(x, y)` is from the nearest pixel whose alpha or colour differs in `frame`.
    static func distanceToEdge(_ frame: Int, x: Int, y: Int) -> Int {
        let here = composite(frame, x: x, y: y)
        for d in 1...3 {
            for (dx, dy) in [(-d, 0), (d, 0), (0, -d), (0, d), (-d, -d), (d, d), (-d, d), (d, -d)] {
                let nx = x + dx, ny = y + dy
                guard (0..<side).contains(nx), (0..<side).contains(ny) else { continue }
                if composite(frame, x: nx, y: ny) != here { return d }
            }
        }
        return 4
    }

    @Test func vp9KeepsAlphaAndColourAndTheExactSchedule() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.gif, to: folder)
        let webm = folder.appendingPathComponent("a.webm").path
        let run = try runGifx(["convert", input, "-o", webm, "--vfr", "--crf", "10", "--stats", "--quiet"], timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        let stats = String(decoding: run.stdout, as: UTF8.self)
        #expect(stats.contains("\"alpha\":true"), "\(stats)")
        #expect(stats.contains("\"codec\":\"vp9\""), "\(stats)")

        let stream = try probe(webm, entries: "stream=codec_name:stream_tags=alpha_mode,DURATION")
        #expect(stream["codec_name"] == "vp9")
        #expect(stream["TAG:alpha_mode"] == "1", "the WebM must say it carries alpha: \(stream)")
        // Packet times in ms (WebM's time base): each frame starts on its schedule; Matroska keeps no
        // per-block duration, so the last delay is in the stream's duration (18 cs in all).
        #expect(try packetTimes(webm) == ["0.000000", "0.050000", "0.110000"])
        #expect(stream["TAG:DURATION"] == "00:00:00.180000000")

        let frames = try decodeRGBA(webm, codec: "libvpx-vp9", frameBytes: Self.side * Self.side * 4)
        #expect(frames.count == 3)
        for (index, frame) in frames.enumerated() {
            var worstAlpha = 0, worstColour = 0
            for y in 0..<Self.side {
                for x in 0..<Self.side where Self.distanceToEdge(index, x: x, y: y) > 2 {
                    let expected = Self.composite(index, x: x, y: y)
                    let got = Array(frame[(y * Self.side + x) * 4..<(y * Self.side + x) * 4 + 4])
                    worstAlpha = max(worstAlpha, abs(Int(got[3]) - Int(expected[3])))
                    if expected[3] == 255 {
                        for c in 0..<3 { worstColour = max(worstColour, abs(Int(got[c]) - Int(expected[c]))) }
                    }
                }
            }
            #expect(worstAlpha <= 4, "frame \(index): alpha off by \(worstAlpha) away from edges")
            #expect(worstColour <= 12, "frame \(index): colour off by \(worstColour) under opaque pixels")
        }
    }

    /// An opaque GIF pays for no alpha plane: yuv420p, no alpha_mode, `alpha: false` in --stats.
    @Test func opaqueGIFGivesPlainYUV420() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(
            FixtureGIF.solidFrames(width: 16, height: 16, colorIndices: [1, 2], delays: [10, 20]), to: folder)
        let webm = folder.appendingPathComponent("a.webm").path
        let run = try runGifx(["convert", input, "-o", webm, "--stats", "--quiet"], timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(String(decoding: run.stdout, as: UTF8.self).contains("\"alpha\":false"))
        let stream = try probe(webm, entries: "stream=codec_name,pix_fmt:stream_tags=alpha_mode")
        #expect(stream["pix_fmt"] == "yuv420p")
        #expect(stream["TAG:alpha_mode"] == nil)
    }

    /// Full-canvas opaque frames disposed to the background (as some exporters write every frame) stay
    /// opaque: the next frame repaints the cleared area with a 256-colour palette and no transparent index.
    /// A smaller next frame, or an 8-colour palette (an index beyond it would leave the cleared pixel
    /// transparent), keeps alpha: the check is conservative, never wrong.
    @Test(arguments: [(256, 16, false), (8, 16, true), (256, 8, true)])
    func backgroundDisposalIsAlphaOnlyWhenTheCanvasCanClear(paletteSize: Int, secondSide: Int, alpha: Bool) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let palette = (0..<paletteSize).map { RGB(UInt8($0 % 256), UInt8(255 - $0 % 256), 128) }
        let gif = FixtureGIF(width: 16, height: 16, globalPalette: palette, frames: [
            .solid(1, width: 16, height: 16, delay: 10, disposal: 2),
            .solid(2, width: secondSide, height: secondSide, delay: 10, disposal: 2),
            .solid(3, width: 16, height: 16, delay: 10),
        ])
        let input = try writeGIF(gif, to: folder)
        let webm = folder.appendingPathComponent("a.webm").path
        let run = try runGifx(["convert", input, "-o", webm, "--stats", "--quiet"], timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(String(decoding: run.stdout, as: UTF8.self).contains("\"alpha\":\(alpha)"))
        let stream = try probe(webm, entries: "stream_tags=alpha_mode")
        #expect((stream["TAG:alpha_mode"] == "1") == alpha)
        if secondSide < 16 {
            // Frame 1 really shows transparent pixels (cleared by frame 0's disposal, not repainted): libvpx's
            // decode must give alpha 0 there and 255 under the 8x8 frame.
            let frames = try decodeRGBA(webm, codec: "libvpx-vp9", frameBytes: 16 * 16 * 4)
            #expect(frames.count == 3)
            if frames.count == 3 {
                #expect(frames[1][(2 * 16 + 2) * 4 + 3] > 250)
                #expect(frames[1][(12 * 16 + 12) * 4 + 3] < 5)
            }
        }
    }

    /// AV1 in MP4 and in WebM, every sample decoded (dav1d/libaom, by ffmpeg) at the exact schedule: 30 cs at
    /// the 10 cs tick is 3 frames. The 20 cs frame is shown for two ticks, so the stream has a repeat picture:
    /// SVT-AV1 from 64 pixels a side, libaom real-time below (docs/repeats.md, "How (AV1)"); with `--vfr`
    /// (nothing repeats) SVT-AV1 from 64 pixels a side, libaom below (SVT-AV1 refuses those), 2 frames.
    @Test(arguments: [("mp4", 64, "libsvtav1", false), ("webm", 64, "libsvtav1", false), ("mp4", 20, "libaom-av1", false),
                      ("mp4", 64, "libsvtav1", true), ("webm", 64, "libsvtav1", true), ("mp4", 20, "libaom-av1", true)])
    func av1WritesEveryFrameWithTheRightEncoder(container: String, side: Int, encoder: String, vfr: Bool) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(
            FixtureGIF.solidFrames(width: side, height: side, colorIndices: [1, 2], delays: [10, 20]), to: folder)
        let out = folder.appendingPathComponent("a.\(container)").path
        let run = try runGifx(
            ["convert", input, "-o", out, "--codec", "av1", "--preset", "ultrafast", "--stats", "--quiet"]
                + (vfr ? ["--vfr"] : []), timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        let stats = String(decoding: run.stdout, as: UTF8.self)
        #expect(stats.contains("\"encoder\":\"\(encoder)\""))
        #expect(stats.contains("(repeat pictures)") == !vfr, "\(stats)")
        let stream = try probe(out, entries: "stream=codec_name,width,height")
        #expect(stream["codec_name"] == "av1")
        #expect(stream["width"] == "\(side)")
        let frames = try decodeRGBA(out, codec: nil, frameBytes: side * side * 4)
        #expect(frames.count == (vfr ? 2 : 3))
        // Frame 0 red, frames 1-2 green (the 20 cs frame shown for two ticks; one frame with --vfr).
        let centre = (side / 2 * side + side / 2) * 4
        let colours = vfr ? [[255, 0, 0], [0, 255, 0]] : [[255, 0, 0], [0, 255, 0], [0, 255, 0]]
        for (index, colour) in colours.enumerated() where index < frames.count {
            let got = frames[index][centre..<centre + 3].map(Int.init)
            #expect(zip(got, colour).allSatisfy { abs($0 - $1) <= 16 }, "frame \(index): \(got)")
        }
    }

    /// A .jpg poster is the chosen frame over --background, at the canvas's own (odd) size.
    @Test func jpegPosterIsTheFrameOverTheBackground() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let width = 33, height = 17  // odd on both sides: JPEG keeps them (no padding to even), 4:4:4
        let gif = FixtureGIF(width: width, height: height, frames: [
            FixtureFrame(
                width: width, height: height, indices: (0..<width * height).map { $0 % width < 16 ? 0 : 1 },
                delay: 10, transparentIndex: 0),
            FixtureFrame.solid(3, width: width, height: height, delay: 10),
        ])
        let input = try writeGIF(gif, to: folder)
        let jpg = folder.appendingPathComponent("p.jpg").path
        let run = try runGifx(
            ["convert", input, "-o", jpg, "--background", "#00ff00", "--jpeg-quality", "100", "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        let stream = try probe(jpg, entries: "stream=codec_name,width,height")
        #expect(stream["codec_name"] == "mjpeg")
        #expect(stream["width"] == "\(width)" && stream["height"] == "\(height)")
        let rgba = try decodeRGBA(jpg, codec: nil, frameBytes: width * height * 4).first ?? []
        #expect(rgba.count == width * height * 4)
        guard rgba.count == width * height * 4 else { return }
        var worst = 0
        for y in 0..<height {
            for x in 0..<width where abs(x - 16) > 1 {  // away from the green | red edge (DCT ringing)
                let expected: [Int] = x < 16 ? [0, 255, 0] : [255, 0, 0]
                for c in 0..<3 { worst = max(worst, abs(Int(rgba[(y * width + x) * 4 + c]) - expected[c])) }
            }
        }
        #expect(worst <= 10, "JPEG off by \(worst)")
    }

    /// `--crf 60` is VP9's scale, not x264's: fine for a .webm alone.
    @Test func crfRangeFollowsTheCodec() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.gif, to: folder)
        let webm = folder.appendingPathComponent("a.webm").path
        let run = try runGifx(["convert", input, "-o", webm, "--crf", "60", "--quiet"], timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
    }
}

/// ffprobe's `key=value` lines for the first video stream's `entries`.
private func probe(_ path: String, entries: String) throws -> [String: String] {
    let data = try runTool(Oracle.tool("ffprobe"), [
        "-v", "error", "-select_streams", "v:0", "-show_entries", entries, "-of", "default=nw=1", path,
    ])
    var fields: [String: String] = [:]
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
        let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
        if parts.count == 2 { fields[parts[0]] = parts[1] }
    }
    return fields
}

/// Each packet's presentation time in seconds, as ffprobe prints it, in presentation order.
private func packetTimes(_ path: String) throws -> [String] {
    let data = try runTool(Oracle.tool("ffprobe"), [
        "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time", "-of", "csv=p=0", path,
    ])
    // A packet with side data (VP9's alpha) prints an empty side-data field after a comma.
    return String(decoding: data, as: UTF8.self).split(separator: "\n")
        .compactMap { $0.split(separator: ",").first.map(String.init) }
        .sorted { Double($0) ?? 0 < Double($1) ?? 0 }
}

/// Every frame decoded by the ffmpeg CLI to RGBA (`codec`: the decoder to force, e.g. libvpx-vp9 for alpha).
private func decodeRGBA(_ path: String, codec: String?, frameBytes: Int) throws -> [[UInt8]] {
    let decoder = codec.map { ["-c:v", $0] } ?? []
    let data = [UInt8](try runTool(Oracle.tool("ffmpeg"), ["-v", "error", "-nostdin"] + decoder + [
        "-i", path, "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "rgba", "-",
    ]))
    guard frameBytes > 0, data.count % frameBytes == 0 else {
        throw ToolRunError(description: "decoded \(data.count) bytes, not a multiple of \(frameBytes)")
    }
    return stride(from: 0, to: data.count, by: frameBytes).map { Array(data[$0..<$0 + frameBytes]) }
}

struct ToolRunError: Error, CustomStringConvertible { let description: String }

/// Runs a tool and returns its standard output; throws when it exits non-zero.
func runTool(_ tool: String, _ arguments: [String]) throws -> Data {
    let run = try CapturedRun.run(tool, arguments)
    guard run.status == 0 else {
        throw ToolRunError(description: "\(tool) \(arguments.joined(separator: " ")) exited \(run.status)")
    }
    return run.stdout
}
