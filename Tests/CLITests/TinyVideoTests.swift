import Foundation
import GifFixtures
import Testing

/// Videos of pictures smaller than a macroblock, found by the encoder matrix (issue 42, docs/reliability.md
/// "Encoder matrix"): with B-frames libx264 showed a GIF frame held for several ticks as a ramp towards the
/// next one (a 1x1 gray of 85 held for 2 ticks, then 190 for 7, decoded as 85, 119 | 152, 186, 218, 200, 180,
/// 200, 218). Judged by ffmpeg's decoder on the constant-rate MP4: while the GIF holds a frame, every pixel
/// stays within 12 levels of itself (without B-frames it moves by 0 to 10; with them by up to 66), and within
/// 45 of the GIF's (x264's quantisation at the default CRF, up to 39 on a 17x1 strip beside its padding row;
/// a wrong frame is 105 or more away).
@Suite struct TinyVideoTests {
    /// 16 grays and 16 frames of 1x1 at a 1 cs tick, each frame's gray about half the range from the last.
    static let grays: [RGB] = (0..<16).map { (k: Int) -> RGB in
        let level = UInt8(10 + k * 15)
        return RGB(level, level, level)
    }
    static let delays = [2, 3, 5, 2, 7, 3, 2, 4, 3, 2, 5, 2, 3, 2, 4, 3]
    static func shade(_ frame: Int) -> Int { (frame * 7) % 16 }

    @Test(.enabled(if: ffprobeAvailable(), "ffprobe/ffmpeg (Debian package ffmpeg), the oracle, is not installed"),
          arguments: [(1, 1), (1, 8), (3, 7), (17, 1)])
    func h264UnderAMacroblockHoldsEveryFrame(width: Int, height: Int) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let frames = Self.delays.indices.map {
            FixtureFrame.solid(UInt8(Self.shade($0)), width: width, height: height, delay: Self.delays[$0])
        }
        let input = try writeGIF(FixtureGIF(width: width, height: height, globalPalette: Self.grays, frames: frames), to: folder)
        let out = folder.appendingPathComponent("tiny.mp4").path
        let run = try runGifx(["to-mp4", input, "-o", out, "--codec", "h264", "--stats"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(String(decoding: run.stdout, as: UTF8.self).contains("no B-frames (under 16 pixels)"))
        let padded = (width + width % 2, height + height % 2)
        let raw = [UInt8](try runTool("/usr/bin/ffmpeg", [
            "-v", "error", "-nostdin", "-i", out, "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "gray", "-",
        ]))
        let frameBytes = padded.0 * padded.1
        // The GIF frame shown at each tick of the 100 fps video.
        var expected: [Int] = []
        for (frame, delay) in Self.delays.enumerated() {
            expected += Array(repeating: 10 + Self.shade(frame) * 15, count: delay)
        }
        #expect(raw.count == expected.count * frameBytes)
        guard raw.count == expected.count * frameBytes else { return }
        var worst = 0, drift = 0, tick = 0
        for delay in Self.delays {
            for y in 0..<height {
                for x in 0..<width {
                    let held = (tick..<tick + delay).map { Int(raw[$0 * frameBytes + y * padded.0 + x]) }
                    drift = max(drift, held.max()! - held.min()!)
                    worst = max(worst, held.map { abs($0 - expected[tick]) }.max()!)
                }
            }
            tick += delay
        }
        #expect(drift <= 12, "a pixel moves by \(drift) levels while the GIF holds its frame")
        #expect(worst <= 45, "a decoded pixel is \(worst) levels from its GIF frame's")
    }
}
