import ChildProcesses
import Foundation
import GifFixtures
import Testing

/// `gifx convert -o X.avif`: an animated AVIF (AV1 image sequence) read back with libavformat through the
/// ffmpeg CLI: packet times and durations are the schedule, the stream duration the GIF's (the movie's is its
/// plays: AVIFPlaysTests), colours right, and
/// transparency composited over --background (FFmpeg 5.1's AVIF muxer has no alpha track).
@Suite(.enabled(if: ffprobeAvailable(), "ffprobe/ffmpeg (Debian package ffmpeg), the oracle, is not installed"))
struct ConvertAVIFTests {
    /// 64×64 (SVT-AV1's smallest), red 5 cs, green 6 cs, blue 7 cs: tick 1 cs, 18 cs in all.
    static let gif = FixtureGIF.solidFrames(width: 64, height: 64, colorIndices: [1, 2, 3], delays: [5, 6, 7])
    static let colours: [[Int]] = [[255, 0, 0], [0, 255, 0], [0, 0, 255]]

    /// `--fps tick` (MP4's default): true CFR at the 1 cs tick, every delay exact in the file; gifx warns
    /// that browsers do not keep 10 ms image frames (Firefox shows them for 100 ms).
    @Test func tickRateIsExactInPacketsDurationsAndColours() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.gif, to: folder)
        let avif = folder.appendingPathComponent("a.avif").path
        let run = try runGifx(
            ["convert", input, "-o", avif, "--fps", "tick", "--preset", "ultrafast", "--stats"], timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderrLines.count == 1 && run.stderr.contains("AVIF at 100 fps"), "\(run.stderr)")
        let stats = run.stdoutText
        #expect(stats.contains("\"kind\":\"avif\""), "\(stats)")
        #expect(stats.contains("\"codec\":\"av1\""), "\(stats)")
        #expect(stats.contains("\"encoder\":\"libsvtav1\""), "\(stats)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["a.avif", "in.gif"])

        let probed = try avifProbe(avif)
        #expect(probed.brand == "avis", "an animated AVIF's major brand: \(probed)")
        #expect(probed.stream["codec_name"] == "av1")
        #expect(probed.stream["pix_fmt"] == "yuv420p")
        #expect(probed.stream["r_frame_rate"] == "100/1")
        #expect(probed.stream["duration"] == "0.180000", "\(probed.stream)")
        // The fixture loops forever, so mvhd declares all ones (AVIFPlaysTests), which FFmpeg 5.1 reads as no length.
        let declared = AVIFPlaysTests.declared([UInt8](try Data(contentsOf: URL(fileURLWithPath: avif))))
        #expect(declared.mdhdDuration * 100 == 18 * declared.mdhdTimescale && declared.elstFlags == 1, "\(declared)")
        // One packet per 1 cs tick: 5 red, 6 green, 7 blue, each lasting 10 ms.
        #expect(probed.packets.map(\.pts) == (0..<18).map { Double($0) / 100 })
        #expect(probed.packets.allSatisfy { abs($0.duration - 0.01) < 1e-6 })

        let frames = try decodeAVIFRGBA(avif, frameBytes: 64 * 64 * 4)
        #expect(frames.count == 18)
        let centre = (32 * 64 + 32) * 4
        for (index, frame) in frames.enumerated() {
            let expected = Self.colours[index < 5 ? 0 : index < 11 ? 1 : 2]
            let got = frame[centre..<centre + 3].map(Int.init)
            #expect(zip(got, expected).allSatisfy { abs($0 - $1) <= 16 }, "frame \(index): \(got) for \(expected)")
        }
    }

    /// AVIF's default, and `--vfr`: one sample per GIF frame lasting its delay, as in a `--vfr` MP4.
    @Test(arguments: [[], ["--vfr"]])
    func vfrHasOneSamplePerFrameLastingItsDelay(timing: [String]) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.gif, to: folder)
        let avif = folder.appendingPathComponent("a.avif").path
        let run = try runGifx(["convert", input, "-o", avif, "--preset", "ultrafast", "--stats"] + timing, timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty, "no warning: \(run.stderr)")
        #expect(run.stdoutText.contains("\"fps\":\"vfr\""), "\(run.stdoutText)")
        let probed = try avifProbe(avif)
        #expect(probed.packets.map(\.pts) == [0, 0.05, 0.11])
        #expect(probed.packets.map(\.duration) == [0.05, 0.06, 0.07])
        #expect(probed.stream["duration"] == "0.180000", "\(probed.stream)")
        #expect(AVIFPlaysTests.declared([UInt8](try Data(contentsOf: URL(fileURLWithPath: avif)))).elstFlags == 1)
        let frames = try decodeAVIFRGBA(avif, frameBytes: 64 * 64 * 4)
        #expect(frames.count == 3)
        let centre = (32 * 64 + 32) * 4
        for (index, frame) in frames.enumerated() where index < 3 {
            let got = frame[centre..<centre + 3].map(Int.init)
            #expect(zip(got, Self.colours[index]).allSatisfy { abs($0 - $1) <= 16 }, "frame \(index): \(got)")
        }
    }

    /// `--max-fps` and `--loops` as in MP4: the capped plan's packets, the animation written twice. The same
    /// GIF's MP4 (AV1) has the same packet times.
    @Test func cappedRateAndLoopsMatchTheMP4() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.gif, to: folder)
        let avif = folder.appendingPathComponent("a.avif").path
        let mp4 = folder.appendingPathComponent("a.mp4").path
        let run = try runGifx(
            ["convert", input, "-o", avif, "-o", mp4, "--codec", "av1", "--max-fps", "50", "--loops", "2",
             "--preset", "ultrafast", "--quiet"], timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        let fromAVIF = try avifProbe(avif), fromMP4 = try avifProbe(mp4)
        #expect(!fromAVIF.packets.isEmpty)
        #expect(fromAVIF.packets.map(\.pts) == fromMP4.packets.map(\.pts))
        #expect(fromAVIF.packets.map(\.duration) == fromMP4.packets.map(\.duration))
        #expect(fromAVIF.format["duration"] == fromMP4.format["duration"], "\(fromAVIF.format) \(fromMP4.format)")
        #expect(Double(fromAVIF.format["duration"] ?? "") == 0.36)
    }

    /// Under 64 pixels a side AV1 goes through libaom; the GIF's transparent half shows --background, and
    /// `gifx verify` reads the AVIF back (libavformat, dav1d) and finds every frame.
    @Test func transparencyIsCompositedOverTheBackgroundAndVerifies() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let side = 32
        let gif = FixtureGIF(width: side, height: side, frames: [
            FixtureFrame(
                width: side, height: side, indices: (0..<side * side).map { $0 % side < side / 2 ? 0 : 1 },
                delay: 10, transparentIndex: 0),
            FixtureFrame.solid(3, width: side, height: side, delay: 20),
        ])
        let input = try writeGIF(gif, to: folder)
        let avif = folder.appendingPathComponent("a.avif").path
        let run = try runGifx(
            ["convert", input, "-o", avif, "--background", "#00ff00", "--crf", "10", "--stats", "--quiet"],
            timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdoutText.contains("\"encoder\":\"libaom-av1\""), "\(run.stdoutText)")
        #expect(run.stdoutText.contains("\"alpha\":false"), "\(run.stdoutText)")
        let frames = try decodeAVIFRGBA(avif, frameBytes: side * side * 4)
        #expect(frames.count == 2)  // one sample per GIF frame (AVIF's default timing)
        if let first = frames.first {
            let left = (16 * side + 4) * 4, right = (16 * side + 28) * 4
            #expect(zip(first[left..<left + 3].map(Int.init), [0, 255, 0]).allSatisfy { abs($0 - $1) <= 16 })
            #expect(zip(first[right..<right + 3].map(Int.init), [255, 0, 0]).allSatisfy { abs($0 - $1) <= 16 })
        }
        let verify = try runGifx(["verify", input, avif, "--background", "#00ff00"], timeout: 120)
        #expect(verify.status == 0, "\(verify.stdoutText) \(verify.stderr)")
    }

    /// AVIF holds AV1 only: another --codec is refused up front in one line, nothing written; `to-mp4`
    /// names `convert` for AVIF instead of writing an MP4 under an .avif name.
    @Test func otherCodecsAndToMP4AreRefused() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.gif, to: folder)
        let avif = folder.appendingPathComponent("a.avif").path
        let run = try runGifx(["convert", input, "-o", avif, "--codec", "h264"])
        #expect(run.status == 64)
        #expect(run.stderrLines.contains { $0.contains("--codec h264 does not fit avif") }, "\(run.stderr)")
        let toMP4 = try runGifx(["to-mp4", input, "-o", avif])
        #expect(toMP4.status == 64)
        #expect(toMP4.stderr.contains("gifx convert IN -o OUT.avif"), "\(toMP4.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["in.gif"])
    }
}

/// What ffprobe reads of an AVIF (or MP4): the major brand, the first video stream, the format, and every
/// packet's presentation time and duration in seconds, in presentation order.
private struct AVIFProbe {
    var brand: String?
    var stream: [String: String] = [:]
    var format: [String: String] = [:]
    var packets: [(pts: Double, duration: Double)] = []
}

private func avifProbe(_ path: String) throws -> AVIFProbe {
    let data = try runTool(Oracle.tool("ffprobe"), [
        "-v", "error", "-select_streams", "v:0", "-show_entries",
        "stream=codec_name,pix_fmt,r_frame_rate,duration,nb_frames:format=duration:format_tags=major_brand"
            + ":packet=pts_time,duration_time",
        "-of", "compact", path,
    ])
    var probe = AVIFProbe()
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
        let fields = line.split(separator: "|").map(String.init)
        guard let section = fields.first else { continue }
        var values: [String: String] = [:]
        for field in fields.dropFirst() {
            let parts = field.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { values[parts[0]] = parts[1] }
        }
        switch section {
        case "packet":
            if let pts = values["pts_time"].flatMap(Double.init), let duration = values["duration_time"].flatMap(Double.init) {
                // ffprobe prints 6 decimals: round to the microsecond so exact schedules compare equal.
                probe.packets.append(((pts * 1e6).rounded() / 1e6, (duration * 1e6).rounded() / 1e6))
            }
        case "stream": probe.stream = values
        case "format":
            probe.format = values
            probe.brand = values["tag:major_brand"]
        default: break
        }
    }
    probe.packets.sort { $0.pts < $1.pts }
    return probe
}

/// Every frame decoded by the ffmpeg CLI (dav1d or libaom) to RGBA.
func decodeAVIFRGBA(_ path: String, frameBytes: Int) throws -> [[UInt8]] {
    let data = [UInt8](try runTool(Oracle.tool("ffmpeg"), [
        "-v", "error", "-nostdin", "-i", path, "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "rgba", "-",
    ]))
    guard frameBytes > 0, data.count % frameBytes == 0 else {
        throw ToolRunError(description: "decoded \(data.count) bytes, not a multiple of \(frameBytes)")
    }
    return stride(from: 0, to: data.count, by: frameBytes).map { Array(data[$0..<$0 + frameBytes]) }
}
