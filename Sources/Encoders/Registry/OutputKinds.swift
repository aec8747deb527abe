import GifxFrames
import GifxPOSIXFiles
import GifxPipeline

// The registry of output kinds: each kind is one `OutputKind`, declared in its own folder (its descriptor, its sink,
// its result, how it is verified), and one line of `OutputKind.all` below. Nothing else names a kind: the pipeline
// knows sinks through `ConversionSink`, the CLI and the service know kinds through this list.
// docs/registries.md ("Adding an output") shows the commit that added APNG.

extension OutputKind {
    /// Every kind of output, in the order every list of them shows (help texts, errors, docs).
    package static let all: [OutputKind] = [
        .mp4,
        .webm,
        .avif,
        .webp,
        .apng,
        .pngPoster,
        .jpegPoster,
        .timelineJSON,
        .sheet,
    ]
}

extension OutputReader {
    /// How `verify` reads a path whose ending no kind names (`.mkv`, `.mov`): as a video, anything libavformat opens.
    package static let unnamedPath = OutputReader.video
}

/// A result's figures for `--stats` (`OutputStats`), given by its kind.
package protocol ReportedOutput: OutputResult {
    var stats: OutputStats { get }
}

/// One output's figures in `--stats` (`convert`'s `outputs`, decoded again by `batch`): what it is, its files and
/// their bytes, frames written, and its kind's own fields.
package struct OutputStats: Codable, Sendable {
    package var kind: String
    package var paths: [String]
    package var bytes = 0
    /// Frames written: video samples, sheet cells, 1 for a poster, the schedule's frames for the JSON.
    package var frames: Int?
    package var fps: String?
    package var width: Int?
    package var height: Int?
    package var encoder: EncoderTuning?
    /// mp4/webm/avif: the codec, and whether the stream kept the GIF's transparency (VP9 in WebM).
    package var codec: String?
    package var alpha: Bool?
    /// mp4: `faststart`, or `fragmented` above 250,000 output frames.
    package var mp4Layout: MP4Layout?
    package var webpSettings: WebPSettings?
    /// With a size cap: the encodes spent and the one kept.
    package var targetSize: TargetSizeReport?
    /// mp4/webm/avif: pictures encoded and repeat pictures spliced in, with their bytes.
    package var pictures: VideoPictureStats?
    /// mp4/webm/avif: the key frames' times and the interval asked for.
    package var keyframes: KeyframeStats?
    /// mp4/webm/avif: how many times the animation is written, the video's duration in seconds (every loop), and
    /// how its plan laid it out in time.
    package var loops: Int?
    package var durationSeconds: Double?
    package var timing: VideoTimingStats?
    /// sheet: its cells (`frames` too), frames that reuse an earlier cell, its pages and their sizes, the cell
    /// size, the grid's columns, whether the pages are indexed-colour and their PNG colour type (indexed, rgb or
    /// rgba), and the bytes of the rows buffered before a row of cells is deflated.
    package var cells: Int?
    package var cellsSaved: Int?
    package var pages: Int?
    package var pageSizes: [String]?
    package var cellSize: String?
    package var columns: Int?
    package var indexed: Bool?
    package var pixelFormat: String?
    package var rowBufferBytes: Int?

    package init(kind: String, paths: [String]) {
        self.kind = kind
        self.paths = paths
    }

    /// The figures of `result`, its files' bytes counted now.
    package init(_ result: any OutputResult) {
        self = (result as? any ReportedOutput)?.stats ?? OutputStats(kind: "output", paths: result.paths)
        bytes = paths.reduce(0) { $0 + (POSIXFiles.fileSize($1) ?? 0) }
    }
}
