// The library's public surface. The conversion's own types (GifConverter, GifInput, ConversionEvent, ...)
// are declared in this module; the settings, results and errors it takes and gives are declared where the
// pipeline uses them (GifxPipeline, GifxEncoders, GifxFrames) and named here, one `typealias` each, so that `import GifxKit`
// is the one import a program needs and every public name is listed (and curated in GifxKit.docc) in one
// place. Everything else in those modules is `package`: visible to the CLI, the server and the tests, not to
// programs that depend on the product.
import GifxEncoders
import GifxFrames
import GifxPipeline
import GifxTimeline

// MARK: Run-wide settings

/// What applies to a whole conversion: timing policy, decode limits, memory budget, threads, overwrite, verify.
public typealias RunSettings = GifxPipeline.RunSettings
/// Sizes the decoder refuses before allocating (canvas, frame), and lenient or strict damage handling.
public typealias DecodeLimits = GifxFrames.DecodeLimits
/// Which LZW decoder reads the image data: gifx's own (default) or giflib (the oracle).
public typealias GifDecoderKind = GifxFrames.GifDecoderKind
/// How the stored delays are read: the reference iOS players' rule or the browsers'.
public typealias TimelinePolicy = GifxTimeline.TimelinePolicy

// MARK: Outputs

/// One output of a conversion: video, WebP, sprite sheet, poster, frames or the schedule.
public typealias OutputRequest = GifxPipeline.OutputRequest
/// Where an output goes: a file (written whole or not at all), standard output, or a caller's descriptor.
public typealias OutputTarget = GifxPipeline.OutputTarget
/// A video output's settings: codec, container, rate, quality, size, level, loops.
public typealias VideoSettings = GifxEncoders.VideoSettings
/// H.264, HEVC, VP9 or AV1.
public typealias VideoCodec = GifxEncoders.VideoCodec
/// MP4, WebM or AVIF.
public typealias VideoContainer = GifxEncoders.VideoContainer
/// An H.264 or HEVC level the stream must fit (`--level`).
public typealias LevelRequest = GifxEncoders.LevelRequest
/// A sprite sheet's settings: image and JSON paths, layout, packing, pixel format, size limits.
public typealias SpriteOptions = GifxEncoders.SpriteOptions
/// How cells are placed on a sheet: a grid, a strip, or packed.
public typealias SpriteLayout = GifxEncoders.SpriteLayout
/// How a packed sheet is arranged.
public typealias SpritePacking = GifxEncoders.SpritePacking
/// Which JSON a sheet is described in.
public typealias SpriteJSONFormat = GifxEncoders.SpriteJSONFormat
/// How hard the sheet's PNG is compressed.
public typealias PNGLevel = GifxEncoders.PNGLevel
/// An animated WebP's settings: lossless or a quality, loops.
public typealias WebPOptions = GifxEncoders.WebPOptions
/// Which frame a poster shows.
public typealias PosterFrame = GifxEncoders.PosterFrame
/// A poster's file format: PNG or JPEG.
public typealias PosterFormat = GifxEncoders.PosterFormat
/// A JPEG poster's quality.
public typealias JPEGOptions = GifxEncoders.JPEGOptions
/// An output size: a width, a height, a scale factor or a box.
public typealias SizeRequest = GifxEncoders.SizeRequest
/// A colour (the background that transparency is composited over).
public typealias RGBColor = GifxPipeline.RGBColor
/// What `verify` checks and with which tolerances.
public typealias VerifySettings = GifxPipeline.VerifySettings

// MARK: Results

/// Everything a conversion wrote: each output's result, the decode's figures, the memory used.
public typealias ConversionReport = GifxPipeline.ConversionReport
/// One output's result.
public typealias OutputResult = GifxPipeline.OutputResult
/// A video output's result: frames, rate, bytes, levels.
public typealias VideoResult = GifxEncoders.VideoResult
/// What a video's encoder was given and wrote: canvases, samples, encoded and repeat pictures.
public typealias VideoSummary = GifxEncoders.VideoSummary
/// A sprite sheet's result: pages, JSON, cells.
public typealias SpriteResult = GifxEncoders.SpriteResult
/// An animated WebP's result.
public typealias WebPResult = GifxEncoders.WebPResult
/// A poster's result.
public typealias PosterResult = GifxEncoders.PosterResult
/// The decoder's figures: frames, threads, bands, time spent.
public typealias DecodeStats = GifxFrames.DecodeStats
/// The encodes a size cap (`targetSize`) took, and the one kept.
public typealias TargetSizeReport = GifxEncoders.TargetSizeReport
/// One encode of a size-capped output.
public typealias TargetSizeEncode = GifxEncoders.TargetSizeEncode
/// What reading an output back found: timing and pixels against the GIF.
public typealias OutputVerification = GifxPipeline.OutputVerification
/// Checks outputs written by any tool against their GIF.
public typealias Verifier = GifxEncoders.Verifier

// MARK: Errors

/// Every failure of the input or an output: a class, the file it is about, a one-line message.
public typealias GifxError = GifxFrames.GifxError
/// Whose fault a failure is: the request, the data, the environment.
public typealias FailureClass = GifxFrames.FailureClass
/// The input cannot be read or decoded (with its byte offset).
public typealias GifDecodeError = GifxFrames.GifDecodeError
/// An output cannot be written.
public typealias OutputError = GifxPipeline.OutputError
/// An output read back does not match the GIF; nothing was committed.
public typealias VerificationFailed = GifxPipeline.VerificationFailed
/// The memory budget is below the smallest plan; carries the smallest budget that fits.
public typealias MemoryBudgetTooSmall = GifxPipeline.MemoryBudgetTooSmall
/// Run-wide settings that cannot work together.
public typealias RunSettingsProblem = GifxPipeline.RunSettingsProblem
/// Video settings that cannot work together.
public typealias VideoSettingsProblem = GifxEncoders.VideoSettingsProblem
