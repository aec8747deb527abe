import Foundation
import Frames
import Timeline

#if canImport(Glibc)
import Glibc
#endif

/// What `gifx to-sprite` was asked for.
public struct SpriteOptions: Sendable {
    /// The sheet's PNG; with several pages, `NAME-0.png`, `NAME-1.png`, … beside it instead.
    public var pngPath: String
    public var jsonPath: String
    public var format: SpriteJSONFormat = .yy
    public var columns: Int?
    public var maxSize = 4096
    public var size: SizeRequest = .original
    public var padding = 0
    public var extrude = 0
    public var dedupe = false
    public var policy: TimelinePolicy = .flanimated
    public var overwrite = false
    public var limits: DecodeLimits = .default
    public var memoryBudget: Int?
    /// Base of frame names in the hash formats (default: the PNG's file name without extension).
    public var name: String?
    public var png: PNGSettings = .fast

    public init(pngPath: String, jsonPath: String) {
        self.pngPath = pngPath; self.jsonPath = jsonPath
    }
}

/// What was written, for the summary line and `--stats`.
public struct SpriteResult: Sendable {
    public var pagePaths: [String]
    public var jsonPath: String
    public var pageSizes: [CanvasSize]
    public var frames: Int
    public var cells: Int
    /// Frames that reuse an earlier cell (0 without `--dedupe`).
    public var cellsSaved: Int
    public var cellSize: CanvasSize
    public var columns: Int
    /// Whether the pages were written as indexed-colour PNGs (the GIF's palettes hold ≤ 255 colours).
    public var indexed: Bool
    public var peakCacheBytes: Int
    public var rowBufferBytes: Int
    /// Decoder and schedule warnings (damaged data kept, and the like).
    public var warnings: [String]
}

/// Progress callback: frames handled so far and the total (twice the frame count with `--dedupe`,
/// which reads the GIF twice).
public typealias SpriteProgress = (_ done: Int, _ total: Int) -> Void

/// Writes the sprite sheet of the GIF at `inputPath`: PNG page(s) streamed a row of cells at a time, then
/// the JSON; every file appears together (committed atomically) or none does.
///
/// `--dedupe` needs the number of distinct cells before the first PNG header (the sheet's height depends
/// on it), so it reads the GIF twice: a first pass hashes every canvas (`CanvasDigest`), the second writes
/// only the first frame of each distinct canvas. Nothing but digests is kept between the passes.
public func writeSpriteSheet(
    inputPath: String, options: SpriteOptions, progress: SpriteProgress? = nil
) throws -> SpriteResult {
    let metadata = try readGifMetadata(path: inputPath, limits: options.limits)
    let timeline = Timeline(metadata.timelineInput, policy: options.policy)
    let frameCount = metadata.images.count
    guard frameCount > 0 else { throw GifDecodeError(.malformed, at: nil, "no frames to put on a sheet") }
    let cellSize = options.size.size(for: metadata.canvas)
    // Fails fast (before any decoding) when one cell cannot fit the sheet.
    _ = try SpriteLayout(
        cellSize: cellSize, cellCount: 1, padding: options.padding, extrude: options.extrude,
        maxSize: options.maxSize, columns: options.columns)
    if !options.overwrite && FileManager.default.fileExists(atPath: options.jsonPath) {
        throw OutputError(
            path: options.jsonPath, reason: "already exists (use --overwrite to replace it)",
            exitCode: ExitStatus.cannotCreate)
    }
    let total = options.dedupe ? 2 * frameCount : frameCount
    var done = 0
    var warnings = timeline.warnings

    // Pass 1 (--dedupe only): which frames share a canvas.
    var deduper: FrameDeduper?
    var peakCacheBytes = 0
    if options.dedupe {
        var plan = FrameDeduper()
        let stream = try FrameStream(
            path: inputPath, metadata: metadata, limits: options.limits, memoryBudget: options.memoryBudget)
        defer { stream.close() }
        while try stream.nextCanvas({ canvas in plan.add(CanvasDigest(canvas.pixels)) }) != nil {
            done += 1
            progress?(done, total)
        }
        try requireAllFrames(plan.cellOfFrame.count, of: frameCount)
        peakCacheBytes = stream.peakCacheBytes
        deduper = plan
    }
    let cellOfFrame = deduper?.cellOfFrame ?? Array(0..<frameCount)
    let cellCount = deduper?.cellCount ?? frameCount
    let layout = try SpriteLayout(
        cellSize: cellSize, cellCount: cellCount, padding: options.padding, extrude: options.extrude,
        maxSize: options.maxSize, columns: options.columns)

    // Every output is created (and checked) before the first pixel is written.
    let pagePaths = spritePagePaths(options.pngPath, pageCount: layout.pageCount)
    try ensureOpenFiles(layout.pageCount + 1, for: options.pngPath)
    let transaction = OutputTransaction(overwrite: options.overwrite)
    var committed = false
    defer { if !committed { transaction.discard() } }
    let pageOutputs = try pagePaths.map { try transaction.add($0) }
    let jsonOutput = try transaction.add(options.jsonPath)

    // Pass 2: the sheet, indexed when the GIF's palettes allow it (see `SheetPalette`), else RGBA.
    let scaled = cellSize != metadata.canvas
    var palette = scaled ? nil : SheetPalette.make(path: inputPath, metadata: metadata)
    var pass: SheetPass
    while true {
        do {
            pass = try writeSheetPass(
                inputPath: inputPath, metadata: metadata, options: options, layout: layout, pagePaths: pagePaths,
                fileDescriptors: pageOutputs.map(\.fileDescriptor), palette: palette, deduper: deduper
            ) { delivered in progress?(done + delivered, total) }
            break
        } catch is PaletteMiss {
            // Cannot happen with the compositor's output; kept correct rather than assumed: start over in RGBA.
            palette = nil
            for output in pageOutputs {
                guard ftruncate(output.fileDescriptor, 0) == 0, lseek(output.fileDescriptor, 0, SEEK_SET) == 0 else {
                    throw OutputError.writing(output.targetPath, errno: errno)
                }
            }
        }
    }
    peakCacheBytes = max(peakCacheBytes, pass.peakCacheBytes)
    warnings += pass.warnings

    // The JSON, then everything at once.
    let sheet = SpriteSheetDescription(
        name: options.name ?? URL(fileURLWithPath: options.pngPath).deletingPathExtension().lastPathComponent,
        images: zip(pagePaths, layout.pages).map { path, page in
            .init(name: relativePath(path, from: options.jsonPath), size: CanvasSize(width: page.width, height: page.height))
        },
        frames: (0..<frameCount).map { frame in
            let placement = layout.placement(ofCell: cellOfFrame[frame])
            return .init(page: placement.page, rect: placement.rect, delay: timeline.frames[frame].delay)
        },
        sourceSize: metadata.canvas, frameSize: cellSize, loopCount: timeline.loop.count,
        plays: timeline.loop.plays, policy: options.policy, padding: options.padding, extrude: options.extrude,
        cellsSaved: deduper?.cellsSaved)
    try writeAll(try sheet.json(options.format), to: jsonOutput)
    try transaction.commit()
    committed = true
    return SpriteResult(
        pagePaths: pagePaths, jsonPath: options.jsonPath,
        pageSizes: layout.pages.map { CanvasSize(width: $0.width, height: $0.height) }, frames: frameCount,
        cells: cellCount, cellsSaved: deduper?.cellsSaved ?? 0, cellSize: cellSize, columns: layout.columns,
        indexed: pass.indexed, peakCacheBytes: peakCacheBytes, rowBufferBytes: pass.rowBufferBytes,
        warnings: warnings)
}

/// What one sheet-writing pass reports.
private struct SheetPass {
    var indexed: Bool
    var peakCacheBytes: Int
    var rowBufferBytes: Int
    var warnings: [String]
}

/// Decodes the GIF once more and streams its cells into the pages.
private func writeSheetPass(
    inputPath: String, metadata: GifMetadata, options: SpriteOptions, layout: SpriteLayout, pagePaths: [String],
    fileDescriptors: [Int32], palette: SheetPalette?, deduper: FrameDeduper?, progress: (Int) -> Void
) throws -> SheetPass {
    let cellSize = layout.cellSize
    let writer = SpriteSheetWriter(
        layout: layout, fileDescriptors: fileDescriptors, paths: pagePaths, settings: options.png, palette: palette)
    let scaler = cellSize == metadata.canvas ? nil : try RGBAScaler(from: metadata.canvas, to: cellSize)
    let stream = try FrameStream(
        path: inputPath, metadata: metadata, limits: options.limits, memoryBudget: options.memoryBudget)
    defer { stream.close() }
    var delivered = 0
    while try stream.nextCanvas({ (canvas: Canvas) throws -> Void in
        if let deduper, deduper.sourceFrameOfCell[writer.cellsWritten] != canvas.index { return }
        if let scaler {
            try writer.addCell { pixels, stride in scaler.scale(canvas.pixels, into: pixels, stride: stride) }
        } else {
            try writer.addCell(copying: canvas.pixels)
        }
    }) != nil {
        delivered += 1
        progress(delivered)
        if deduper != nil && writer.cellsWritten == layout.cellCount { break }  // the rest are repeats
    }
    if deduper == nil { try requireAllFrames(delivered, of: metadata.images.count) }
    try writer.finish()
    return SheetPass(
        indexed: writer.isIndexed, peakCacheBytes: stream.peakCacheBytes, rowBufferBytes: writer.rowBufferBytes,
        warnings: stream.warnings)
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
        reason: "\(outputs) output files would be open at once (limit \(limit.rlim_max)); raise `ulimit -n`, "
            + "or use --scale/--max-size for fewer pages",
        exitCode: ExitStatus.cannotCreate)
}

private func requireAllFrames(_ delivered: Int, of expected: Int) throws {
    guard delivered == expected else {
        throw GifDecodeError(.truncated, at: nil, "only \(delivered) of \(expected) frames could be decoded")
    }
}

private func writeAll(_ data: Data, to output: AtomicOutput) throws {
    try data.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let n = write(output.fileDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw OutputError.writing(output.targetPath, errno: errno)
            }
            offset += n
        }
    }
}
