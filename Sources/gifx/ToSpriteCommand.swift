import ArgumentParser
import GifxEncoders
import GifxKit
import Foundation
import GifxFrames
import GifxTimeline

/// `gifx to-sprite`: a sprite sheet PNG (pages when it would exceed `--max-size`) plus its JSON, written
/// a row of cells at a time and committed together.
struct ToSpriteCommand: ParsableCommand, ConvertingCommand {
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

    @Argument(help: "Input GIF, WebP or PNG/APNG (told by content), or - for standard input (then -o is required).") var input: String
    @Option(name: .shortAndLong, help: "Sheet PNG (default: the input with .png); - (or png:-) for standard output, with --json FILE.")
    var output: OutputArgument?
    @Option(help: "JSON file (default: the PNG's path with .json).") var json: String?
    @OptionGroup var sheet: SheetLayoutOptions
    @OptionGroup var size: SizeOptions
    @Option(help: "Whose reading of delays and loop counts to follow: flanimated (iOS reference player) or browser.")
    var policy: TimelinePolicy = .flanimated
    @OptionGroup var common: RunOptions
    @OptionGroup(title: "Verification") var verification: VerifyOptions
    @OptionGroup(title: "Edits (every output)") var edits: EditOptions

    func validate() throws {
        if input == "-" && output == nil { throw ValidationError("reading standard input needs -o OUT.png") }
        if let output {
            let spec = try output.parsedSpec()
            if let kind = spec.namedKind, kind != .pngPoster {
                throw ValidationError("'\(output.text)': to-sprite writes a PNG sheet; use convert for \(kind.displayName)")
            }
            if !spec.settings.isEmpty { throw ValidationError("'\(output.text)': per-output settings are for convert") }
        }
        if StandardOutput.isTarget(pngPath) && (json == nil || json.map(StandardOutput.isTarget) == true) {
            throw ValidationError("-o - sends the sheet to standard output: give --json FILE for its description")
        }
        try StandardOutputRules.validate(targets: [pngPath, jsonPath], stats: common.stats)
    }

    /// `-o` (without its `png:` prefix), or the input with `.png` in place of `.gif`.
    var pngPath: String {
        if let output { return output.spec.path }
        return replacingExtension(of: input, with: "png")
    }

    /// `--json`, or the PNG's path with `.json` (`.tres` for godot).
    var jsonPath: String {
        if let json { return json }
        return replacingExtension(of: pngPath, with: sheet.descriptionExtension)
    }

    func run() throws {
        let started = Date()
        installCleanupSignalHandlers()
        let bar = ProgressReporter(label: "to-sprite", quiet: common.quiet, progress: common.progress)
        try reportingErrors(input: input, progress: bar.json, outputBytes: { JSONProgress.bytes(of: [pngPath, jsonPath]) }) {
            if jsonPath == pngPath { throw ValidationErrorLine(path: jsonPath, "the JSON and the PNG are the same file") }
            if StandardOutput.isTarget(pngPath) {
                try StandardOutputRules.refuseTerminal(binaryFormat: "PNG")
            } else {
                try ensureOutput(pngPath, isNot: input)
            }
            try ensureOutput(jsonPath, isNot: input)
            let options = sheet.spriteOptions(
                png: OutputTarget(commandLine: pngPath), json: OutputTarget(commandLine: jsonPath), size: size.request)
            let result = SpriteResult(sheetOf: try runConversion(input: input, requests: [.spriteSheet(options)], progress: bar))
            printWarnings(result.warnings, input: input, quiet: common.quiet)
            if sheet.dedupe && !common.quiet {
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
private struct ValidationErrorLine: GifxError {
    let path: String
    let message: String
    init(path: String, _ message: String) { self.path = path; self.message = message }
    var description: String { message }
    var failureClass: FailureClass { .usage }
    var subjectPath: String? { path }
}

/// `--stats` for to-sprite (decoded again by `batch`, see `JobFacts`).
struct SpriteStats: Codable {
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
    /// How the memory budget was shared, beside `peakRSSBytes`.
    var memory: MemoryPlan?

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
        memory = result.memory
    }
}
