import GifxFrames
import GifxTimeline

/// Why frames cannot be laid out on a sheet with the options given. A usage error (`FailureClass.usage`): the GIF is
/// fine, the remedy is an option (the page size limit, the frame size, the column count, the padding).
package enum SpriteLayoutError: GifxError, Equatable {
    /// A frame (`width`×`height`, plus `extrude` on every side) is wider or taller than the sheet may be.
    case frameTooLarge(width: Int, height: Int, extrude: Int, maxSize: Int)
    /// `columns` slots of `slotWidth` (with `padding` between) exceed `maxSize`; `fitting` would fit.
    case tooManyColumns(columns: Int, slotWidth: Int, padding: Int, maxSize: Int, fitting: Int)
    /// One row of slots would need `bytes` in memory, beyond `limit`.
    case rowTooLarge(columns: Int, slotWidth: Int, slotHeight: Int, bytes: Int, limit: Int)
    /// A one-sheet format (Aseprite) would need `pages` pages of `maxSize`.
    case singleSheetFormat(name: String, pages: Int, maxSize: Int)

    package var failureClass: FailureClass { .usage }

    /// The problem in the library's terms (no command-line flag): the CLI adds the options that fix it.
    package var description: String {
        switch self {
        case .frameTooLarge(let width, let height, let extrude, let maxSize):
            let border = extrude > 0 ? " with \(extrude) px of extrusion (\(width + 2 * extrude)x\(height + 2 * extrude))" : ""
            return "a frame of \(width)x\(height) px\(border) does not fit a sheet of at most \(maxSize) px a side"
        case .tooManyColumns(let columns, let slotWidth, let padding, let maxSize, let fitting):
            return "\(columns) columns of \(slotWidth) px (padding \(padding)) are wider than a sheet of at most "
                + "\(maxSize) px; at most \(fitting) fit"
        case .rowTooLarge(let columns, let slotWidth, let slotHeight, let bytes, let limit):
            return "one row of \(columns) cells of \(slotWidth)x\(slotHeight) px would need \(bytes >> 20) MiB "
                + "(limit \(limit >> 20) MiB)"
        case .singleSheetFormat(let name, let pages, let maxSize):
            return "the \(name) format holds one sheet, and these frames need \(pages) pages of at most \(maxSize) px"
        }
    }
}

/// Where every cell of a sprite sheet goes: a grid of equal slots, split into pages when one sheet would
/// exceed `maxSize` on a side. Pure geometry (no pixels, no I/O) so it can be tested on its own.
///
/// A slot is the frame's own pixels plus `extrude` repeated edge pixels on every side; slots are
/// `padding` transparent pixels apart (no padding at the sheet's outer edges). Rects name the frame's own
/// pixels only, never the padding or the extruded border.
public struct SpriteLayout: Hashable, Sendable {
    /// One PNG of the sheet.
    public struct Page: Hashable, Sendable {
        public var index: Int
        /// Sheet size in pixels (a power of two on each side when asked).
        public var width: Int, height: Int
        /// The part the slots span (top-left); the rest, with power-of-two pages, is transparent.
        public var usedWidth: Int, usedHeight: Int
        /// First cell on this page and how many cells it holds.
        public var firstCell: Int, cellCount: Int
        /// Columns and rows of slots actually used on this page.
        public var columns: Int, rows: Int
    }

    /// Where one cell sits.
    public struct Placement: Hashable, Sendable {
        public var page: Int
        public var column: Int, row: Int
        /// The frame's own pixels on its page (top-left origin), without padding or extrusion.
        public var rect: PixelRect
    }

    /// Size of the frame's own pixels in each cell.
    public let cellSize: CanvasSize
    public let cellCount: Int
    public let padding: Int
    public let extrude: Int
    /// Pages are powers of two on each side (when asked).
    public let powerOfTwo: Bool
    /// Columns of slots on a full page.
    public let columns: Int
    /// Rows of slots on a full page.
    public let rowsPerPage: Int

    /// A slot: the cell plus its extruded border.
    public var slotWidth: Int { cellSize.width + 2 * extrude }
    public var slotHeight: Int { cellSize.height + 2 * extrude }
    public var cellsPerPage: Int { columns * rowsPerPage }
    public var pageCount: Int { (cellCount + cellsPerPage - 1) / cellsPerPage }
    /// Widest page (the row buffer's width).
    public var maxPageWidth: Int { pages.map(\.width).max() ?? 0 }

    /// Lays out `cellCount` cells of `cellSize`. `columns` forces the grid width; otherwise the grid is the
    /// most square sheet (in pixels) that fits `maxSize`, and when no single sheet can hold every cell,
    /// pages are as full as `maxSize` allows (fewest pages). Throws when one slot alone exceeds `maxSize`
    /// or `columns` slots do not fit in `maxSize`.
    public init(
        cellSize: CanvasSize, cellCount: Int, padding: Int = 0, extrude: Int = 0, maxSize requested: Int = SpriteLayout.defaultMaxSize,
        columns: Int? = nil, powerOfTwo: Bool = false
    ) throws {
        precondition(cellSize.width > 0 && cellSize.height > 0 && padding >= 0 && extrude >= 0 && requested > 0)
        precondition(cellCount > 0, "a sheet needs at least one cell")
        let maxSize = powerOfTwo ? floorPowerOfTwo(requested) : requested
        self.powerOfTwo = powerOfTwo
        self.cellSize = cellSize
        self.cellCount = cellCount
        self.padding = padding
        self.extrude = extrude
        let slotWidth = cellSize.width + 2 * extrude
        let slotHeight = cellSize.height + 2 * extrude
        if slotWidth > maxSize || slotHeight > maxSize {
            throw SpriteLayoutError.frameTooLarge(
                width: cellSize.width, height: cellSize.height, extrude: extrude, maxSize: maxSize)
        }
        // k slots take k * slot + (k - 1) * padding pixels.
        let maxColumns = (maxSize + padding) / (slotWidth + padding)
        let maxRows = (maxSize + padding) / (slotHeight + padding)
        if let columns {
            precondition(columns > 0)
            guard columns <= maxColumns else {
                throw SpriteLayoutError.tooManyColumns(
                    columns: columns, slotWidth: slotWidth, padding: padding, maxSize: maxSize, fitting: maxColumns)
            }
            self.columns = columns
            rowsPerPage = min(maxRows, (cellCount + columns - 1) / columns)
        } else if cellCount <= maxColumns * maxRows {
            self.columns = Self.mostSquareColumns(
                cellCount: cellCount, slotWidth: slotWidth, slotHeight: slotHeight, padding: padding,
                maxColumns: maxColumns, maxRows: maxRows)
            rowsPerPage = (cellCount + self.columns - 1) / self.columns
        } else {
            self.columns = maxColumns
            rowsPerPage = maxRows
        }
        // The writer holds one row of slots in memory: bound it like a decoded canvas (1 GiB).
        let rowWidth = self.columns * slotWidth + (self.columns - 1) * padding
        let rowBytes = rowWidth * slotHeight * 4
        if rowBytes > Self.maxRowBytes {
            throw SpriteLayoutError.rowTooLarge(
                columns: self.columns, slotWidth: slotWidth, slotHeight: slotHeight, bytes: rowBytes,
                limit: Self.maxRowBytes)
        }
    }

    /// Most bytes one row of slots may take in memory (RGBA).
    public static let maxRowBytes = 1 << 30

    /// The largest page side, in pixels, when none is asked (`--max-size`, `SpriteOptions.maxSize`; the service's
    /// sheets always): more cells go on further pages.
    public static let defaultMaxSize = 4096

    /// The column count whose sheet is closest to square (ratio of long to short side), ties going to the
    /// smaller area, then to fewer rows.
    static func mostSquareColumns(
        cellCount: Int, slotWidth: Int, slotHeight: Int, padding: Int, maxColumns: Int, maxRows: Int
    ) -> Int {
        var best: (columns: Int, ratio: Double, area: Int)?
        for columns in 1...max(1, min(cellCount, maxColumns)) {
            let rows = (cellCount + columns - 1) / columns
            guard rows <= maxRows else { continue }
            let width = columns * slotWidth + (columns - 1) * padding
            let height = rows * slotHeight + (rows - 1) * padding
            let ratio = Double(max(width, height)) / Double(min(width, height))
            let area = width * height
            if let b = best {
                if ratio < b.ratio - 1e-12 || (abs(ratio - b.ratio) <= 1e-12 && area <= b.area) {
                    best = (columns, ratio, area)
                }
            } else {
                best = (columns, ratio, area)
            }
        }
        return best?.columns ?? 1
    }

    /// Page `index`'s size and contents.
    public func page(_ index: Int) -> Page {
        precondition(index >= 0 && index < pageCount)
        let first = index * cellsPerPage
        let count = min(cellsPerPage, cellCount - first)
        let usedColumns = min(columns, count)
        let rows = (count + columns - 1) / columns
        let width = usedColumns * slotWidth + (usedColumns - 1) * padding
        let height = rows * slotHeight + (rows - 1) * padding
        return Page(
            index: index, width: powerOfTwo ? ceilPowerOfTwo(width) : width,
            height: powerOfTwo ? ceilPowerOfTwo(height) : height, usedWidth: width, usedHeight: height,
            firstCell: first, cellCount: count, columns: usedColumns, rows: rows)
    }

    /// Whether some page pixel belongs to no cell (padding, empty slots, power-of-two margins): then the sheet
    /// needs a transparent colour even when every frame is opaque.
    public var hasGaps: Bool {
        if padding > 0 { return true }
        return pages.contains {
            $0.cellCount != $0.columns * $0.rows || $0.width != $0.usedWidth || $0.height != $0.usedHeight
        }
    }

    public var pages: [Page] { (0..<pageCount).map(page) }

    /// Where cell `index` goes.
    public func placement(ofCell index: Int) -> Placement {
        precondition(index >= 0 && index < cellCount)
        let page = index / cellsPerPage
        let onPage = index % cellsPerPage
        let column = onPage % columns, row = onPage / columns
        return Placement(
            page: page, column: column, row: row,
            rect: PixelRect(
                x: column * (slotWidth + padding) + extrude, y: row * (slotHeight + padding) + extrude,
                width: cellSize.width, height: cellSize.height))
    }
}

/// The largest power of two ≤ `n` (n ≥ 1).
func floorPowerOfTwo(_ n: Int) -> Int { 1 << (Int.bitWidth - 1 - n.leadingZeroBitCount) }

/// The smallest power of two ≥ `n` (n ≥ 1).
func ceilPowerOfTwo(_ n: Int) -> Int { n <= 1 ? 1 : 1 << (Int.bitWidth - (n - 1).leadingZeroBitCount) }
