import Foundation
import GifxFrames
import GifxPOSIXFiles
import GifxPipeline
import SystemPackage
import GifxTimeline

#if canImport(Glibc)
import Glibc
#endif

/// The sprite sheet sink: PNG page(s) (the streamed grid, or packed pages one at a time), then the
/// description, streamed.
///
/// It asks for a pre-pass when the layout or the PNG colour type depends on the pixels: deduplication (which
/// frames repeat), trimming / max-rects packing (the regions' sizes), or a colour type the GIF's palettes
/// cannot settle (`SpritePrePass`, `ColourCensus`). Nothing but digests, bounds and a bounded colour count
/// is kept between the passes.
package final class SpriteSheetSink: ConversionSink {
    package let options: SpriteOptions
    private let context: ConversionContext
    private let cellSize: CanvasSize
    private var prePassState: SpritePrePass?
    private var grid: SpriteLayout?
    private var geometry: (any SheetGeometry)!
    private var pagePaths: [String] = []
    private var documentPaths: [String] = []
    private var pageOutputs: [AtomicOutput] = []
    private var documentOutputs: [AtomicOutput] = []
    private let hint: SheetPalette?
    private var format: SheetPixelFormat = .rgba
    private var gridWriter: SpriteSheetWriter?
    private var packedWriter: PackedSheetWriter?
    private var scaler: RGBAScaler?
    private let scratch: UnsafeMutableRawBufferPointer
    /// Set when a canvas fell outside the palette: the pages are rewritten in RGBA in one more pass.
    private var restartInRGBA = false
    private var passesWritten = 0
    private var rowBufferBytes = 0

    /// Plans the sheet: fails (before any decoding) when there are no frames, when one cell cannot fit
    /// the sheet (untrimmed), or when the description exists and may not be replaced.
    package init(options: SpriteOptions, context: ConversionContext) throws {
        self.options = options
        self.context = context
        guard context.frameCount > 0 else {
            throw GifDecodeError(.malformed, at: nil, "no frames to put on a sheet")
        }
        cellSize = options.size.size(for: context.canvas)
        if !options.trim {
            _ = try SpriteLayout(
                cellSize: cellSize, cellCount: 1, padding: options.padding, extrude: options.extrude,
                maxSize: options.maxSize, columns: options.columns, powerOfTwo: options.powerOfTwo)
        }
        if case .file(let path) = options.json, !context.settings.overwrite && FileManager.default.fileExists(atPath: path) {
            throw OutputError.exists(path)
        }
        let scaled = cellSize != context.canvas
        scaler = scaled ? try RGBAScaler(from: context.canvas, to: cellSize) : nil
        scratch = .allocate(byteCount: scaled ? cellSize.width * cellSize.height * 4 : 0, alignment: 64)
        hint = scaled ? nil : SheetPalette.make(path: context.inputPath, metadata: context.metadata)
        if options.dedupe || packed || hint == nil {
            prePassState = SpritePrePass(cellSize: cellSize, dedupe: options.dedupe, trim: options.trim)
        }
    }

    deinit { scratch.deallocate() }

    /// The page buffer (grid: one row of slots as wide as the sheet may be; packed: a whole page, at most
    /// every cell's area), the scaled-cell scratch and the block deflater's buffers (4 blocks in, 4 out).
    /// A grid known to be indexed before any pixel (the GIF's palettes hold the sheet's colours, no pre-pass)
    /// buffers one byte a pixel, else four. Measured at 1280×720 (250 cells, 17 pages of 3 × 5): 7.9 MiB of
    /// peak RSS over the same run without the sheet, where four bytes a pixel estimated 16.2 MiB.
    package var memoryDemand: MemoryDemand? {
        let border = 2 * (options.padding + options.extrude)
        let slot = (width: cellSize.width + border, height: cellSize.height + border)
        let side = max(1, options.maxSize)
        let pageBytes: Int
        if packed {
            let (cells, overflow) = (slot.width * slot.height).multipliedReportingOverflow(by: frameCount)
            pageBytes = min(side * side, overflow ? Int.max / 8 : cells) * 4
        } else {
            let indexed = hint != nil && prePassState == nil && !options.forceRGBA
            pageBytes = min(side, slot.width * frameCount) * slot.height * (indexed ? 1 : 4)
        }
        return MemoryDemand(
            consumer: "sprite sheet \(options.pngPath)", bytes: pageBytes + scratch.count + (5 << 20),
            setting: packed ? "page buffer" : "row-of-cells buffer")
    }

    private var frameCount: Int { context.frameCount }
    private var packed: Bool { options.trim || options.packing == .maxrects }
    private var deduper: FrameDeduper? { prePassState?.deduper }
    private var cellCount: Int { deduper?.cellCount ?? frameCount }

    /// A canvas as it goes on the sheet: scaled into `scratch`, or as it is.
    private func cellPixels(_ canvas: Canvas) -> UnsafeRawBufferPointer {
        guard let scaler else { return canvas.pixels }
        scaler.scale(canvas.pixels, into: scratch.baseAddress!, stride: cellSize.width * 4)
        return UnsafeRawBufferPointer(scratch)
    }

    // MARK: Pre-pass: repeats, trim bounds, colours.

    package var needsPrePass: Bool { prePassState != nil }

    package func prePass(_ canvas: Canvas) throws { prePassState?.add(canvas, cellPixels: cellPixels) }

    package func endPrePass(delivered: Int) throws {
        try requireAllFrames(prePassState?.framesSeen ?? delivered, of: frameCount)
    }

    // MARK: Open: the geometry and colour type, then every output before the first pixel is written.

    package func open(in transaction: OutputTransaction) throws {
        let hasGaps: Bool
        if packed, let prePassState {
            let layout = try PackedLayout(
                cellCount: cellCount, source: { prePassState.source(ofCell: $0) }, packing: options.packing,
                padding: options.padding, extrude: options.extrude, maxSize: options.maxSize,
                powerOfTwo: options.powerOfTwo, trimmed: options.trim)
            geometry = layout
            hasGaps = layout.hasGaps
        } else {
            let layout = try SpriteLayout(
                cellSize: cellSize, cellCount: cellCount, padding: options.padding, extrude: options.extrude,
                maxSize: options.maxSize, columns: options.columns, powerOfTwo: options.powerOfTwo)
            grid = layout
            geometry = layout
            hasGaps = layout.hasGaps
        }
        if options.format == .aseprite && geometry.pageCount > 1 {
            throw SpriteLayoutError.singleSheetFormat(name: "aseprite", pages: geometry.pageCount, maxSize: options.maxSize)
        }
        if options.forceRGBA {
            format = .rgba
        } else if let prePassState {
            format = .choose(census: prePassState.census, hasGaps: hasGaps)
        } else if let hint {
            format = .indexed(hint)
        }
        if options.png.descriptor != nil && geometry.pageCount > 1 {
            throw OutputError(
                path: options.png.displayName,
                reason: "the sheet needs \(geometry.pageCount) pages; only a one-page sheet can go to standard output",
                failure: .usage)
        }
        pagePaths = spritePagePaths(options.pngPath, pageCount: geometry.pageCount)
        documentPaths = spriteDocumentPaths(options.jsonPath, format: options.format, pageCount: geometry.pageCount)
        try OutputTransaction.ensureOpenFiles(geometry.pageCount + documentPaths.count, for: options.pngPath)
        // A descriptor target is the one page (or the first document); every other name is a file beside it.
        pageOutputs = try pagePaths.map { try transaction.add(options.png.descriptor != nil ? options.png : .file($0)) }
        documentOutputs = try documentPaths.enumerated().map { k, path in
            try transaction.add(k == 0 ? options.json : .file(path))
        }
    }

    /// The sheet's name for the description: its path, or for a sheet sent to standard output the JSON's name
    /// with `.png` (where the reader of the pipe is expected to store it).
    private var sheetName: String {
        guard options.png.descriptor != nil else { return options.pngPath }
        return URL(fileURLWithPath: options.jsonPath).deletingPathExtension().path + ".png"
    }

    // MARK: The sheet pass.

    package var plannedPasses: Int { 1 }

    private var cellsWritten: Int { gridWriter?.cellsWritten ?? packedWriter?.cellsWritten ?? 0 }

    package func beginPass(_ pass: Int) throws -> Bool {
        guard passesWritten == 0 || restartInRGBA else { return false }
        if restartInRGBA {
            restartInRGBA = false
            format = .rgba
            for output in pageOutputs {
                do {
                    try output.descriptor!.resize(to: 0)
                    try output.descriptor!.seek(offset: 0, from: .start)
                } catch {
                    throw OutputError.writing(output.displayPath, errno: (error as? Errno)?.rawValue ?? EIO)
                }
            }
        }
        var settings = format.settings(options.pngLevel)
        settings.deflateThreads = context.settings.resolvedPNGDeflateThreads
        settings.blockDeflate = context.settings.diagnostics.pngDeflateThreads != 1
        let descriptors = pageOutputs.map(\.fileDescriptor)
        gridWriter = grid.map {
            SpriteSheetWriter(layout: $0, fileDescriptors: descriptors, paths: pagePaths, settings: settings, format: format)
        }
        packedWriter = (geometry as? PackedLayout).map {
            PackedSheetWriter(layout: $0, fileDescriptors: descriptors, paths: pagePaths, settings: settings, format: format)
        }
        return true
    }

    package func consume(_ canvas: Canvas) throws -> Bool {
        guard gridWriter != nil || packedWriter != nil, !restartInRGBA else { return false }
        if let deduper, deduper.sourceFrameOfCell[cellsWritten] != canvas.index { return true }
        do {
            let pixels = cellPixels(canvas)
            try gridWriter?.addCell(copying: pixels)
            try packedWriter?.addCell(frame: pixels, frameSize: cellSize)
        } catch is PaletteMiss {
            // Cannot happen with the census's or the compositor's colours; kept correct rather than assumed:
            // start over in RGBA.
            restartInRGBA = true
            return false
        }
        // When deduplicating, the frames after the last distinct cell are repeats.
        return deduper == nil || cellsWritten < cellCount
    }

    package func endPass(delivered: Int) throws {
        guard !restartInRGBA else { return }
        if deduper == nil { try requireAllFrames(delivered, of: frameCount) }
        try gridWriter?.finish()
        try packedWriter?.finish()
        rowBufferBytes = gridWriter?.rowBufferBytes ?? packedWriter?.pageBufferBytes ?? 0
        passesWritten += 1
        gridWriter = nil
        packedWriter = nil
    }

    // MARK: The description, streamed, written last.

    package func finish() throws {
        try description().write(
            options.format,
            to: documentOutputs.map { TextOutput(fileDescriptor: $0.fileDescriptor, path: $0.displayPath) },
            documentNames: documentPaths.map { relativePath($0, from: options.jsonPath) })
    }

    private func description() -> SpriteSheetDescription {
        let timeline = context.timeline
        let geometry = self.geometry!
        let deduper = self.deduper
        func frameOf(cell: Int, frame index: Int) -> SpriteSheetDescription.Frame {
            let (page, rect) = geometry.region(ofCell: cell)
            let delay = timeline.frames[index].delay
            return .init(
                cell: cell, page: page, rect: rect, source: geometry.source(ofCell: cell),
                delay: timeline.wholeCentiseconds(delay), duration: MediaTime(delay, timescale: timeline.timescale))
        }
        return SpriteSheetDescription(
            name: options.name ?? URL(fileURLWithPath: sheetName).deletingPathExtension().lastPathComponent,
            images: pagePaths.enumerated().map { k, path in
                .init(name: relativePath(options.png.descriptor != nil ? sheetName : path, from: options.jsonPath), size: geometry.pageSize(k))
            },
            frameCount: frameCount,
            frame: { index in
                frameOf(cell: deduper.map { Int($0.cellOfFrame[index]) } ?? index, frame: index)
            },
            cellCount: cellCount,
            cellFrame: { cell in
                let source = deduper.map { $0.sourceFrameOfCell[cell] } ?? cell
                return frameOf(cell: cell, frame: source)
            },
            sourceSize: context.canvas, frameSize: cellSize, trimmed: options.trim,
            loopCount: timeline.loop.count, plays: timeline.loop.plays, policy: timeline.policy,
            padding: options.padding, extrude: options.extrude, cellsSaved: deduper?.cellsSaved)
    }

    package var result: any OutputResult {
        SpriteResult(
            pagePaths: pagePaths, jsonPath: options.jsonPath,
            pageSizes: geometry.map { g in (0..<g.pageCount).map(g.pageSize) } ?? [],
            frames: frameCount, cells: cellCount, cellsSaved: deduper?.cellsSaved ?? 0,
            cellSize: cellSize, columns: grid?.columns ?? 0, pixelFormat: format.name, documentPaths: documentPaths,
            peakCacheBytes: 0, rowBufferBytes: rowBufferBytes, warnings: [])
    }
}

private func requireAllFrames(_ delivered: Int, of expected: Int) throws {
    guard delivered == expected else {
        throw GifDecodeError(.truncated, at: nil, "only \(delivered) of \(expected) frames could be decoded")
    }
}
