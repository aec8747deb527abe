internal import CPng
import Foundation
import Frames

#if canImport(Glibc)
import Glibc
#endif

/// libpng settings for sprite sheets.
public struct PNGSettings: Hashable, Sendable {
    /// zlib level 0...9.
    public var level: Int32
    /// PNG row filters, a mask of libpng's PNG_FILTER_* bits.
    public var filters: Int32
    /// zlib strategy: 0 default, 1 filtered, 2 Huffman only, 3 RLE.
    public var strategy: Int32

    public init(level: Int32, filters: Int32, strategy: Int32) {
        self.level = level; self.filters = filters; self.strategy = strategy
    }

    /// What `to-sprite` uses: zlib level 1, no row filter, default strategy. Measured on the benchmark GIFs
    /// (see the sprite report): GIF frames are palette images, often dithered, where PNG's prediction
    /// filters do not help (SUB/UP made the RGBA sheets 1.2–1.3× larger, libpng's adaptive choice of all
    /// five cost 1.7–2.4× the time) and zlib levels above 1 cost 1.2–2× the time for 10–20 % smaller files.
    public static let fast = PNGSettings(level: 1, filters: Int32(PNG_FILTER_NONE), strategy: 0)
}

/// A colour outside the sheet's palette: the encoder starts over in RGBA.
struct PaletteMiss: Error {}

/// Streams sprite-sheet pages into PNGs: cells arrive in cell order, are placed into a buffer holding one
/// row of slots (the widest page's width × one slot's height), and each completed row of slots is written
/// to libpng at once. The sheet itself never exists in memory. Pixels are RGBA, or one palette index
/// each when a `SheetPalette` is given (entry 0 transparent, so zero bytes are transparent either way).
public final class SpriteSheetWriter {
    public let layout: SpriteLayout
    /// Bytes of the row-of-cells buffer (for `--stats`).
    public var rowBufferBytes: Int { rowCapacity }
    private let descriptors: [Int32]
    private let paths: [String]
    private let settings: PNGSettings
    private let palette: SheetPalette?
    private let bytesPerPixel: Int
    private let rowCapacity: Int
    private let rowBuffer: UnsafeMutableRawPointer
    /// One transparent row, for padding between rows of slots.
    private let blankRow: UnsafeMutableRawPointer
    private var nextCell = 0
    private var png: OpaquePointer?
    private var stride = 0

    /// `fileDescriptors[k]` receives page `k` (named `paths[k]` in errors); the caller owns and closes them.
    /// With `palette`, cells must come through `addCell(copying:)` (RGBA canvases, mapped to indices).
    public init(
        layout: SpriteLayout, fileDescriptors: [Int32], paths: [String], settings: PNGSettings = .fast,
        palette: SheetPalette? = nil
    ) {
        precondition(fileDescriptors.count == layout.pageCount && paths.count == layout.pageCount)
        self.layout = layout
        descriptors = fileDescriptors
        self.paths = paths
        self.settings = settings
        self.palette = palette
        bytesPerPixel = palette == nil ? 4 : 1
        rowCapacity = layout.maxPageWidth * bytesPerPixel * layout.slotHeight
        rowBuffer = .allocate(byteCount: max(1, rowCapacity), alignment: 64)
        rowBuffer.initializeMemory(as: UInt8.self, repeating: 0, count: rowCapacity)
        blankRow = .allocate(byteCount: max(1, layout.maxPageWidth * bytesPerPixel), alignment: 64)
        blankRow.initializeMemory(as: UInt8.self, repeating: 0, count: layout.maxPageWidth * bytesPerPixel)
    }

    /// Whether the pages are indexed-colour PNGs.
    public var isIndexed: Bool { palette != nil }

    deinit {
        if let png { gifx_png_writer_destroy(png) }
        rowBuffer.deallocate()
        blankRow.deallocate()
    }

    /// Cells written so far.
    public var cellsWritten: Int { nextCell }

    /// Adds the next cell: `fill` writes `layout.cellSize` RGBA pixels at the pointer, rows `stride` bytes
    /// apart (a scaler writes straight into the row buffer this way). Then the edges are extruded and,
    /// when the row of slots is complete, it goes to the PNG.
    public func addCell(_ fill: (_ pixels: UnsafeMutableRawPointer, _ stride: Int) throws -> Void) throws {
        precondition(palette == nil, "an indexed sheet takes canvases through addCell(copying:)")
        try placeCell(fill)
    }

    private func placeCell(_ fill: (_ pixels: UnsafeMutableRawPointer, _ stride: Int) throws -> Void) throws {
        precondition(nextCell < layout.cellCount, "more cells than the layout holds")
        let placement = layout.placement(ofCell: nextCell)
        let page = layout.page(placement.page)
        if page.firstCell == nextCell { try beginPage(page) }
        let slot = rowBuffer + placement.column * (layout.slotWidth + layout.padding) * bytesPerPixel
        try fill(slot + layout.extrude * stride + layout.extrude * bytesPerPixel, stride)
        if layout.extrude > 0 { extrude(slot) }
        nextCell += 1
        let lastOnPage = nextCell == page.firstCell + page.cellCount
        if placement.column == page.columns - 1 || lastOnPage {
            try flushRow(page: page, row: placement.row, filledColumns: placement.column + 1)
        }
        if lastOnPage { try finishPage(page) }
    }

    /// Adds a cell from tightly packed RGBA pixels of `layout.cellSize`. Throws `PaletteMiss` when the sheet
    /// is indexed and a pixel is not in the palette.
    public func addCell(copying pixels: UnsafeRawBufferPointer) throws {
        let width = layout.cellSize.width
        let rowBytes = width * 4
        precondition(pixels.count >= rowBytes * layout.cellSize.height)
        let source = pixels.baseAddress!
        if let palette {
            try placeCell { destination, stride in
                var ok = true
                for y in 0..<layout.cellSize.height {
                    ok = palette.map(
                        (source + y * rowBytes).assumingMemoryBound(to: UInt32.self),
                        into: (destination + y * stride).assumingMemoryBound(to: UInt8.self), count: width) && ok
                }
                if !ok { throw PaletteMiss() }
            }
        } else {
            try placeCell { destination, stride in
                for y in 0..<layout.cellSize.height {
                    (destination + y * stride).copyMemory(from: source + y * rowBytes, byteCount: rowBytes)
                }
            }
        }
    }

    /// Checks every cell was written (each page was finished when its last cell arrived).
    public func finish() throws {
        guard nextCell == layout.cellCount else {
            throw GifDecodeError(.truncated, at: nil, "only \(nextCell) of \(layout.cellCount) sprite cells could be decoded")
        }
    }

    // MARK: pages

    private func beginPage(_ page: SpriteLayout.Page) throws {
        stride = page.width * bytesPerPixel
        rowBuffer.initializeMemory(as: UInt8.self, repeating: 0, count: rowCapacity)
        guard let writer = gifx_png_writer_create(
            descriptors[page.index], UInt32(page.width), UInt32(page.height), settings.level)
        else {
            throw OutputError(path: paths[page.index], reason: "out of memory", failure: .internalError)
        }
        png = writer
        try check(gifx_png_writer_set_filters(writer, settings.filters, settings.strategy), page: page.index)
        if let palette {
            let rgba = palette.rgbaBytes
            try check(gifx_png_writer_set_palette(writer, rgba, Int32(rgba.count / 4)), page: page.index)
        }
        try check(gifx_png_writer_begin(writer), page: page.index)
    }

    private func flushRow(page: SpriteLayout.Page, row: Int, filledColumns: Int) throws {
        guard let png else { return }
        if filledColumns < page.columns {
            // The last row of a page: clear the slots the previous row left behind.
            let start = filledColumns * (layout.slotWidth + layout.padding) * bytesPerPixel
            for y in 0..<layout.slotHeight {
                (rowBuffer + y * stride + start).initializeMemory(as: UInt8.self, repeating: 0, count: stride - start)
            }
        }
        try check(
            gifx_png_writer_write_rows(
                png, rowBuffer.assumingMemoryBound(to: UInt8.self), UInt32(layout.slotHeight), stride),
            page: page.index)
        if row < page.rows - 1 && layout.padding > 0 {
            try check(
                gifx_png_writer_write_rows(png, blankRow.assumingMemoryBound(to: UInt8.self), UInt32(layout.padding), 0),
                page: page.index)
        }
    }

    private func finishPage(_ page: SpriteLayout.Page) throws {
        guard let writer = png else { return }
        try check(gifx_png_writer_finish(writer), page: page.index)
        gifx_png_writer_destroy(writer)
        png = nil
    }

    private func check(_ status: Int32, page: Int) throws {
        guard status != 0, let png else { return }
        if status == -2 { throw OutputError.writing(paths[page], errno: gifx_png_writer_errno(png)) }
        throw OutputError(
            path: paths[page], reason: "PNG encoder: \(String(cString: gifx_png_writer_error(png)))",
            failure: .internalError)
    }

    // MARK: extrusion

    /// Repeats the cell's outermost pixels `extrude` times outward: left and right on each row, then the
    /// whole first and last rows (corners included) upward and downward.
    private func extrude(_ slot: UnsafeMutableRawPointer) {
        let e = layout.extrude, w = layout.cellSize.width, h = layout.cellSize.height, b = bytesPerPixel
        for y in 0..<h {
            let row = slot + (e + y) * stride
            for k in 0..<e {
                (row + k * b).copyMemory(from: row + e * b, byteCount: b)
                (row + (e + w + k) * b).copyMemory(from: row + (e + w - 1) * b, byteCount: b)
            }
        }
        let slotBytes = layout.slotWidth * b
        for k in 0..<e {
            (slot + k * stride).copyMemory(from: slot + e * stride, byteCount: slotBytes)
            (slot + (e + h + k) * stride).copyMemory(from: slot + (e + h - 1) * stride, byteCount: slotBytes)
        }
    }
}
