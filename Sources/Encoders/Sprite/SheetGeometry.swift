import GifxTimeline

/// Where each distinct cell of a sheet sits: what the writers and the JSON formats read, whether the
/// layout is the arithmetic grid (`SpriteLayout`) or a packed one (`PackedLayout`). Cells are numbered in
/// the order they are written, and each page holds a contiguous run of them.
package protocol SheetGeometry {
    var pageCount: Int { get }
    /// Size of page `index` in pixels.
    func pageSize(_ index: Int) -> CanvasSize
    /// The cell's own pixels on its page (top-left origin), without padding or extrusion.
    func region(ofCell cell: Int) -> (page: Int, rect: PixelRect)
    /// Where those pixels come from in the frame (all of it unless trimmed): same size as the placement.
    func source(ofCell cell: Int) -> PixelRect
    /// Whether cells were cropped to their non-transparent bounds.
    var trimmed: Bool { get }
}

extension SpriteLayout: SheetGeometry {
    public func pageSize(_ index: Int) -> CanvasSize {
        let page = page(index)
        return CanvasSize(width: page.width, height: page.height)
    }

    public func region(ofCell cell: Int) -> (page: Int, rect: PixelRect) {
        let p = placement(ofCell: cell)
        return (p.page, p.rect)
    }

    public func source(ofCell cell: Int) -> PixelRect {
        PixelRect(x: 0, y: 0, width: cellSize.width, height: cellSize.height)
    }

    public var trimmed: Bool { false }
}

/// How cells are arranged on pages.
public enum SpritePacking: String, CaseIterable, Sendable {
    /// Equal slots in rows (the default; the only choice for `yy`, whose contentsRect needs equal cells).
    case grid
    /// MaxRects, best short side fit (`MaxRectsBin`).
    case maxrects
}

/// A layout of cells of different sizes (trimmed, or packed with MaxRects), each page a contiguous run of
/// cells. Per cell it keeps 12 bytes (source rect as four UInt16, position as two UInt16), per page its
/// first cell and size.
package struct PackedLayout: SheetGeometry, Sendable {
    /// Source rects, four UInt16 a cell: x, y, width, height.
    private var sources: [UInt16] = []
    /// Page positions, two UInt16 a cell.
    private var positions: [UInt16] = []
    /// First cell of each page, and one past the last.
    private var pageStarts: [Int] = [0]
    private var pageSizes: [CanvasSize] = []
    package let padding: Int
    package let extrude: Int
    package let trimmed: Bool

    package var pageCount: Int { pageSizes.count }
    package var cellCount: Int { sources.count / 4 }
    package func pageSize(_ index: Int) -> CanvasSize { pageSizes[index] }
    /// The cells on page `index`.
    package func cells(onPage index: Int) -> Range<Int> { pageStarts[index]..<pageStarts[index + 1] }

    package func region(ofCell cell: Int) -> (page: Int, rect: PixelRect) {
        // Pages are contiguous runs: binary search the page starts.
        var low = 0, high = pageCount - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if pageStarts[mid] <= cell { low = mid } else { high = mid - 1 }
        }
        let s = source(ofCell: cell)
        return (low, PixelRect(
            x: Int(positions[2 * cell]), y: Int(positions[2 * cell + 1]), width: s.width, height: s.height))
    }

    package func source(ofCell cell: Int) -> PixelRect {
        PixelRect(
            x: Int(sources[4 * cell]), y: Int(sources[4 * cell + 1]), width: Int(sources[4 * cell + 2]),
            height: Int(sources[4 * cell + 3]))
    }

    /// Whether some page pixel belongs to no cell (always, unless one cell fills a page exactly).
    package var hasGaps: Bool {
        if padding > 0 { return true }
        var covered = 0, area = 0
        for k in 0..<pageCount { area += pageSizes[k].width * pageSizes[k].height }
        for cell in 0..<cellCount {
            let s = source(ofCell: cell)
            covered += (s.width + 2 * extrude) * (s.height + 2 * extrude)
        }
        return covered != area
    }

    /// Packs cells whose source rects `source(cell)` are given (all `cellCount` of them), `packing` them
    /// on pages of at most `maxSize` per side. Grid slots are the largest source size. Throws when one
    /// cell (with its extrusion) exceeds `maxSize`.
    package init(
        cellCount: Int, source: (Int) -> PixelRect, packing: SpritePacking, padding: Int, extrude: Int,
        maxSize requested: Int, powerOfTwo: Bool, trimmed: Bool
    ) throws {
        precondition(cellCount > 0)
        self.padding = padding
        self.extrude = extrude
        self.trimmed = trimmed
        let maxSize = powerOfTwo ? floorPowerOfTwo(requested) : requested
        sources.reserveCapacity(4 * cellCount)
        positions.reserveCapacity(2 * cellCount)
        var slotWidth = 0, slotHeight = 0
        for cell in 0..<cellCount {
            let s = source(cell)
            sources += [UInt16(s.x), UInt16(s.y), UInt16(s.width), UInt16(s.height)]
            slotWidth = max(slotWidth, s.width + 2 * extrude)
            slotHeight = max(slotHeight, s.height + 2 * extrude)
        }
        if slotWidth > maxSize || slotHeight > maxSize {
            throw SpriteLayoutError.frameTooLarge(
                width: slotWidth - 2 * extrude, height: slotHeight - 2 * extrude, extrude: extrude, maxSize: maxSize)
        }
        func finishPage(width: Int, height: Int) {
            pageStarts.append(positions.count / 2)
            pageSizes.append(CanvasSize(
                width: powerOfTwo ? ceilPowerOfTwo(width) : width, height: powerOfTwo ? ceilPowerOfTwo(height) : height))
        }
        switch packing {
        case .grid:
            let grid = try SpriteLayout(
                cellSize: CanvasSize(width: slotWidth - 2 * extrude, height: slotHeight - 2 * extrude),
                cellCount: cellCount, padding: padding, extrude: extrude, maxSize: requested, powerOfTwo: powerOfTwo)
            for cell in 0..<cellCount {
                let p = grid.placement(ofCell: cell)  // the rect already starts inside the extruded border
                positions += [UInt16(p.rect.x), UInt16(p.rect.y)]
            }
            for page in grid.pages {
                pageStarts.append(page.firstCell + page.cellCount)
                pageSizes.append(CanvasSize(width: page.width, height: page.height))
            }
        case .maxrects:
            // Each rect carries its padding on the right and bottom; the bin is larger by the same, so no
            // padding is left at the page's outer edges.
            // A bin as tall as allowed but about as wide as a square holding every slot: MaxRects in a huge
            // square bin would stack small rects into one tall strip (best short side fit ties).
            var area = 0
            for cell in 0..<cellCount {
                area += (Int(sources[4 * cell + 2]) + 2 * extrude + padding) * (Int(sources[4 * cell + 3]) + 2 * extrude + padding)
            }
            let side = Int((Double(area) * 1.05).squareRoot().rounded(.up))
            let binWidth = min(maxSize + padding, max(slotWidth + padding, side))
            var bin = MaxRectsBin(width: binWidth, height: maxSize + padding)
            for cell in 0..<cellCount {
                let w = Int(sources[4 * cell + 2]) + 2 * extrude, h = Int(sources[4 * cell + 3]) + 2 * extrude
                var spot = bin.insert(width: w + padding, height: h + padding)
                if spot == nil {
                    finishPage(width: bin.usedWidth - padding, height: bin.usedHeight - padding)
                    bin = MaxRectsBin(width: binWidth, height: maxSize + padding)
                    spot = bin.insert(width: w + padding, height: h + padding)
                }
                guard let spot else { preconditionFailure("a checked slot fits an empty bin") }
                positions += [UInt16(spot.x + extrude), UInt16(spot.y + extrude)]
            }
            finishPage(width: bin.usedWidth - padding, height: bin.usedHeight - padding)
        }
    }
}
