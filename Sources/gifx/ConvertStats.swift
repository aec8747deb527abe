import GifxEncoders
import GifxKit
import Foundation
import GifxPOSIXFiles
import GifxFrames
import GifxTimeline

/// `convert --stats`: the run's figures and one object per output (decoded again by `batch`, see `JobFacts`).
struct ConvertStats: Codable {
    var command = "convert"
    var frames: Int
    /// Canvases decoded in all passes: `frames` when one decode fed every output (`nil` before issue 26).
    var decodedFrames: Int?
    var outputs: [OutputStats]
    var wallSeconds: Double
    var peakCacheBytes: Int
    var cacheCapacity: Int
    /// Decoding threads, decode-ahead window (frames) and its peak bytes, as to-mp4 and to-sprite report.
    var decode: DecodeStats
    var peakRSSBytes: Int
    /// How the memory budget was shared, beside `peakRSSBytes` (`nil` from gifx before issue 24).
    var memory: MemoryPlan?
}
