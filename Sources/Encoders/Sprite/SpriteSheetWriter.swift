import CPng
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

    /// What `to-sprite` uses: zlib level 1, the SUB filter only, default strategy. Measured on the benchmark
    /// GIFs (see the sprite report): libpng's default adaptive filtering (all five filters tried per row)
    /// and higher levels cost 3–10× the time for 5–25 % smaller files; SUB alone keeps most of the gain of
    /// filtering on flat-coloured animation frames at a fraction of the cost.
    public static let fast = PNGSettings(level: 1, filters: Int32(PNG_FILTER_SUB), strategy: 0)
}

/// Streams sprite-sheet pages into PNGs: cells arrive in cell order, are placed into a buffer holding one
/// row of slots (the widest page's width × one slot's height), and each completed row of slots is written
/// to libpng at once. The sheet itself never exists in memory.
public final class SpriteSheetWriter {
    public let layout: SpriteLayout
    /// Bytes of the row-of-cells buffer (for `--stats`).
    public var rowBufferBytes: Int { rowCapacity }
    private let descriptors: [Int32]
    private let paths: [String]
    private let settings: PNGSettings
    private let rowCapacity: Int
    private let rowBuffer: UnsafeMutableRawPointer
    /// One transparent row, for padding between rows of slots.
    private let blankRow: UnsafeMutableRawPointer
    private var nextCell = 0
    private var png: OpaquePointer?
    private var stride = 0

    /// `fileDescriptors[k]` receives page `k` (named `paths[k]` in errors); the caller owns and closes them.
    public init(layout: SpriteLayout, fileDescriptors: [Int32], paths: [String], settings: PNGSettings = .fast) {
        precondition(fileDescriptors.count == layout.pageCount && paths.count == layout.pageCount)
        self.layout = layout
        descriptors = fileDescriptors
        self.paths = paths
        self.settings = settings
        rowCapacity = layout.maxPageWidth * 4 * layout.slotHeight
        rowBuffer = .allocate(byteCount: max(1, rowCapacity), alignment: 64)
        rowBuffer.initializeMemory(as: UInt8.self, repeating: 0, count: rowCapacity)
        blankRow = .allocate(byteCount: max(1, layout.maxPageWidth * 4), alignment: 64)
        blankRow.initializeMemory(as: UInt8.self, repeating: 0, count: layout.maxPageWidth * 4)
    }

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
        precondition(nextCell < layout.cellCount, "more cells than the layout holds")
        let placement = layout.placement(ofCell: nextCell)
        let page = layout.page(placement.page)
        if page.firstCell == nextCell { try beginPage(page) }
        let slot = rowBuffer + placement.column * (layout.slotWidth + layout.padding) * 4
        try fill(slot + layout.extrude * stride + layout.extrude * 4, stride)
        if layout.extrude > 0 { extrude(slot) }
        nextCell += 1
        let lastOnPage = nextCell == page.firstCell + page.cellCount
        if placement.column == page.columns - 1 || lastOnPage {
            try flushRow(page: page, row: placement.row, filledColumns: placement.column + 1)
        }
        if lastOnPage { try finishPage(page) }
    }

    /// Adds a cell from tightly packed RGBA pixels of `layout.cellSize`.
    public func addCell(copying pixels: UnsafeRawBufferPointer) throws {
        let rowBytes = layout.cellSize.width * 4
        precondition(pixels.count >= rowBytes * layout.cellSize.height)
        try addCell { destination, stride in
            for y in 0..<layout.cellSize.height {
                (destination + y * stride).copyMemory(from: pixels.baseAddress! + y * rowBytes, byteCount: rowBytes)
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
        stride = page.width * 4
        rowBuffer.initializeMemory(as: UInt8.self, repeating: 0, count: rowCapacity)
        guard let writer = gifx_png_writer_create(
            descriptors[page.index], UInt32(page.width), UInt32(page.height), settings.level)
        else {
            throw OutputError(path: paths[page.index], reason: "out of memory", exitCode: ExitStatus.software)
        }
        png = writer
        try check(gifx_png_writer_set_filters(writer, settings.filters, settings.strategy), page: page.index)
        try check(gifx_png_writer_begin(writer), page: page.index)
    }

    private func flushRow(page: SpriteLayout.Page, row: Int, filledColumns: Int) throws {
        guard let png else { return }
        if filledColumns < page.columns {
            // The last row of a page: clear the slots the previous row left behind.
            let start = filledColumns * (layout.slotWidth + layout.padding) * 4
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
            exitCode: ExitStatus.software)
    }

    // MARK: extrusion

    /// Repeats the cell's outermost pixels `extrude` times outward: left and right on each row, then the
    /// whole first and last rows (corners included) upward and downward.
    private func extrude(_ slot: UnsafeMutableRawPointer) {
        let e = layout.extrude, w = layout.cellSize.width, h = layout.cellSize.height
        for y in 0..<h {
            let row = slot + (e + y) * stride
            let left = row.load(fromByteOffset: e * 4, as: UInt32.self)
            let right = row.load(fromByteOffset: (e + w - 1) * 4, as: UInt32.self)
            for k in 0..<e {
                row.storeBytes(of: left, toByteOffset: k * 4, as: UInt32.self)
                row.storeBytes(of: right, toByteOffset: (e + w + k) * 4, as: UInt32.self)
            }
        }
        let slotBytes = layout.slotWidth * 4
        for k in 0..<e {
            (slot + k * stride).copyMemory(from: slot + e * stride, byteCount: slotBytes)
            (slot + (e + h + k) * stride).copyMemory(from: slot + (e + h - 1) * stride, byteCount: slotBytes)
        }
    }
}
