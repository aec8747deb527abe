import ChildProcesses
import Foundation
import GifFixtures
import Testing

/// `--target-size` end to end (issue 26): the file on disk is under the cap and within 90 % of it (or at
/// the best quality allowed), at most 3 encodes, `--stats` telling the encodes and the CRF kept; a cap no
/// quality meets is refused in one line with nothing written.
@Suite struct TargetSizeTests {
    /// Moving content a video encoder meets in real GIFs: a diagonal gradient scrolling across 128x96 under a
    /// bouncing block, with a little dither, 40 frames 4 cs apart, a 256-colour palette.
    static func animation(in folder: URL) throws -> String {
        var rng = SplitMix64(seed: 2626)
        let palette: [RGB] = (0..<256).map { (i: Int) -> RGB in
            let green = UInt8((i * 3) % 256)
            return RGB(UInt8(i), green, UInt8(255 - i))
        }
        let frames = (0..<40).map { k -> FixtureFrame in
            var indices = [UInt8](repeating: 0, count: 128 * 96)
            for y in 0..<96 {
                for x in 0..<128 {
                    let blockX: Int = 10 + 2 * k
                    let blockY: Int = 20 + k
                    let inBlock = abs(x - blockX) < 12 && abs(y - blockY) < 12
                    let dither = Int(rng.next() % 3)
                    let shade: Int = (x + y + 3 * k + dither) % 250
                    indices[y * 128 + x] = inBlock ? 255 : UInt8(shade)
                }
            }
            return FixtureFrame(width: 128, height: 96, indices: indices, localPalette: palette, delay: 4)
        }
        return try writeGIF(FixtureGIF(width: 128, height: 96, frames: frames), to: folder)
    }

    /// Random noise: x264's sizes jump about with the rate there (docs/delivery.md), so only the cap itself
    /// is promised: under it, or refused.
    static func noise(in folder: URL) throws -> String {
        var rng = SplitMix64(seed: 2626)
        let frames = (0..<40).map { _ in
            FixtureFrame(width: 128, height: 96, indices: (0..<(128 * 96)).map { _ in UInt8(rng.next() & 15) }, delay: 4)
        }
        return try writeGIF(FixtureGIF(width: 128, height: 96, frames: frames), to: folder, name: "noise.gif")
    }

    static func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int) ?? -1
    }

    @Test(arguments: [0.3, 0.6])
    func theMP4FitsUnderTheCapWithinThreeEncodes(_ share: Double) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.animation(in: folder)
        let plain = folder.appendingPathComponent("plain.mp4").path
        #expect(try runGifx(["to-mp4", input, "-o", plain, "--quiet"]).status == 0)
        let target = Int(Double(Self.fileSize(plain)) * share)
        let out = folder.appendingPathComponent("capped.mp4").path
        let run = try runGifx(["to-mp4", input, "-o", out, "--quiet", "--stats", "--target-size", "\(target)"], timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        let bytes = Self.fileSize(out)
        #expect(bytes <= target, "\(bytes) > \(target)")
        let stats = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        let report = try #require(stats["targetSize"] as? [String: Any])
        let attempts = try #require(report["attempts"] as? [[String: Any]])
        #expect(attempts.count <= 3 && attempts.count == report["encodes"] as? Int)
        #expect(report["bytes"] as? Int == bytes)
        let bestBelow = report["bestQualityFitsBelow"] as? Bool ?? false
        #expect(Double(bytes) >= 0.9 * Double(target) || bestBelow, "\(bytes) of \(target): \(attempts)")
        // The kept encode is one of the attempts, with the file's bytes.
        let kept = try #require(report["kept"] as? [String: Any])
        #expect(kept["bytes"] as? Int == bytes)
    }

    @Test func aPerOutputCapAppliesToThatOutputOnly() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.animation(in: folder)
        let free = folder.appendingPathComponent("free.webm").path
        let capped = folder.appendingPathComponent("capped.webm").path
        #expect(try runGifx(["convert", input, "-o", free, "--quiet"]).status == 0)
        let target = Self.fileSize(free) * 7 / 10
        let run = try runGifx(
            ["convert", input, "-o", free, "-o", "target-size=\(target):\(capped)", "--quiet", "--stats", "--overwrite"],
            timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Self.fileSize(capped) <= target)
        #expect(Self.fileSize(free) > target)
        let stats = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        #expect(stats["decodedFrames"] as? Int == 40)  // one decode for both
        let outputs = try #require(stats["outputs"] as? [[String: Any]])
        #expect(outputs[0]["targetSize"] == nil)
        let report = try #require(outputs[1]["targetSize"] as? [String: Any])
        #expect((report["encodes"] as? Int ?? 99) <= 3)
    }

    @Test(arguments: [0.3, 0.6])
    func onNoiseTheCapIsStillNeverExceeded(_ share: Double) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.noise(in: folder)
        let plain = folder.appendingPathComponent("plain.mp4").path
        #expect(try runGifx(["to-mp4", input, "-o", plain, "--quiet"]).status == 0)
        let target = Int(Double(Self.fileSize(plain)) * share)
        let out = folder.appendingPathComponent("capped.mp4").path
        let run = try runGifx(["to-mp4", input, "-o", out, "--quiet", "--target-size", "\(target)"], timeout: 120)
        if run.status == 0 {
            #expect(Self.fileSize(out) <= target)
        } else {
            #expect(run.status == 64 && run.stderr.contains("cannot fit"), "\(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }

    /// One line whatever the encoder: libx265 refusing the second pass printed its own error line first ("requested
    /// bitrate is too low. estimated minimum is -2147483648 kbps") until it ran at `log-level=none`.
    @Test(arguments: ["h264", "hevc"])
    func aCapNoQualityMeetsIsRefusedAndNothingIsWritten(codec: String) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.animation(in: folder)
        let out = folder.appendingPathComponent("tiny.mp4").path
        let run = try runGifx(["to-mp4", input, "-o", out, "--codec", codec, "--target-size", "2000"], timeout: 120)
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderrLines.count == 1 && run.stderr.contains("cannot fit 2000 bytes"), "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["in.gif"])
    }
}
