import ChildProcesses
import CPng
import GifxEncoders
import Foundation
import GifFixtures
import Testing

/// Whether `python3 -c "import PIL"` works (Pillow is the second, independent PNG decoder).
let pillowAvailable: Bool = {
    (try? CapturedRun.run("/usr/bin/env", ["python3", "-c", "import PIL"]))?.status == 0
}()

/// The PNG colour type byte of the file's IHDR (3 palette, 2 RGB, 6 RGBA).
func pngColourType(_ path: String) throws -> UInt8 {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    try #require(data.count > 26)
    return data[25]
}

/// Whether the file has a chunk of `type` (e.g. "tRNS").
func pngHasChunk(_ path: String, _ type: String) throws -> Bool {
    let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    var offset = 8
    while offset + 8 <= data.count {
        let length = Int(data[offset]) << 24 | Int(data[offset + 1]) << 16 | Int(data[offset + 2]) << 8 | Int(data[offset + 3])
        if String(decoding: data[(offset + 4)..<(offset + 8)], as: UTF8.self) == type { return true }
        offset += 12 + length
    }
    return false
}

/// A GIF of `frames` opaque 16x16 frames, each with its own local palette of 256 colours no other frame
/// uses (so the sheet holds 256 × frames colours), pixel i showing entry i.
func manyColoursGIF(frames: Int, transparentIndex: Int? = nil) -> FixtureGIF {
    FixtureGIF(width: 16, height: 16, globalPalette: nil, frames: (0..<frames).map { k in
        FixtureFrame(
            width: 16, height: 16, indices: (0..<256).map { UInt8($0) },
            localPalette: (0..<256).map { RGB(UInt8($0), UInt8(k * 40), UInt8(255 - $0)) }, delay: 10,
            transparentIndex: transparentIndex)
    })
}

@Suite struct SpriteColourTypeTests {
    private func run(
        _ gif: FixtureGIF, _ name: String, configure: (inout SpriteOptions) -> Void = { _ in }
    ) throws -> (result: SpriteResult, folder: URL) {
        let folder = try spriteFolder(name)
        let r = try runSprite(gif, in: folder, configure: configure)
        return (r.result, folder)
    }

    /// The palette sheet, read back by libpng, is the RGBA sheet, byte for byte: with the census (trim
    /// pre-pass) and with the GIF's palettes as the proof (no pre-pass).
    @Test(arguments: [false, true]) func indexedSheetDecodesToTheRGBASheet(trim: Bool) throws {
        let (indexed, folder) = try run(MovingCharacter.gif, "indexed\(trim)") {
            $0.trim = trim
            $0.packing = trim ? .maxrects : .grid
            $0.format = .texturepacker
        }
        #expect(indexed.pixelFormat == "indexed")
        #expect(try pngColourType(indexed.pagePaths[0]) == 3)
        let (plain, plainFolder) = try run(MovingCharacter.gif, "rgba\(trim)") {
            $0.trim = trim
            $0.packing = trim ? .maxrects : .grid
            $0.format = .texturepacker
            $0.forceRGBA = true
        }
        #expect(plain.pixelFormat == "rgba")
        #expect(try pngColourType(plain.pagePaths[0]) == 6)
        let a = try Sheet(indexed.pagePaths[0]), b = try Sheet(plain.pagePaths[0])
        #expect(a.width == b.width && a.height == b.height)
        #expect(a.pixels == b.pixels)
        try? FileManager.default.removeItem(at: folder)
        try? FileManager.default.removeItem(at: plainFolder)
    }

    /// Pillow, a decoder independent of libpng, reads the palette sheet as the same RGBA as the RGBA sheet
    /// and as libpng does.
    @Test(.enabled(if: pillowAvailable, "Pillow (python3 -m pip install Pillow) not installed"))
    func pillowReadsThePaletteSheetAsTheRGBASheet() throws {
        let (indexed, folder) = try run(MovingCharacter.gif, "pillow") { $0.trim = true; $0.format = .phaser }
        let (plain, _) = try run(MovingCharacter.gif, "pillowrgba") { $0.trim = true; $0.format = .phaser; $0.forceRGBA = true }
        #expect(indexed.pixelFormat == "indexed")
        let libpng = folder.appendingPathComponent("libpng.rgba")
        try Data(try Sheet(indexed.pagePaths[0]).pixels).write(to: libpng)
        let script = """
            import sys
            from PIL import Image
            a = Image.open(sys.argv[1]); b = Image.open(sys.argv[2])
            assert a.mode == "P", a.mode
            ra = a.convert("RGBA").tobytes(); rb = b.convert("RGBA").tobytes()
            lib = open(sys.argv[3], "rb").read()
            assert ra == rb, "palette != rgba"
            assert ra == lib, "pillow != libpng"
            print("ok", a.size, len(ra))
            """
        let run = try CapturedRun.run(
            "/usr/bin/env", ["python3", "-c", script, indexed.pagePaths[0], plain.pagePaths[0], libpng.path])
        let output = run.stdoutText + run.stderrText
        #expect(run.status == 0, "\(output)")
        #expect(output.hasPrefix("ok"))
    }

    /// 512 opaque colours on a grid with an empty slot: RGB with a tRNS key that no frame uses, so the
    /// gap reads as transparent and every frame pixel keeps its colour (libpng decode).
    @Test func opaqueSheetsOfManyColoursAreRGB() throws {
        let gif = manyColoursGIF(frames: 3)
        let (result, _) = try run(gif, "rgb") { $0.columns = 2; $0.dedupe = true }
        #expect(result.pixelFormat == "rgb")
        #expect(try pngColourType(result.pagePaths[0]) == 2)
        #expect(try pngHasChunk(result.pagePaths[0], "tRNS"))
        let sheet = try Sheet(result.pagePaths[0])
        for k in 0..<3 {
            let ox = (k % 2) * 16, oy = (k / 2) * 16
            for i in 0..<256 {
                let expected: [UInt8] = [UInt8(i), UInt8(k * 40), UInt8(255 - i), 255]
                #expect(sheet.pixel(ox + i % 16, oy + i / 16) == expected)
            }
        }
        #expect(sheet.pixel(16, 16)[3] == 0 && sheet.pixel(31, 31)[3] == 0)  // the empty slot
        // Two frames fill a 2x1 grid: no gap, no tRNS.
        let (full, _) = try run(manyColoursGIF(frames: 2), "rgbfull") { $0.columns = 2; $0.dedupe = true }
        #expect(full.pixelFormat == "rgb")
        #expect(try !pngHasChunk(full.pagePaths[0], "tRNS"))
    }

    /// More than 256 colours and transparency: RGBA.
    @Test func transparentSheetsOfManyColoursAreRGBA() throws {
        let (result, _) = try run(manyColoursGIF(frames: 2, transparentIndex: 5), "rgba") { $0.dedupe = true }
        #expect(result.pixelFormat == "rgba")
        #expect(try pngColourType(result.pagePaths[0]) == 6)
        let sheet = try Sheet(result.pagePaths[0])
        #expect(sheet.pixel(5, 0)[3] == 0)
        #expect(sheet.pixel(6, 0) == [6, 0, 249, 255])
    }

    /// The census: distinct values (alpha-0 pixels as one), overflow past 256, the unused key colour.
    @Test func censusCountsDistinctRGBA() {
        let census = ColourCensus()
        var pixels: [UInt32] = [0x00FF_FFFF, 0, 0xFF00_0000, 0xFF00_0000, 0x80FF_0000]
        pixels.withUnsafeBytes { census.add($0.baseAddress!, width: 5, height: 1, stride: 20) }
        #expect(census.colours == [0, 0xFF00_0000, 0x80FF_0000])
        #expect(!census.allOpaque && !census.overflowed)
        let opaque = ColourCensus()
        pixels = (0..<300).map { 0xFF00_0000 | UInt32($0) }
        pixels.withUnsafeBytes { opaque.add($0.baseAddress!, width: 300, height: 1, stride: 1200) }
        #expect(opaque.overflowed && opaque.allOpaque)
        let key = opaque.unusedRGB()
        #expect(key == UInt32(0xFF00_012C))  // black (0) is used, 1...299 too: 300 = 0x12C
        let few = ColourCensus()
        pixels = [0xFF00_0000, 0xFF00_0001]
        pixels.withUnsafeBytes { few.add($0.baseAddress!, width: 2, height: 1, stride: 8) }
        #expect(few.unusedRGB() == 0xFF00_0002)
    }

    /// --png-level: max ≤ default < fast in bytes, the same pixels.
    @Test func pngLevelsTradeTimeForBytes() throws {
        var sizes: [PNGLevel: Int] = [:]
        var pixels: [PNGLevel: [UInt8]] = [:]
        for level in PNGLevel.allCases {
            let (result, _) = try run(manyColoursGIF(frames: 4, transparentIndex: 3), "level\(level)") { $0.pngLevel = level }
            sizes[level] = try FileManager.default.attributesOfItem(atPath: result.pagePaths[0])[.size] as? Int
            pixels[level] = try Sheet(result.pagePaths[0]).pixels
        }
        #expect(sizes[.max]! <= sizes[.default]! && sizes[.default]! < sizes[.fast]!)
        #expect(pixels[.fast] == pixels[.default] && pixels[.default] == pixels[.max])
    }
}
