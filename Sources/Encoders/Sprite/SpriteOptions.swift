import GifxFrames
import GifxPipeline
import GifxTimeline

/// One sprite sheet's own settings (the run-wide ones are the conversion's `RunSettings`).
public struct SpriteOptions: Sendable {
    /// The sheet's PNG; with several pages (a file only), `NAME-0.png`, `NAME-1.png`, … beside it instead.
    public var png: OutputTarget
    /// The description (JSON, or Godot's `.tres`); TexturePacker's multipack adds `NAME-1.json`, … beside a file.
    public var json: OutputTarget
    public var format: SpriteJSONFormat = .yy
    public var columns: Int?
    public var maxSize = SpriteLayout.defaultMaxSize
    public var size: SizeRequest = .original
    public var padding = 0
    public var extrude = 0
    public var dedupe = false
    /// Base of frame names in the hash formats (default: the PNG's file name without extension).
    public var name: String?
    /// How hard zlib works on the sheet.
    public var pngLevel: PNGLevel = .default
    /// Crop each frame to its non-transparent bounds.
    public var trim = false
    /// How cells are arranged on pages.
    public var packing: SpritePacking = .grid
    /// Power-of-two pages.
    public var powerOfTwo = false
    /// Always write RGBA pages (to compare a chosen colour type against the plain one).
    public var forceRGBA = false

    public init(png: OutputTarget, json: OutputTarget) {
        self.png = png; self.json = json
    }

    /// The PNG's name (`OutputTarget.name`: its path, `-` for standard output): where the page paths and the
    /// description's relative names start from.
    package var pngPath: String { png.name }
    /// The description's name (`OutputTarget.name`).
    package var jsonPath: String { json.name }
}

/// What was written, for the summary line and statistics.
public struct SpriteResult: Sendable {
    public var pagePaths: [String]
    public var jsonPath: String
    public var pageSizes: [CanvasSize]
    public var frames: Int
    public var cells: Int
    /// Frames that reuse an earlier cell (0 without deduplication).
    public var cellsSaved: Int
    public var cellSize: CanvasSize
    public var columns: Int
    /// Whether the pages were written as indexed-colour PNGs.
    public var indexed: Bool { pixelFormat == "indexed" }
    /// The pages' PNG colour type: "indexed", "rgb" or "rgba".
    public var pixelFormat: String
    /// The description files written (several for a TexturePacker multipack).
    public var documentPaths: [String]
    public var peakCacheBytes: Int
    public var rowBufferBytes: Int
    /// Decoding threads and decode-ahead window (set by the conversion).
    public var decode = DecodeStats(threads: 1, window: 0, peakWindowBytes: 0)
    /// How the run's memory budget was shared (set by the conversion).
    package var memory: MemoryPlan?
    /// Decoder and schedule warnings (damaged data kept, and the like).
    public var warnings: [String]
}

/// Progress callback: frames handled so far and the total (twice the frame count when a pre-pass runs).
package typealias SpriteProgress = (_ done: Int, _ total: Int) -> Void

extension SpriteResult {
    /// The sheet's result of a conversion whose one output is a sprite sheet, with the run's figures (peak
    /// cache, decode, memory plan, warnings) that a sheet's statistics report beside its own.
    package init(sheetOf report: ConversionReport) {
        guard var result = report.outputs.first as? SpriteResult else { preconditionFailure("one sprite sheet asked") }
        result.peakCacheBytes = report.peakCacheBytes
        result.decode = report.decode
        result.memory = report.memory
        result.warnings = report.warnings
        self = result
    }
}
