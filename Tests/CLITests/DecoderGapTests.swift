import Foundation
import GifFixtures
import Testing

/// Issue 17 point 4: what giflib cannot decode is refused, consistently and with the byte offset, never
/// shown as a blank frame with exit 0 (docs/conformance.md).
@Suite struct DecoderGapTests {
    /// Three 2x2 frames written by giflib; the primaries palette holds no 0x2C byte, so each image
    /// separator is found by its value, and its LZW code size byte follows the 10-byte descriptor.
    static let threeFrames = FixtureGIF.solidFrames(width: 2, height: 2, colorIndices: [1, 2, 3], delays: [5, 6, 7])

    static func codeSizeOffsets(_ data: Data) -> [Int] {
        var offsets: [Int] = []
        var i = 13 + 3 * 8  // header, screen descriptor, 8-entry global table
        let bytes = [UInt8](data)
        while i < bytes.count {
            if bytes[i] == 0x2C { offsets.append(i + 10); i += 11 } else { i += 1 }
        }
        return offsets
    }

    @Test(arguments: [(frame: 0, size: 9 as UInt8), (frame: 1, size: 12), (frame: 2, size: 11)])
    func codeSizeAbove8IsRefusedByEveryCommand(frame: Int, size: UInt8) throws {
        let folder = try temporaryFolder("codesize\(frame)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var data = try Self.threeFrames.encode()
        let offsets = Self.codeSizeOffsets(data)
        #expect(offsets.count == 3)
        #expect(data[offsets[frame]] == 3)  // giflib writes 3-bit codes for the 8-colour table
        data[offsets[frame]] = size
        let input = folder.appendingPathComponent("in.gif")
        try data.write(to: input)

        let commands: [[String]] = [
            ["timeline", input.path], ["timeline", "--json", input.path], ["timeline", "--strict", input.path],
            ["to-sprite", input.path, "-o", folder.appendingPathComponent("s.png").path],
            ["to-mp4", input.path, "-o", folder.appendingPathComponent("v.mp4").path],
            ["frames", "--null", input.path],
        ]
        for command in commands {
            let run = try runGifx(command)
            #expect(run.status == 65, "\(command): \(run.stderr)")
            #expect(run.stdout.isEmpty, "\(command)")
            #expect(
                run.stderrLines == [
                    "gifx: \(input.path): malformed GIF at byte \(offsets[frame]): frame \(frame): LZW minimum code size "
                        + "\(size) is above 8, which GIF does not define and giflib cannot decode; gifx refuses the file"
                ], "\(command)")
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(left == ["in.gif"])
    }

    /// A GIF whose frame 1 has no colour table at all: giflib's encoder refuses to write one, so frame 1 is
    /// written with a 2-entry local table that is then cut out (flag cleared, 6 bytes removed).
    static func colourless(_ second: FixtureFrame) throws -> (data: Data, secondOffset: Int) {
        var frame = second
        frame.localPalette = [RGB(9, 9, 9), RGB(8, 8, 8)]
        let gif = FixtureGIF(width: 2, height: 1, globalPalette: nil, frames: [
            FixtureFrame(width: 2, height: 1, indices: [1, 0], localPalette: [RGB(1, 2, 3), RGB(4, 5, 6)], delay: 5),
            frame,
        ])
        var bytes = [UInt8](try gif.encode())
        // The last image separator whose packed byte says "local table of 2 entries".
        let separator = try #require(bytes.indices.last { bytes[$0] == 0x2C && $0 + 9 < bytes.count && bytes[$0 + 9] == 0x80 })
        bytes[separator + 9] = 0x00
        bytes.removeSubrange((separator + 10)..<(separator + 16))
        return (Data(bytes), separator)
    }

    @Test func frameWithNoColourTableIsRefusedByPixelCommands() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (data, second) = try Self.colourless(FixtureFrame(width: 2, height: 1, indices: [1, 1], delay: 5))
        let input = folder.appendingPathComponent("in.gif")
        try data.write(to: input)
        for command in [
            ["to-sprite", input.path, "-o", folder.appendingPathComponent("s.png").path],
            ["to-sprite", "--strict", input.path, "-o", folder.appendingPathComponent("s.png").path],
            ["to-mp4", input.path, "-o", folder.appendingPathComponent("v.mp4").path],
            ["frames", "--null", input.path],
        ] {
            let run = try runGifx(command)
            #expect(run.status == 65, "\(command): \(run.stderr)")
            #expect(
                run.stderrLines == [
                    "gifx: \(input.path): malformed GIF at byte \(second): frame 1 has no colour table (neither global "
                        + "nor local) for its opaque pixels"
                ], "\(command)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["in.gif"])
        // The schedule needs no colours.
        let timeline = try runGifx(["timeline", input.path])
        #expect(timeline.status == 0, "\(timeline.stderr)")
        #expect(timeline.stdoutText.contains("2 frames, 0.10 s"))
    }

    @Test func colourlessFrameOfTransparentPixelsOnlyIsAccepted() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (data, _) = try Self.colourless(
            FixtureFrame(width: 2, height: 1, indices: [1, 1], delay: 5, transparentIndex: 1))
        let input = folder.appendingPathComponent("in.gif")
        try data.write(to: input)
        let png = folder.appendingPathComponent("s.png").path
        let run = try runGifx(["to-sprite", "--strict", input.path, "-o", png, "--columns", "2"])
        #expect(run.status == 0, "\(run.stderr)")
        // Frame 1 draws nothing: both cells show frame 0's pixels (read back with libpng).
        let sheet = try readPNGAsRGBA(png)
        #expect(sheet.width == 4 && sheet.height == 1)
        #expect(sheet.pixels == [4, 5, 6, 255, 1, 2, 3, 255, 4, 5, 6, 255, 1, 2, 3, 255])
    }
}
