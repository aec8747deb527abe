import GifxFrames
import GifxTimeline

/// What every sink's plan is built from: the GIF's metadata, its schedule, and the run's resource settings.
package struct ConversionContext {
    /// A readable path of the GIF (the metadata reader and each pass open it again).
    package let inputPath: String
    package let metadata: AnimationMetadata
    /// The schedule every output follows: the GIF's, or, with `RunSettings.edit`, the edited one (its frames
    /// are the output frames; canvases are delivered in its order, numbered by its indices).
    package let timeline: Timeline
    /// The run's settings (policy, limits, budget, threads, overwrite), already checked.
    package let settings: RunSettings
    /// With `RunSettings.edit`: the edited schedule and, per output frame, the GIF frame it shows.
    package var edit: EditedTimeline? = nil
    /// The edit's canvas source (what its spool learnt), for the sinks of this module.
    package var editedCanvases: EditedCanvases? = nil

    /// The size of every canvas the sinks get: the GIF's canvas, or the crop's.
    package var canvas: CanvasSize { timeline.canvas }
    /// Canvases per pass: the GIF's frames, or the edited schedule's output frames.
    package var frameCount: Int { timeline.frames.count }
}
