import Frames
import Timeline

/// What every sink's plan is built from: the GIF's metadata, its schedule, and the run's resource settings.
public struct ConversionContext {
    /// A readable path of the GIF (the metadata reader and each pass open it again).
    public let inputPath: String
    public let metadata: GifMetadata
    public let timeline: Timeline
    public let limits: DecodeLimits
    /// Bytes for decoded canvases (and the encoders' own buffers); nil: the reference player's categories.
    public let memoryBudget: Int?
    /// Replace existing targets.
    public let overwrite: Bool
}
