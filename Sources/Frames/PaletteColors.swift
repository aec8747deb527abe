import Foundation

/// The distinct colours of the GIF's global and local colour tables, in first-seen order, as canvas
/// pixels hold them (opaque RGBA in a `UInt32`, R in the low byte on little endian); `nil` when there
/// are more than `limit`, or the tables cannot be read back. The tables are read at the offsets the
/// metadata reader recorded, so callers never parse GIF bytes themselves (the sprite sheet's indexed PNG).
package func readDistinctPaletteColors(path: String, metadata: AnimationMetadata, limit: Int) -> [UInt32]? {
    guard let file = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? file.close() }
    func read(_ offset: Int, _ count: Int) -> [UInt8]? {
        guard (try? file.seek(toOffset: UInt64(offset))) != nil,
            let data = try? file.read(upToCount: count), data.count == count
        else { return nil }
        return [UInt8](data)
    }
    var seen = Set<UInt32>()
    var colors: [UInt32] = []
    func add(_ rgb: [UInt8]) -> Bool {
        for i in 0..<(rgb.count / 3) {
            let pixel = UInt32(littleEndian:
                UInt32(rgb[3 * i]) | UInt32(rgb[3 * i + 1]) << 8 | UInt32(rgb[3 * i + 2]) << 16 | 0xFF00_0000)
            if seen.insert(pixel).inserted {
                colors.append(pixel)
                if colors.count > limit { return false }
            }
        }
        return true
    }
    if let size = metadata.globalPaletteSize {
        // The global colour table follows the 13-byte header and logical screen descriptor.
        guard let rgb = read(13, 3 * size), add(rgb) else { return nil }
    }
    for image in metadata.images {
        guard let size = image.localPaletteSize else { continue }
        // A local table follows the 10-byte image descriptor.
        guard let rgb = read(image.byteOffset + 10, 3 * size), add(rgb) else { return nil }
    }
    return colors
}
