import GifxEncoders
import GifxKit
import Foundation
import GifxPOSIXFiles
import GifxFrames
import GifxTimeline

/// A WebP output's encoder settings in `--stats`.
struct WebPSettings: Codable {
    var lossless: Bool
    var quality: Float?
    var loopCount: Int
}

/// `convert --stats`: the run's figures and one object per output (decoded again by `batch`, see `JobFacts`).
struct ConvertStats: Codable {
    var command = "convert"
    var frames: Int
    /// Canvases decoded in all passes: `frames` when one decode fed every output (`nil` before issue 26).
    var decodedFrames: Int?
    var outputs: [ConvertOutputStats]
    var wallSeconds: Double
    var peakCacheBytes: Int
    var cacheCapacity: Int
    /// Decoding threads, decode-ahead window (frames) and its peak bytes, as to-mp4 and to-sprite report.
    var decode: DecodeStats
    var peakRSSBytes: Int
    /// How the memory budget was shared, beside `peakRSSBytes` (`nil` from gifx before issue 24).
    var memory: MemoryPlan?
}

/// One output's figures: what it is, its files and their bytes, frames written, encoder settings.
struct ConvertOutputStats: Codable {
    var kind: String
    var paths: [String]
    var bytes: Int
    /// Frames written: video samples, sheet cells, 1 for a poster, the schedule's frames for the JSON.
    var frames: Int?
    var fps: String?
    var width: Int?
    var height: Int?
    var encoder: EncoderTuning?
    /// mp4/webm/avif: the codec, and whether the stream kept the GIF's transparency (VP9 in WebM).
    var codec: String?
    var alpha: Bool?
    /// mp4: `faststart`, or `fragmented` above 250,000 output frames.
    var mp4Layout: MP4Layout?
    var webpSettings: WebPSettings?
    /// With a size cap: the encodes spent and the one kept.
    var targetSize: TargetSizeReport?
    /// mp4/webm/avif: pictures encoded and repeat pictures spliced in, with their bytes.
    var pictures: VideoPictureStats?
    /// mp4/webm/avif: the key frames' times and the interval asked for.
    var keyframes: KeyframeStats?

    init(_ result: OutputResult) {
        switch result {
        case .video(let video):
            kind = video.settings.container.rawValue
            paths = [video.target]
            codec = video.settings.codec.rawValue
            alpha = video.keepsAlpha
            mp4Layout = video.layout
            frames = video.summary.outputFrames
            fps = video.plan.rate?.description ?? "vfr"
            width = video.outputSize.width
            height = video.outputSize.height
            encoder = video.tuning
            targetSize = video.targetSize
            pictures = VideoPictureStats(video.summary)
            keyframes = KeyframeStats(video)
        case .spriteSheet(let sheet):
            kind = "sheet"
            paths = sheet.pagePaths + (sheet.documentPaths.isEmpty ? [sheet.jsonPath] : sheet.documentPaths)
            frames = sheet.cells
            width = sheet.pageSizes.first?.width
            height = sheet.pageSizes.first?.height
        case .timelineJSON(let path):
            kind = "timeline"
            paths = [path]
        case .webp(let webp):
            kind = "webp"
            paths = [webp.target]
            frames = webp.frames
            width = webp.width
            height = webp.height
            webpSettings = WebPSettings(lossless: webp.lossless, quality: webp.quality, loopCount: webp.loopCount)
            targetSize = webp.targetSize
        case .poster(let poster):
            if case .jpeg = poster.format { kind = "jpeg-poster" } else { kind = "poster" }
            paths = [poster.target]
            frames = 1
            width = poster.width
            height = poster.height
        case .canvases(let folder, let count):
            kind = "canvases"
            paths = folder.map { [$0] } ?? []
            frames = count
        }
        bytes = paths.reduce(0) { total, path in
            total + (POSIXFiles.fileSize(path) ?? 0)
        }
    }
}
