import Foundation
import GifxFrames
import GifxTimeline

/// What the first reading of the GIF learns before any PNG header can be written: which frames repeat
/// (deduplication), each distinct frame's non-transparent bounds (trimming), and the colours on the sheet
/// (the PNG colour type). Per frame it keeps the deduper's 4-byte cell index; per distinct cell 8 bytes
/// of bounds.
struct SpritePrePass {
    var deduper: FrameDeduper?
    /// Trim rects, four UInt16 a cell (x, y, width, height); empty without trimming.
    var bounds: [UInt16] = []
    let census = ColourCensus()
    let cellSize: CanvasSize
    let trim: Bool

    init(cellSize: CanvasSize, dedupe: Bool, trim: Bool) {
        self.cellSize = cellSize
        self.trim = trim
        deduper = dedupe ? FrameDeduper() : nil
    }

    /// Frames seen so far (when deduplicating).
    var framesSeen: Int? { deduper?.cellOfFrame.count }

    /// One canvas, in frame order; `cellPixels` gives its pixels as they go on the sheet (scaled), and
    /// is only called for a canvas that is not a repeat.
    mutating func add(_ canvas: Canvas, cellPixels: (Canvas) throws -> UnsafeRawBufferPointer) rethrows {
        if deduper != nil {
            let before = deduper!.cellCount
            deduper!.add(CanvasDigest(canvas.pixels))
            if deduper!.cellCount == before { return }  // a repeat: nothing new on the sheet
        }
        let pixels = try cellPixels(canvas)
        let stride = cellSize.width * 4
        let rect = trim
            ? opaqueBounds(pixels, size: cellSize) : PixelRect(x: 0, y: 0, width: cellSize.width, height: cellSize.height)
        if trim { bounds += [UInt16(rect.x), UInt16(rect.y), UInt16(rect.width), UInt16(rect.height)] }
        if !census.isSettled {
            census.add(
                pixels.baseAddress! + rect.y * stride + rect.x * 4, width: rect.width, height: rect.height, stride: stride)
        }
    }

    /// The trim rect of `cell` (the whole frame without trimming).
    func source(ofCell cell: Int) -> PixelRect {
        guard !bounds.isEmpty else { return PixelRect(x: 0, y: 0, width: cellSize.width, height: cellSize.height) }
        return PixelRect(
            x: Int(bounds[4 * cell]), y: Int(bounds[4 * cell + 1]), width: Int(bounds[4 * cell + 2]),
            height: Int(bounds[4 * cell + 3]))
    }
}

/// The smallest rect holding every pixel of `pixels` (RGBA, `size`) whose alpha is not 0; a fully
/// transparent frame keeps one pixel at its top-left (as TexturePacker does), so every frame has a region.
func opaqueBounds(_ pixels: UnsafeRawBufferPointer, size: CanvasSize) -> PixelRect {
    let base = pixels.baseAddress!
    var minX = size.width, minY = size.height, maxX = -1, maxY = -1
    for y in 0..<size.height {
        let row = (base + y * size.width * 4).assumingMemoryBound(to: UInt32.self)
        var first = -1, last = -1
        for x in 0..<size.width where UInt32(littleEndian: row[x]) >> 24 != 0 {
            if first < 0 { first = x }
            last = x
        }
        guard first >= 0 else { continue }
        minY = min(minY, y)
        maxY = y
        minX = min(minX, first)
        maxX = max(maxX, last)
    }
    guard maxX >= 0 else { return PixelRect(x: 0, y: 0, width: 1, height: 1) }
    return PixelRect(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1)
}
