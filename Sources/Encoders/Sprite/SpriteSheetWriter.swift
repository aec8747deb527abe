internal import CPng
import Foundation
import GifxFrames

#if canImport(Glibc)
import Glibc
#endif

/// libpng settings for sprite sheets.
package struct PNGSettings: Hashable, Sendable {
    /// zlib level 0...9.
    package var level: Int32
    /// PNG row filters, a mask of libpng's PNG_FILTER_* bits.
    package var filters: Int32
    /// zlib strategy: 0 default, 1 filtered, 2 Huffman only, 3 RLE.
    package var strategy: Int32
    /// Threads deflating a page's blocks (zlib is most of a noisy sheet's time); 1 deflates them on the
    /// writing thread, with the same bytes. Only with `blockDeflate`.
    package var deflateThreads: Int
    /// Deflate the image data in independent 512 KiB blocks (pigz's scheme) so that the bytes do not depend
    /// on the thread count; false keeps libpng's single stream.
    package var blockDeflate = false

    package init(level: Int32, filters: Int32, strategy: Int32, deflateThreads: Int = 1) {
        self.level = level; self.filters = filters; self.strategy = strategy; self.deflateThreads = deflateThreads
    }

    /// `PNGLevel.fast`: zlib level 1, no row filter, default strategy (the writers' default when no
    /// settings are given; `SheetPixelFormat.settings(_:)` chooses per colour type and level).
    package static let fast = PNGSettings(level: 1, filters: Int32(PNG_FILTER_NONE), strategy: 0)
}

/// A colour outside the sheet's palette: the encoder starts over in RGBA.
struct PaletteMiss: Error {}

/// Streams grid sprite-sheet pages into PNGs: cells arrive in cell order, are placed into a buffer holding
/// one row of slots (the widest page's width × one slot's height), and each completed row of slots is
/// written to libpng at once. The sheet itself never exists in memory. Pixels are buffered as RGBA, or one
/// palette index each for an indexed sheet (entry 0 transparent, so zero bytes are transparent either way).
package final class SpriteSheetWriter {
    package let layout: SpriteLayout
    /// Bytes of the row-of-cells buffer (for the caller's statistics).
    package var rowBufferBytes: Int { rowCapacity }
    private let descriptors: [Int32]
    private let paths: [String]
    private let settings: PNGSettings
    private let format: SheetPixelFormat
    private let palette: SheetPalette?
    private let bytesPerPixel: Int
    private let rowCapacity: Int
    private let rowBuffer: UnsafeMutableRawPointer
    /// One transparent row, for padding between rows of slots.
    private let blankRow: UnsafeMutableRawPointer
    private var nextCell = 0
    private var png: PNGPageEncoder?
    private var stride = 0

    /// `fileDescriptors[k]` receives page `k` (named `paths[k]` in errors); the caller owns and closes them.
    /// An indexed sheet takes cells through `addCell(copying:)` (RGBA canvases, mapped to indices).
    package init(
        layout: SpriteLayout, fileDescriptors: [Int32], paths: [String], settings: PNGSettings = .fast,
        format: SheetPixelFormat = .rgba
    ) {
        precondition(fileDescriptors.count == layout.pageCount && paths.count == layout.pageCount)
        self.layout = layout
        descriptors = fileDescriptors
        self.paths = paths
        self.settings = settings
        self.format = format
        if case .indexed(let palette) = format { self.palette = palette } else { palette = nil }
        bytesPerPixel = format.bufferBytesPerPixel
        rowCapacity = layout.maxPageWidth * bytesPerPixel * layout.slotHeight
        rowBuffer = .allocate(byteCount: max(1, rowCapacity), alignment: 64)
        rowBuffer.initializeMemory(as: UInt8.self, repeating: 0, count: rowCapacity)
        blankRow = .allocate(byteCount: max(1, layout.maxPageWidth * bytesPerPixel), alignment: 64)
        blankRow.initializeMemory(as: UInt8.self, repeating: 0, count: layout.maxPageWidth * bytesPerPixel)
    }

    /// Whether the pages are indexed-colour PNGs.
    package var isIndexed: Bool { palette != nil }

    deinit {
        rowBuffer.deallocate()
        blankRow.deallocate()
    }

    /// Cells written so far.
    package var cellsWritten: Int { nextCell }

    /// Adds the next cell: `fill` writes `layout.cellSize` RGBA pixels at the pointer, rows `stride` bytes
    /// apart (a scaler writes straight into the row buffer this way). Then the edges are extruded and,
    /// when the row of slots is complete, it goes to the PNG.
    package func addCell(_ fill: (_ pixels: UnsafeMutableRawPointer, _ stride: Int) throws -> Void) throws {
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
    package func addCell(copying pixels: UnsafeRawBufferPointer) throws {
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
    package func finish() throws {
        guard nextCell == layout.cellCount else {
            throw GifDecodeError(.truncated, at: nil, "only \(nextCell) of \(layout.cellCount) sprite cells could be decoded")
        }
    }

    // MARK: pages

    private func beginPage(_ page: SpriteLayout.Page) throws {
        stride = page.width * bytesPerPixel
        rowBuffer.initializeMemory(as: UInt8.self, repeating: 0, count: rowCapacity)
        png = try PNGPageEncoder(
            fileDescriptor: descriptors[page.index], path: paths[page.index], width: page.width,
            height: page.height, format: format, settings: settings)
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
        try png.writeRows(rowBuffer, count: layout.slotHeight, stride: stride)
        if row < page.rows - 1 && layout.padding > 0 { try png.writeBlankRows(layout.padding) }
    }

    private func finishPage(_ page: SpriteLayout.Page) throws {
        guard let writer = png else { return }
        // Power-of-two pages: the rows below the last row of slots.
        try writer.writeBlankRows(page.height - page.usedHeight)
        try writer.finish()
        png = nil
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
