import ArgumentParser
import Encoders
import Foundation
import Frames
import Timeline

extension SpriteJSONFormat: ExpressibleByArgument {}
extension SpritePacking: ExpressibleByArgument {}
extension PNGLevel: ExpressibleByArgument {}

/// `gifx to-sprite`: a sprite sheet PNG (pages when it would exceed `--max-size`) plus its JSON, written
/// a row of cells at a time and committed together.
struct ToSpriteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "to-sprite",
        abstract: "Lay a GIF's frames out on a sprite sheet PNG with a JSON description.",
        discussion: """
            The grid is the most square sheet that fits --max-size per side; when the frames do not fit one \
            sheet, pages OUT-0.png, OUT-1.png, ... are written and the JSON says which page each frame is on. \
            A frame that alone exceeds --max-size is a usage error (exit 64), reported before anything is written.
            The PNG is indexed (palette + tRNS) when the sheet holds at most 256 distinct RGBA values, RGB when \
            every frame pixel is opaque, RGBA otherwise. --dedupe, --trim and --pack maxrects read the GIF twice \
            (a pre-pass, then the sheet); so does a GIF whose palettes cannot settle the colour type.
            """)

    @Argument(help: "Input GIF, or - for standard input (then -o is required).") var input: String
    @Option(name: .shortAndLong, help: "Sheet PNG (default: the input with .png).") var output: String?
    @Option(help: "JSON file (default: the PNG's path with .json).") var json: String?
    @Option(
        help: ArgumentHelp(
            "Description format: yy, texturepacker, texturepacker-array, phaser, aseprite or godot.",
            discussion: "yy: gifx.sprite/1 (contentsRect, seconds). texturepacker: JSON hash (PixiJS), one file "
                + "per page linked by related_multi_packs. texturepacker-array: the same with a frames list. "
                + "phaser: multiatlas textures[]. aseprite: json-hash with frameTags (one page). godot: a "
                + "SpriteFrames .tres. Durations: per-frame `duration` in ms (godot: relative to speed)."))
    var format: SpriteJSONFormat = .yy
    @Flag(help: "Crop each frame to its non-transparent bounds (offset and source size go in the description).")
    var trim = false
    @Option(help: "Packing: grid (equal cells, the default; the only one for yy) or maxrects.")
    var pack: SpritePacking = .grid
    @Flag(help: "Power-of-two page sizes.") var pot = false
    @Option(help: "PNG compression: fast, default or max.") var pngLevel: PNGLevel = .default
    @Option(help: "Cells per row (default: the most square sheet).") var columns: Int?
    @Option(help: "Largest sheet side in pixels; more frames go on further pages.") var maxSize = 4096
    @OptionGroup var size: SizeOptions
    @Option(help: "Transparent pixels between cells.") var padding = 0
    @Option(help: "Repeat each cell's edge pixels outward this many pixels (against bleeding when sampled).")
    var extrude = 0
    @Flag(help: "Byte-identical frames share one cell.") var dedupe = false
    @Option(help: "Whose reading of delays and loop counts to follow: flanimated (iOS reference player) or browser.")
    var policy: TimelinePolicy = .flanimated
    @OptionGroup var common: RunOptions

    func validate() throws {
        if input == "-" && output == nil { throw ValidationError("reading standard input needs -o OUT.png") }
        if let columns, columns < 1 { throw ValidationError("--columns must be at least 1") }
        if maxSize < 1 || maxSize > 65535 { throw ValidationError("--max-size must be 1...65535") }
        if padding < 0 || padding > 4096 { throw ValidationError("--padding must be 0...4096") }
        if extrude < 0 || extrude > 4096 { throw ValidationError("--extrude must be 0...4096") }
        if format == .yy && (trim || pack == .maxrects) {
            throw ValidationError("--format yy needs equal cells: use --pack grid without --trim, or another --format")
        }
        if columns != nil && (trim || pack == .maxrects) {
            throw ValidationError("--columns applies to the untrimmed grid only")
        }
    }

    /// `-o`, or the input with `.png` in place of `.gif`.
    var pngPath: String {
        if let output { return output }
        return replacingExtension(of: input, with: "png")
    }

    /// `--json`, or the PNG's path with `.json` (`.tres` for godot).
    var jsonPath: String {
        if let json { return json }
        return replacingExtension(of: pngPath, with: format == .godot ? "tres" : "json")
    }

    func run() throws {
        let started = Date()
        installCleanupSignalHandlers()
        try reportingErrors(input: input) {
            if jsonPath == pngPath { throw ValidationErrorLine(path: jsonPath, "the JSON and the PNG are the same file") }
            try ensureOutput(pngPath, isNot: input)
            try ensureOutput(jsonPath, isNot: input)
            let source = try InputSource(input)
            var options = SpriteOptions(pngPath: pngPath, jsonPath: jsonPath)
            options.format = format
            options.columns = columns
            options.maxSize = maxSize
            options.size = size.request
            options.padding = padding
            options.extrude = extrude
            options.dedupe = dedupe
            options.trim = trim
            options.packing = pack
            options.powerOfTwo = pot
            options.pngLevel = pngLevel
            options.policy = policy
            options.overwrite = common.overwrite
            options.limits = common.limits
            options.memoryBudget = common.memoryBudget?.bytes
            options.threads = common.threads
            let bar = LazyProgressBar(label: "to-sprite", quiet: common.quiet)
            let result = try withExtendedLifetime(source) {
                try writeSpriteSheet(inputPath: source.path, options: options, progress: bar.update)
            }
            bar.finish()
            printWarnings(result.warnings, input: input, quiet: common.quiet)
            if dedupe && !common.quiet {
                printError(
                    displayName(input),
                    "dedupe: \(result.cellsSaved) of \(result.frames) frames reuse an earlier cell (\(result.cells) cells)")
            }
            if common.stats {
                printStats(SpriteStats(result, seconds: Date().timeIntervalSince(started)))
            }
        }
    }
}

/// A usage problem found while running (not by the parser): one line, exit 64.
private struct ValidationErrorLine: ToolError {
    let path: String
    let message: String
    init(path: String, _ message: String) { self.path = path; self.message = message }
    var description: String { message }
    var failureClass: FailureClass { .usage }
    var subjectPath: String? { path }
}

/// `--stats` for to-sprite.
private struct SpriteStats: Encodable {
    var command = "to-sprite"
    var frames: Int
    var cells: Int
    var cellsSaved: Int
    var pages: Int
    var pageSizes: [String]
    var cellSize: String
    var columns: Int
    /// Indexed-colour PNG pages rather than RGB/RGBA.
    var indexed: Bool
    /// The PNG colour type: indexed, rgb or rgba.
    var pixelFormat: String
    var wallSeconds: Double
    var peakCacheBytes: Int
    var rowBufferBytes: Int
    /// Decoding threads, decode-ahead window (frames) and its peak bytes.
    var decode: DecodeStats
    var peakRSSBytes: Int

    init(_ result: SpriteResult, seconds: Double) {
        frames = result.frames
        cells = result.cells
        cellsSaved = result.cellsSaved
        pages = result.pagePaths.count
        pageSizes = result.pageSizes.map { "\($0.width)x\($0.height)" }
        cellSize = "\(result.cellSize.width)x\(result.cellSize.height)"
        columns = result.columns
        indexed = result.indexed
        pixelFormat = result.pixelFormat
        wallSeconds = (seconds * 1000).rounded() / 1000
        peakCacheBytes = result.peakCacheBytes
        rowBufferBytes = result.rowBufferBytes
        decode = result.decode
        peakRSSBytes = peakResidentBytes()
    }
}
