import Foundation
import Frames

#if canImport(Glibc)
import Glibc
#endif

/// An indexed-colour sheet (PNG colour type 3) when every canvas pixel comes from at most 255 colours.
///
/// A composited GIF canvas only ever holds colours of the GIF's palettes (opaque) or transparent
/// (0,0,0,0) (Compositor). So when the distinct colours of the global and local palettes number at most
/// 255, the sheet can be written with one byte per pixel: a quarter of the bytes to deflate (the encode is
/// bound by zlib), and files ImageMagick-sized instead of 3× larger. Entry 0 is transparent, so a zeroed
/// row buffer is transparent in both formats. A pixel outside the palette (which the compositor cannot
/// produce) is reported by `map`, and the encoder starts over in RGBA rather than write a wrong colour.
public final class SheetPalette {
    /// RGBA entries as the canvas holds them in memory (`UInt32` loads, R in the low byte on little endian).
    public let entries: [UInt32]
    /// RGB (low 24 bits of a canvas pixel) → entry; only palette colours' slots are ever written, so the
    /// 16 MiB table costs a page per colour of resident memory.
    private let table: UnsafeMutablePointer<UInt8>

    private init?(colors: [UInt32]) {
        guard colors.count <= 255, let raw = calloc(1 << 24, 1) else { return nil }
        table = raw.assumingMemoryBound(to: UInt8.self)
        entries = [0] + colors
        for (index, color) in colors.enumerated() { table[Int(color & 0xFF_FFFF)] = UInt8(index + 1) }
    }

    deinit { free(table) }

    /// The palette of the GIF at `path`, or `nil` when its palettes hold more than 255 distinct colours
    /// or cannot be read back.
    public static func make(path: String, metadata: GifMetadata) -> SheetPalette? {
        guard let colors = readDistinctPaletteColors(path: path, metadata: metadata, limit: 255) else { return nil }
        return SheetPalette(colors: colors)
    }

    /// RGBA bytes of the entries, for the PNG's PLTE and tRNS chunks.
    var rgbaBytes: [UInt8] {
        entries.flatMap { e in withUnsafeBytes(of: e) { Array($0) } }
    }

    /// Maps `count` canvas pixels to palette indices; `false` when one is not in the palette.
    @inline(__always)
    func map(_ source: UnsafePointer<UInt32>, into destination: UnsafeMutablePointer<UInt8>, count: Int) -> Bool {
        let table = self.table
        return entries.withUnsafeBufferPointer { entries in
            var ok = true
            for i in 0..<count {
                let pixel = source[i]
                // Transparent is exactly 0 (entry 0); an opaque colour must match the entry its RGB names.
                let index = pixel == 0 ? 0 : table[Int(pixel & 0xFF_FFFF)]
                let hit = entries[Int(index)] == pixel
                destination[i] = hit ? index : 0
                ok = ok && hit
            }
            return ok
        }
    }
}
