import Foundation
import GifxFrames

#if canImport(Glibc)
import Glibc
#endif

/// An indexed-colour sheet (PNG colour type 3): at most 256 RGBA entries, alpha in tRNS.
///
/// Entries come either from the pre-pass's `ColourCensus` (the pixels actually on the sheet), or, when no
/// pre-pass runs, from the GIF's palettes: a composited canvas only ever holds colours of the GIF's
/// palettes (opaque) or transparent (0,0,0,0) (Compositor), so when the distinct colours of the global and
/// local palettes number at most 255 the sheet fits. Entry 0 is transparent whenever the sheet has any
/// transparent pixel, so a zeroed buffer is transparent in both formats. A pixel outside the palette is
/// reported by `map`, and the encoder starts over in RGBA rather than write a wrong colour.
package final class SheetPalette {
    /// RGBA entries as the canvas holds them in memory (`UInt32` loads, R in the low byte on little endian).
    package let entries: [UInt32]
    /// Open-addressing table RGBA → entry (1024 slots, so at most a quarter full).
    private let keys: UnsafeMutablePointer<UInt32>
    private let values: UnsafeMutablePointer<Int16>
    private static let slots = 1024

    /// A palette of exactly `entries` (1...256, distinct; alpha-0 entries must be 0).
    package init(entries: [UInt32]) {
        precondition(!entries.isEmpty && entries.count <= 256)
        self.entries = entries
        keys = .allocate(capacity: Self.slots)
        keys.initialize(repeating: 0, count: Self.slots)
        values = .allocate(capacity: Self.slots)
        values.initialize(repeating: -1, count: Self.slots)
        for (index, colour) in entries.enumerated() {
            var slot = Self.slot(colour)
            while values[slot] >= 0 { slot = (slot + 1) & (Self.slots - 1) }
            keys[slot] = colour
            values[slot] = Int16(index)
        }
    }

    /// The palette for the census's colours plus transparent when the sheet has gaps (transparent first),
    /// or `nil` when that makes more than 256.
    package convenience init?(census: ColourCensus, needsTransparent: Bool) {
        guard !census.overflowed else { return nil }
        var colours = census.colours
        if let clear = colours.firstIndex(of: 0) {
            colours.remove(at: clear)
            colours.insert(0, at: 0)
        } else if needsTransparent {
            colours.insert(0, at: 0)
        }
        guard !colours.isEmpty, colours.count <= ColourCensus.paletteLimit else { return nil }
        self.init(entries: colours)
    }

    deinit {
        keys.deallocate()
        values.deallocate()
    }

    @inline(__always)
    private static func slot(_ colour: UInt32) -> Int { Int((colour &* 0x9E37_79B1) >> 22) }

    /// The entry of `colour` (alpha-0 pixels are looked up as 0), or -1.
    @inline(__always)
    func index(of pixel: UInt32) -> Int {
        let colour = pixel >> 24 == 0 ? 0 : pixel
        var slot = Self.slot(colour)
        while true {
            let value = values[slot]
            if value < 0 { return -1 }
            if keys[slot] == colour { return Int(value) }
            slot = (slot + 1) & (Self.slots - 1)
        }
    }

    /// The palette of the GIF at `path`, or `nil` when its palettes hold more than 255 distinct colours
    /// or cannot be read back.
    package static func make(path: String, metadata: AnimationMetadata) -> SheetPalette? {
        guard let colors = readDistinctPaletteColors(path: path, metadata: metadata, limit: 255) else { return nil }
        return SheetPalette(entries: [0] + colors)
    }

    /// RGBA bytes of the entries, for the PNG's PLTE and tRNS chunks.
    var rgbaBytes: [UInt8] {
        entries.flatMap { e in withUnsafeBytes(of: e) { Array($0) } }
    }

    /// Maps `count` canvas pixels to palette indices; `false` when one is not in the palette.
    @inline(__always)
    func map(_ source: UnsafePointer<UInt32>, into destination: UnsafeMutablePointer<UInt8>, count: Int) -> Bool {
        var ok = true
        var lastPixel: UInt32 = 0, lastIndex = index(of: 0)
        for i in 0..<count {
            let pixel = source[i]
            if pixel != lastPixel {
                lastPixel = pixel
                lastIndex = index(of: pixel)
            }
            ok = ok && lastIndex >= 0
            destination[i] = UInt8(truncatingIfNeeded: max(0, lastIndex))
        }
        return ok
    }
}
