import GifxEncoders
import GifxFrames
import GifxKit
import GifxPipeline

/// `--stats` of `convert`, `to-mp4` and `to-sprite`: one format, printed as one JSON object (sorted keys) and decoded
/// again by `batch` (`JobFacts`), whose report carries it as `stats`. Documented in `--stats`' help (docs/cli.md).
///
/// The run's figures, then one object per output (`OutputStats`: what its kind reports of itself). A command that
/// writes one output (`to-mp4`, `to-sprite`) also gives that output's figures at the top level, under the names
/// those commands have always used (its `frames` as `outputFrames`). A field that does not apply is absent.
struct ConversionStats: Codable {
    /// `convert`, `to-mp4` or `to-sprite`.
    var command: String
    /// The input's frames.
    var frames: Int
    /// Canvases decoded in all passes: `frames` when one decode fed every output.
    var decodedFrames: Int?
    var outputs: [OutputStats]
    var wallSeconds: Double
    var peakCacheBytes: Int
    var cacheCapacity: Int
    /// Decoding threads, decode-ahead window (frames) and its peak bytes.
    var decode: DecodeStats
    var peakRSSBytes: Int
    /// How the memory budget was shared, beside `peakRSSBytes`.
    var memory: MemoryPlan?

    // The one output's figures at the top level (to-mp4 and to-sprite), as its `OutputStats` gives them.
    var outputFrames: Int?
    var fps: String?
    var loops: Int?
    var width: Int?
    var height: Int?
    var durationSeconds: Double?
    var encoder: EncoderTuning?
    var timing: VideoTimingStats?
    /// `faststart`, or `fragmented` above 250,000 output frames (absent for WebM).
    var mp4Layout: MP4Layout?
    var targetSize: TargetSizeReport?
    var pictures: VideoPictureStats?
    var keyframes: KeyframeStats?
    var cells: Int?
    var cellsSaved: Int?
    var pages: Int?
    var pageSizes: [String]?
    var cellSize: String?
    var columns: Int?
    var indexed: Bool?
    var pixelFormat: String?
    var rowBufferBytes: Int?

    /// The figures of `report` for `command`; `liftsOutput`: its one output's figures at the top level too.
    init(command: String, report: ConversionReport, seconds: Double, liftsOutput: Bool) {
        self.command = command
        frames = report.frames
        decodedFrames = report.decodedCanvases
        outputs = report.outputs.map(OutputStats.init)
        wallSeconds = (seconds * 1000).rounded() / 1000
        peakCacheBytes = report.peakCacheBytes
        cacheCapacity = report.cacheCapacity
        decode = report.decode
        peakRSSBytes = peakResidentBytes()
        memory = report.memory
        if liftsOutput, outputs.count == 1 { lift(outputs[0]) }
        // convert's outputs each say their own; the run's figure is one play of the schedule (batch's `duration`).
        if durationSeconds == nil { durationSeconds = report.playDuration.seconds }
    }

    /// Copies an output's own figures to the top level.
    private mutating func lift(_ output: OutputStats) {
        outputFrames = output.frames
        fps = output.fps
        loops = output.loops
        width = output.width
        height = output.height
        durationSeconds = output.durationSeconds
        encoder = output.encoder
        timing = output.timing
        mp4Layout = output.mp4Layout
        targetSize = output.targetSize
        pictures = output.pictures
        keyframes = output.keyframes
        cells = output.cells
        cellsSaved = output.cellsSaved
        pages = output.pages
        pageSizes = output.pageSizes
        cellSize = output.cellSize
        columns = output.columns
        indexed = output.indexed
        pixelFormat = output.pixelFormat
        rowBufferBytes = output.rowBufferBytes
    }
}
