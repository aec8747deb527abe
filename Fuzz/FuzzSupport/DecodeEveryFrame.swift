// The decode every fuzz target over the readers runs (fuzz-decoder, fuzz-webp, fuzz-apng): the file's
// metadata, its schedule under both policies, then every frame through the decoder the CLI uses. Returns
// normally on any classified error; a crash, a broken precondition, a sanitizer report, a leak or a
// timeout is a finding.
import GifxFrames
import GifxTimeline

/// Canvases are capped at 8 MiB so each input decodes in milliseconds; the limit check itself is still
/// exercised (anything larger is refused exactly as the 1 GiB default refuses larger files).
private let fuzzLimits = DecodeLimits(maxDimension: 16384, maxCanvasBytes: 8 << 20)

/// Reads the file at `path` as `gifx to-mp4`/`to-sprite` do (minus the encoders): GIF through
/// `GifFrameDecoder`, WebP and APNG through `FrameStream`'s readers and compositors. `expected`, when
/// given, is the format the harness built the input as: sniffing anything else is a finding.
public func decodeEveryFrame(path: String, strict: Bool, expected: SourceFormat? = nil) {
    var limits = fuzzLimits
    limits.strict = strict
    do {
        let metadata = try readAnimationMetadata(path: path, limits: limits)
        if let expected { precondition(metadata.format == expected, "sniffed \(metadata.format), built \(expected)") }
        for policy in [TimelinePolicy.flanimated, .browser] {
            let timeline = Timeline(metadata.timelineInput, policy: policy)
            precondition(timeline.frames.count == metadata.images.count, "timeline lost frames")
        }
        if metadata.format != .gif {
            let stream = try FrameStream(path: path, metadata: metadata, limits: limits, producerThread: false)
            var frames = 0
            while try stream.nextCanvas({ $0.pixels.count }) != nil { frames += 1 }
            precondition(frames == metadata.images.count, "stream delivered \(frames) of \(metadata.images.count) frames")
            return
        }
        let decoder = try GifFrameDecoder(path: path, metadata: metadata, limits: limits)
        let canvas = UnsafeMutableRawPointer.allocate(byteCount: max(1, metadata.canvasBytes), alignment: 16)
        defer { canvas.deallocate() }
        var frames = 0
        while try decoder.advance() {
            decoder.copyCanvas(to: canvas)
            frames += 1
        }
        precondition(frames == metadata.images.count, "decoder delivered \(frames) of \(metadata.images.count) frames")
    } catch let error as GifDecodeError {
        // The data's fault or a read error (the CLI's 65 and 74); never "cannot open" the scratch file.
        precondition(
            error.failureClass == .malformedData || error.failureClass == .io, "unexpected failure class for \(error)")
        precondition(!error.description.contains("\n"), "multi-line error")
    } catch {
        preconditionFailure("unclassified error \(error)")
    }
}
