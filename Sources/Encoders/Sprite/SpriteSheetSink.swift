import Foundation
import Frames
import POSIXFiles
import Timeline

#if canImport(Glibc)
import Glibc
#endif

/// Writes the sprite sheet of the GIF at `inputPath`: PNG page(s) streamed a row of cells at a time, then
/// the JSON; every file appears together (committed atomically) or none does. A `Conversion` with one
/// `SpriteSheetSink`.
public func writeSpriteSheet(
    inputPath: String, options: SpriteOptions, progress: SpriteProgress? = nil
) throws -> SpriteResult {
    let conversion = Conversion(
        inputPath: inputPath, policy: options.policy, limits: options.limits, memoryBudget: options.memoryBudget,
        threads: options.threads, overwrite: options.overwrite)
    let report = try conversion.run([.spriteSheet(options)], progress: progress)
    guard case .spriteSheet(var result) = report.outputs[0] else { preconditionFailure("one sprite sheet asked") }
    result.peakCacheBytes = report.peakCacheBytes
    result.decode = report.decode
    result.warnings = report.warnings
    return result
}

/// The sprite sheet sink: PNG page(s) streamed a row of cells at a time, plus the JSON.
///
/// `--dedupe` needs the number of distinct cells before the first PNG header (the sheet's height depends
/// on it), so it asks for a pre-pass: every canvas is hashed (`CanvasDigest`), then the sheet pass writes
/// only the first frame of each distinct canvas. Nothing but digests is kept between the passes.
/// The pages are indexed when the GIF's palettes allow it (`SheetPalette`), else RGBA.
public final class SpriteSheetSink: ConversionSink {
    public let options: SpriteOptions
    private let context: ConversionContext
    private let cellSize: CanvasSize
    private var deduper: FrameDeduper?
    private var layout: SpriteLayout!
    private var pagePaths: [String] = []
    private var pageOutputs: [AtomicOutput] = []
    private var jsonOutput: AtomicOutput!
    private var palette: SheetPalette?
    private var writer: SpriteSheetWriter?
    private var scaler: RGBAScaler?
    /// Set when a canvas fell outside the palette: the pages are rewritten in RGBA in one more pass.
    private var restartInRGBA = false
    private var passesWritten = 0
    private var indexed = false
    private var rowBufferBytes = 0

    /// Plans the sheet: fails (before any decoding) when there are no frames, when one cell cannot fit
    /// the sheet, or when the JSON exists and may not be replaced.
    public init(options: SpriteOptions, context: ConversionContext) throws {
        self.options = options
        self.context = context
        guard context.metadata.images.count > 0 else {
            throw GifDecodeError(.malformed, at: nil, "no frames to put on a sheet")
        }
        cellSize = options.size.size(for: context.metadata.canvas)
        _ = try SpriteLayout(
            cellSize: cellSize, cellCount: 1, padding: options.padding, extrude: options.extrude,
            maxSize: options.maxSize, columns: options.columns)
        if !context.overwrite && FileManager.default.fileExists(atPath: options.jsonPath) {
            throw OutputError.exists(options.jsonPath)
        }
        if options.dedupe { deduper = FrameDeduper() }
    }

    private var frameCount: Int { context.metadata.images.count }

    // MARK: Pre-pass (--dedupe): which frames share a canvas.

    public var needsPrePass: Bool { options.dedupe }

    public func prePass(_ canvas: Canvas) throws { deduper?.add(CanvasDigest(canvas.pixels)) }

    public func endPrePass(delivered: Int) throws {
        try requireAllFrames(deduper?.cellOfFrame.count ?? delivered, of: frameCount)
    }

    // MARK: Open: every output is created (and checked) before the first pixel is written.

    public func open(in transaction: OutputTransaction) throws {
        layout = try SpriteLayout(
            cellSize: cellSize, cellCount: deduper?.cellCount ?? frameCount, padding: options.padding,
            extrude: options.extrude, maxSize: options.maxSize, columns: options.columns)
        pagePaths = spritePagePaths(options.pngPath, pageCount: layout.pageCount)
        try ensureOpenFiles(layout.pageCount + 1, for: options.pngPath)
        pageOutputs = try pagePaths.map { try transaction.add($0) }
        jsonOutput = try transaction.add(options.jsonPath)
        let scaled = cellSize != context.metadata.canvas
        palette = scaled ? nil : SheetPalette.make(path: context.inputPath, metadata: context.metadata)
        scaler = scaled ? try RGBAScaler(from: context.metadata.canvas, to: cellSize) : nil
    }

    // MARK: The sheet pass.

    public var plannedPasses: Int { 1 }

    public func beginPass(_ pass: Int) throws -> Bool {
        guard passesWritten == 0 || restartInRGBA else { return false }
        if restartInRGBA {
            restartInRGBA = false
            palette = nil
            for output in pageOutputs {
                guard ftruncate(output.fileDescriptor, 0) == 0, lseek(output.fileDescriptor, 0, SEEK_SET) == 0 else {
                    throw OutputError.writing(output.targetPath, errno: errno)
                }
            }
        }
        writer = SpriteSheetWriter(
            layout: layout, fileDescriptors: pageOutputs.map(\.fileDescriptor), paths: pagePaths,
            settings: options.png, palette: palette)
        return true
    }

    public func consume(_ canvas: Canvas) throws -> Bool {
        guard let writer, !restartInRGBA else { return false }
        if let deduper, deduper.sourceFrameOfCell[writer.cellsWritten] != canvas.index { return true }
        do {
            if let scaler {
                try writer.addCell { pixels, stride in scaler.scale(canvas.pixels, into: pixels, stride: stride) }
            } else {
                try writer.addCell(copying: canvas.pixels)
            }
        } catch is PaletteMiss {
            // Cannot happen with the compositor's output; kept correct rather than assumed: start over in RGBA.
            restartInRGBA = true
            return false
        }
        // With --dedupe, the frames after the last distinct cell are repeats.
        return deduper == nil || writer.cellsWritten < layout.cellCount
    }

    public func endPass(delivered: Int) throws {
        guard !restartInRGBA, let writer else { return }
        if deduper == nil { try requireAllFrames(delivered, of: frameCount) }
        try writer.finish()
        indexed = writer.isIndexed
        rowBufferBytes = writer.rowBufferBytes
        passesWritten += 1
        self.writer = nil
    }

    // MARK: The JSON, written last.

    public func finish() throws {
        try writeAll(try description().json(options.format), to: jsonOutput)
    }

    private func description() -> SpriteSheetDescription {
        let cellOfFrame = deduper?.cellOfFrame ?? Array(0..<frameCount)
        let timeline = context.timeline
        return SpriteSheetDescription(
            name: options.name ?? URL(fileURLWithPath: options.pngPath).deletingPathExtension().lastPathComponent,
            images: zip(pagePaths, layout.pages).map { path, page in
                .init(name: relativePath(path, from: options.jsonPath), size: CanvasSize(width: page.width, height: page.height))
            },
            frames: (0..<frameCount).map { frame in
                let placement = layout.placement(ofCell: cellOfFrame[frame])
                return .init(page: placement.page, rect: placement.rect, delay: timeline.frames[frame].delay)
            },
            sourceSize: context.metadata.canvas, frameSize: cellSize, loopCount: timeline.loop.count,
            plays: timeline.loop.plays, policy: context.timeline.policy, padding: options.padding,
            extrude: options.extrude, cellsSaved: deduper?.cellsSaved)
    }

    public var result: OutputResult {
        .spriteSheet(SpriteResult(
            pagePaths: pagePaths, jsonPath: options.jsonPath,
            pageSizes: (layout?.pages ?? []).map { CanvasSize(width: $0.width, height: $0.height) },
            frames: frameCount, cells: deduper?.cellCount ?? frameCount, cellsSaved: deduper?.cellsSaved ?? 0,
            cellSize: cellSize, columns: layout?.columns ?? 0, indexed: indexed, peakCacheBytes: 0,
            rowBufferBytes: rowBufferBytes, warnings: []))
    }
}

/// `OUT.png` for one page; `OUT-0.png`, `OUT-1.png`, … for several.
public func spritePagePaths(_ pngPath: String, pageCount: Int) -> [String] {
    guard pageCount > 1 else { return [pngPath] }
    let url = URL(fileURLWithPath: pngPath)
    let ext = url.pathExtension.isEmpty ? "png" : url.pathExtension
    let stem = url.pathExtension.isEmpty ? pngPath : String(pngPath.dropLast(ext.count + 1))
    return (0..<pageCount).map { "\(stem)-\($0).\(ext)" }
}

/// `path` as seen from the folder of `reference` (the JSON), so the sheet and its JSON can move together.
func relativePath(_ path: String, from reference: String) -> String {
    let target = URL(fileURLWithPath: path).standardizedFileURL.pathComponents
    let base = URL(fileURLWithPath: reference).standardizedFileURL.deletingLastPathComponent().pathComponents
    var common = 0
    while common < min(target.count - 1, base.count) && target[common] == base[common] { common += 1 }
    let ups = Array(repeating: "..", count: base.count - common)
    return (ups + target[common...]).joined(separator: "/")
}

/// Every page stays open (as a hidden temporary file) until the all-or-nothing commit, so thousands of
/// pages need thousands of descriptors: raise the soft limit towards the hard one, or refuse up front.
private func ensureOpenFiles(_ outputs: Int, for path: String) throws {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
    let needed = rlim_t(outputs + 64)
    guard limit.rlim_cur < needed else { return }
    if limit.rlim_max >= needed {
        limit.rlim_cur = needed
        if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 { return }
    }
    throw OutputError(
        path: path,
        reason: "\(outputs) output files would be open at once (limit \(limit.rlim_max))",
        failure: .cannotCreateOutput, kind: .tooManyOpenFiles)
}

private func requireAllFrames(_ delivered: Int, of expected: Int) throws {
    guard delivered == expected else {
        throw GifDecodeError(.truncated, at: nil, "only \(delivered) of \(expected) frames could be decoded")
    }
}

func writeAll(_ data: Data, to output: AtomicOutput) throws {
    let code = data.withUnsafeBytes { POSIXFiles.writeAll(output.fileDescriptor, $0) }
    if code != 0 { throw OutputError.writing(output.targetPath, errno: code) }
}
