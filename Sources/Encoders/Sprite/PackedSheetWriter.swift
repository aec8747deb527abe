import Foundation
import GifxFrames
import GifxTimeline

/// Writes the pages of a `PackedLayout` (trimmed and/or MaxRects-packed cells): one page at a time is held
/// in memory (its width × height in the buffer format), cells are copied in cell order from their frame's
/// pixels (only their source rect) and extruded, and when a page's last cell has arrived the page goes to
/// libpng row by row. Memory is bounded by the page size limit squared (64 MiB RGBA at 4096, 16 MiB indexed).
package final class PackedSheetWriter {
    package let layout: PackedLayout
    private let descriptors: [Int32]
    private let paths: [String]
    private let settings: PNGSettings
    private let format: SheetPixelFormat
    private let palette: SheetPalette?
    private let bytesPerPixel: Int
    private var page: UnsafeMutableRawPointer?
    private var pageIndex = -1
    private var stride = 0
    private var nextCell = 0
    /// Largest page buffer held (for the caller's statistics).
    package private(set) var pageBufferBytes = 0

    package init(
        layout: PackedLayout, fileDescriptors: [Int32], paths: [String], settings: PNGSettings,
        format: SheetPixelFormat
    ) {
        precondition(fileDescriptors.count == layout.pageCount && paths.count == layout.pageCount)
        self.layout = layout
        descriptors = fileDescriptors
        self.paths = paths
        self.settings = settings
        self.format = format
        if case .indexed(let palette) = format { self.palette = palette } else { palette = nil }
        bytesPerPixel = format.bufferBytesPerPixel
    }

    deinit { page?.deallocate() }

    package var cellsWritten: Int { nextCell }

    /// Adds the next cell from its frame's tightly packed RGBA pixels (`frameSize`); only the cell's
    /// source rect is copied. Throws `PaletteMiss` when indexed and a pixel is not in the palette.
    package func addCell(frame pixels: UnsafeRawBufferPointer, frameSize: CanvasSize) throws {
        precondition(nextCell < layout.cellCount, "more cells than the layout holds")
        let (pageOfCell, rect) = layout.region(ofCell: nextCell)
        if pageOfCell != pageIndex { try beginPage(pageOfCell) }
        guard let page else { return }
        let source = layout.source(ofCell: nextCell)
        let base = pixels.baseAddress!
        let frameStride = frameSize.width * 4
        for y in 0..<rect.height {
            let from = base + (source.y + y) * frameStride + source.x * 4
            let to = page + (rect.y + y) * stride + rect.x * bytesPerPixel
            if let palette {
                if !palette.map(
                    from.assumingMemoryBound(to: UInt32.self), into: to.assumingMemoryBound(to: UInt8.self),
                    count: rect.width)
                {
                    throw PaletteMiss()
                }
            } else {
                to.copyMemory(from: from, byteCount: rect.width * 4)
            }
        }
        if layout.extrude > 0 { extrude(rect) }
        nextCell += 1
        if nextCell == layout.cells(onPage: pageIndex).upperBound { try writePage() }
    }

    /// Checks every cell was written.
    package func finish() throws {
        guard nextCell == layout.cellCount else {
            throw GifDecodeError(.truncated, at: nil, "only \(nextCell) of \(layout.cellCount) sprite cells could be decoded")
        }
    }

    private func beginPage(_ index: Int) throws {
        let size = layout.pageSize(index)
        stride = size.width * bytesPerPixel
        let bytes = stride * size.height
        if bytes > pageBufferBytes {
            page?.deallocate()
            page = .allocate(byteCount: max(1, bytes), alignment: 64)
            pageBufferBytes = bytes
        }
        page?.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
        pageIndex = index
    }

    private func writePage() throws {
        guard let page else { return }
        let size = layout.pageSize(pageIndex)
        let png = try PNGPageEncoder(
            fileDescriptor: descriptors[pageIndex], path: paths[pageIndex], width: size.width, height: size.height,
            format: format, settings: settings)
        // In bands, so an RGB page is narrowed a band at a time.
        var y = 0
        while y < size.height {
            let rows = min(64, size.height - y)
            try png.writeRows(page + y * stride, count: rows, stride: stride)
            y += rows
        }
        try png.finish()
    }

    /// Copies the cell's edge pixels outward `extrude` times (exact values, no blending): left and right on
    /// each row, then the whole widened first and last rows up and down (corners included).
    private func extrude(_ rect: PixelRect) {
        guard let page else { return }
        let e = layout.extrude, b = bytesPerPixel
        for y in rect.y..<(rect.y + rect.height) {
            let row = page + y * stride
            for k in 1...e {
                (row + (rect.x - k) * b).copyMemory(from: row + rect.x * b, byteCount: b)
                (row + (rect.x + rect.width - 1 + k) * b).copyMemory(
                    from: row + (rect.x + rect.width - 1) * b, byteCount: b)
            }
        }
        let left = page + (rect.x - e) * b, bytes = (rect.width + 2 * e) * b
        for k in 1...e {
            (left + (rect.y - k) * stride).copyMemory(from: left + rect.y * stride, byteCount: bytes)
            (left + (rect.y + rect.height - 1 + k) * stride).copyMemory(
                from: left + (rect.y + rect.height - 1) * stride, byteCount: bytes)
        }
    }
}
