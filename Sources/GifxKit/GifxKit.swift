// One import for a program that converts GIFs: the schedule (GifxTimeline), the decoder's types
// (GifxFrames: limits, canvases, decode errors) and the outputs' settings and results (GifxEncoders),
// plus the async conversion API of this module.
@_exported import GifxEncoders
@_exported import GifxFrames
@_exported import GifxTimeline
