import GifxFrames
import GifxTimeline

/// What every sink's plan is built from: the GIF's metadata, its schedule, and the run's resource settings.
public struct ConversionContext {
    /// A readable path of the GIF (the metadata reader and each pass open it again).
    public let inputPath: String
    public let metadata: GifMetadata
    public let timeline: Timeline
    /// The run's settings (policy, limits, budget, threads, overwrite), already checked.
    public let settings: RunSettings
}
