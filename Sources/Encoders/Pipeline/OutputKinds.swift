import GifxFrames

// The registry of output kinds: every kind of output a conversion writes is one case of `OutputRequest`, one case of
// `OutputResult` and one line of `OutputRequest.makeSink`, its sink factory. Everything else about an output (its plan,
// files, memory demand, whether it loads libav, how it is verified) is its sink's, in the sink's own folder.
// docs/architecture.md ("Adding an output") shows the diff that added the poster.

/// One output asked of a conversion. The sink that writes it is made once the GIF's metadata is known.
public enum OutputRequest: Sendable {
    /// An MP4 or WebM at `target` (`VideoPlan`; the container is in the options).
    case video(target: OutputTarget, options: VideoSettings)
    /// A sprite sheet: PNG page(s) and JSON (`SpriteSheetSink`). Only the sheet's own fields of the options
    /// are read; the run-wide ones (policy, limits, budget, overwrite) are the conversion's.
    case spriteSheet(SpriteOptions)
    /// The schedule as JSON (`TimelineJSONSink`).
    case timelineJSON(target: OutputTarget)
    /// One composited frame as an RGBA PNG (`PosterSink`).
    case poster(target: OutputTarget, frame: PosterFrame)
    /// One composited frame as a JPEG over a background colour (`PosterSink`).
    case jpegPoster(target: OutputTarget, frame: PosterFrame, options: JPEGOptions)
    /// An animated WebP (`WebPSink`).
    case webp(target: OutputTarget, options: WebPOptions)
    /// Every canvas as a PNG in `folder`, or, with `nil`, decoded and composited only (`CanvasFilesSink`).
    case canvases(folder: String?)
}

/// What one output wrote, for summaries and statistics.
public enum OutputResult: Sendable {
    case video(VideoResult)
    case spriteSheet(SpriteResult)
    case timelineJSON(path: String)
    case poster(PosterResult)
    case webp(WebPResult)
    /// Canvases decoded (and written as PNGs when a folder was given).
    case canvases(folder: String?, count: Int)
}

extension OutputRequest {
    /// The sink that writes this output, its plan made from `context` (a bad request fails here, before anything is
    /// decoded or written). One line per output kind.
    func makeSink(_ context: ConversionContext) throws -> any ConversionSink {
        switch self {
        case .video(let target, let options): try VideoSink(target: target, options: options, context: context)
        case .spriteSheet(let options): try SpriteSheetSink(options: options, context: context)
        case .timelineJSON(let target): TimelineJSONSink(target: target, context: context)
        case .poster(let target, let frame): try PosterSink(target: target, frame: frame, context: context)
        case .jpegPoster(let target, let frame, let options):
            try PosterSink(target: target, frame: frame, format: .jpeg(options), context: context)
        case .webp(let target, let options): try WebPSink(target: target, options: options, context: context)
        case .canvases(let folder): CanvasFilesSink(folder: folder)
        }
    }
}
