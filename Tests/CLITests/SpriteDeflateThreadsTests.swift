import ChildProcesses
import Foundation
import GifFixtures
import Testing

/// The sheet's image data deflated on several threads (`GIFX_PNG_THREADS`, pigz's block scheme) against
/// libpng's single stream: the same pixels through libpng, one valid zlib stream (Python's zlib checks
/// the Adler-32 and that nothing follows the end), split over several IDAT chunks, and about the same size.
@Suite struct SpriteDeflateThreadsTests {
    /// 96 frames of 128x128 (a 1280x1280 sheet: 1.6 MB of filtered rows indexed, 4.9 MB RGB, 6.6 MB
    /// RGBA), so every colour type spans several 512 KiB blocks. Index k of frame f is (k * 7 + f * 13)
    /// mod 200, a pattern zlib cannot flatten to nothing; 200 colours leave room in a palette for the
    /// transparent gaps of the 10x10 grid's four empty cells.
    static func gif(_ kind: String) -> FixtureGIF {
        let shared: [RGB] = (0..<256).map { (i: Int) -> RGB in RGB(UInt8(i), UInt8(255 - i), UInt8((i * 3) & 0xFF)) }
        var frames: [FixtureFrame] = []
        for f in 0..<96 {
            let indices: [UInt8] = (0..<(128 * 128)).map { (k: Int) -> UInt8 in UInt8((k * 7 + f * 13) % 200) }
            // RGB and RGBA: every frame its own colours, so the sheet holds far more than 256.
            let own: [RGB] = (0..<256).map { (i: Int) -> RGB in RGB(UInt8(i), UInt8(f * 2), UInt8(255 - i)) }
            frames.append(FixtureFrame(
                width: 128, height: 128, indices: indices, localPalette: kind == "indexed" ? nil : own,
                delay: 10, transparentIndex: kind == "rgba" ? 5 : nil))
        }
        return FixtureGIF(width: 128, height: 128, globalPalette: kind == "indexed" ? shared : nil, frames: frames)
    }

    /// IDAT chunks, and whether their concatenation inflates to exactly `expected` bytes with a valid
    /// Adler-32 and nothing after the stream's end (Python's zlib, not libpng).
    static func zlibCheck(_ path: String, expected: Int) throws -> (idat: Int, valid: Bool) {
        let script = """
            import struct, sys, zlib
            data = open(sys.argv[1], 'rb').read()
            offset, idat, stream = 8, 0, b''
            while offset < len(data):
                length, kind = struct.unpack('>I4s', data[offset:offset + 8])
                if kind == b'IDAT':
                    idat += 1
                    stream += data[offset + 8:offset + 8 + length]
                offset += 12 + length
            z = zlib.decompressobj()
            raw = z.decompress(stream) + z.flush()
            print(idat, int(z.eof and not z.unused_data and len(raw) == int(sys.argv[2])))
            """
        let run = try CapturedRun.run("/usr/bin/env", ["python3", "-c", script, path, String(expected)])
        let output = run.stdoutText
        try #require(run.status == 0, "python3 failed on \(path)")
        let fields = output.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        try #require(fields.count == 2, "unexpected output \(output)")
        return (fields[0], fields[1] == 1)
    }

    @Test(arguments: [("indexed", UInt8(3), 1), ("rgb", UInt8(2), 3), ("rgba", UInt8(6), 4)])
    func threadsWriteTheSamePixelsAsOneStream(kind: String, colourType: UInt8, bytesPerPixel: Int) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.gif(kind), to: folder)
        var sizes: [Int] = []
        var decoded: [[UInt8]] = []
        for threads in ["1", "3"] {
            let output = folder.appendingPathComponent("sheet\(threads).png").path
            var environment = ProcessInfo.processInfo.environment
            environment["GIFX_PNG_THREADS"] = threads
            let run = try runGifx(["to-sprite", input, "-o", output, "--quiet"], timeout: 120, environment: environment)
            try #require(run.status == 0, "\(run.stderr)")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: output))
            #expect(bytes[25] == colourType, "colour type with \(threads) thread(s)")
            let image = try readPNGAsRGBA(output)
            #expect(image.width == 1280 && image.height == 1280)
            let check = try Self.zlibCheck(output, expected: image.height * (1 + image.width * bytesPerPixel))
            #expect(check.valid, "\(threads) thread(s): not one complete zlib stream")
            // One stream: libpng's 1 MiB IDAT chunks; blocks: one IDAT per 512 KiB of filtered rows.
            let blocks = (image.height * (1 + image.width * bytesPerPixel) + (512 << 10) - 1) / (512 << 10)
            if threads == "3" { #expect(check.idat >= blocks, "\(check.idat) IDAT chunks for \(blocks) blocks") }
            sizes.append(bytes.count)
            decoded.append(image.pixels)
        }
        // Compared here, not inside #expect: a failing #expect would print both 6.5-million-byte arrays.
        let firstDifference = zip(decoded[0], decoded[1]).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(decoded[0].count == decoded[1].count && firstDifference == nil,
                "the threaded sheet decodes to other pixels, first at byte \(firstDifference ?? -1)")
        // Each block restarts deflate's match search at its start (primed with the previous 32 KiB): a
        // little larger, never much.
        #expect(sizes[1] <= sizes[0] + sizes[0] / 100 + 1024, "threaded \(sizes[1]) B against \(sizes[0]) B")
    }
}
