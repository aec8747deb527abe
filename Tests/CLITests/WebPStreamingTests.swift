import ChildProcesses
import Foundation
import GifFixtures
import Testing

/// Issue 38: the animated WebP is written as it is encoded. Read back by Pillow (libwebp's demuxer behind an
/// independent reader) and webpmux; expected frames, durations and pixels come from the fixtures' construction.
@Suite(.enabled(if: pillowReadsWebP() && oracleAvailable("webpmux"), "Pillow with WebP support or webpmux (make deps installs both), the readers, are missing"))
struct WebPStreamingTests {
    /// A sprite over a transparent canvas, each frame restored to the background (disposal 2), so both the
    /// change rectangle and dispose-to-background are exercised; frames 3 and 4 identical (merged, one longer frame).
    static var sprite: (gif: FixtureGIF, composites: [[UInt8?]], durations: [Int]) {
        let (w, h) = (24, 16)
        var frames: [FixtureFrame] = []
        var composites: [[UInt8?]] = []
        let positions = [1, 5, 11, 11, 15, 3]
        let delays = [4, 5, 6, 7, 8, 9]
        for (i, x) in positions.enumerated() {
            var indices = [UInt8](repeating: 0, count: w * h)
            var composite = [UInt8?](repeating: nil, count: w * h)
            for y in 4..<10 { for dx in 0..<6 { indices[y * w + x + dx] = UInt8(1 + x % 3); composite[y * w + x + dx] = UInt8(1 + x % 3) } }
            frames.append(FixtureFrame(width: w, height: h, indices: indices, delay: delays[i], disposal: 2, transparentIndex: 0))
            composites.append(composite)
        }
        // Frames 2 and 3 show the same picture: one frame of 6 + 7 cs.
        return (FixtureGIF(width: w, height: h, frames: frames), composites, [40, 50, 130, 80, 90])
    }

    static func bash(_ script: String, in folder: URL, input: String) throws -> CapturedRun {
        var environment = ProcessInfo.processInfo.environment
        environment["GIFX"] = gifxExecutable().path
        environment["IN"] = input
        return try CapturedRun.run("/bin/bash", ["-c", "cd '\(folder.path)' && " + script], environment: environment, timeout: 60)
    }

    /// To a file, to standard output redirected to a file, and piped: the same frames, durations and pixels;
    /// the redirect is the file byte for byte (its header patched at the end), and so is the pipe (its encoded
    /// chunks spooled, the header written with the real RIFF size once known, so every reader takes it).
    @Test func fileRedirectAndPipeCarryTheSameAnimation() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fixture = Self.sprite
        let input = try writeGIF(fixture.gif, to: folder)
        let run = try Self.bash(
            "\"$GIFX\" convert \"$IN\" -o file.webp --quiet && \"$GIFX\" convert \"$IN\" -o webp:- > redirected.webp"
                + " && \"$GIFX\" convert \"$IN\" -o webp:- | cat > piped.webp",
            in: folder, input: input)
        #expect(run.status == 0, "\(run.stderrText)")
        let file = try Data(contentsOf: folder.appendingPathComponent("file.webp"))
        let redirected = try Data(contentsOf: folder.appendingPathComponent("redirected.webp"))
        let piped = try Data(contentsOf: folder.appendingPathComponent("piped.webp"))
        #expect(redirected == file)
        #expect(Array(file.prefix(4)) == Array("RIFF".utf8))
        let riffSize = file.subdata(in: 4..<8).withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) }
        #expect(Int(riffSize) == file.count - 8)
        #expect(piped == file)

        let reading = try ConvertWebPTests.read(folder.appendingPathComponent("file.webp").path)
        #expect(reading.durations == fixture.durations)
        #expect(reading.loop == 0)
        let shown = [0, 1, 2, 4, 5].map { fixture.composites[$0] }
        #expect(reading.frames.count == shown.count)
        for (frame, (got, expected)) in zip(reading.frames, shown).enumerated() {
            guard got.count == expected.count * 4 else { Issue.record("frame \(frame): \(got.count) bytes"); continue }
            for (i, index) in expected.enumerated() {
                let rgba = Array(got[i * 4..<i * 4 + 4])
                if let index {
                    let c = FixtureGIF.primaries[Int(index)]
                    #expect(rgba == [c.r, c.g, c.b, 255], "frame \(frame) pixel \(i)")
                } else {
                    #expect(rgba[3] == 0, "frame \(frame) pixel \(i): \(rgba)")
                }
            }
        }
        let info = try CapturedRun.run(Oracle.tool("webpmux"), ["-info", folder.appendingPathComponent("piped.webp").path]).stdoutText
        #expect(info.contains("Number of frames: 5"), "\(info)")
        #expect(info.contains("Loop Count : 0"), "\(info)")
    }

    /// The memory plan's WebP share is a constant: the smallest budget a WebP needs is the same for 12 frames
    /// and for 1200 frames of the same size (it grew with the GIF's file size while the encoded animation was
    /// held until the end).
    @Test func theSmallestBudgetDoesNotGrowWithTheFrameCount() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var rng = SplitMix64(seed: 38)
        func gif(frames: Int) -> FixtureGIF {
            FixtureGIF(width: 64, height: 64, frames: (0..<frames).map { _ in
                FixtureFrame(width: 64, height: 64, indices: (0..<(64 * 64)).map { _ in UInt8(rng.next() & 7) }, delay: 3)
            })
        }
        func needs(_ name: String, _ fixture: FixtureGIF) throws -> String {
            let input = try writeGIF(fixture, to: folder, name: name)
            let run = try runGifx(["convert", input, "-o", folder.appendingPathComponent(name + ".webp").path, "--memory-budget", "1M"])
            #expect(run.status == 78, "\(run.stderr)")
            return String(run.stderr.split(separator: "need").last ?? "")
        }
        let short = try needs("short.gif", gif(frames: 12))
        let long = try needs("long.gif", gif(frames: 1200))
        #expect(!short.isEmpty && short == long, "12 frames: \(short); 1200 frames: \(long)")
    }
}
