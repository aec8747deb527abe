// libFuzzer target for the GIF reader, the metadata pass, the pixel decoder and the compositor
// (Sources/Frames), plus the schedule (Sources/Timeline) the CLI builds from the metadata; inputs that
// start as WebP or PNG go through the WebP and APNG readers and compositors (Sources/Frames/WebP, APNG).
// The package's `fuzz-decoder` target: Fuzz/run.sh builds it through SwiftPM with libFuzzer and ASan
// (and GIFX_LIBFUZZER defined, so libFuzzer's `main` drives it); any other build makes it the replayer
// of Replay.swift.
//
// Frames reads files by path (a 64 KiB buffered descriptor, exactly as the CLI does), so every input
// is written to one scratch file first and decoded from there.
import FuzzSupport
import GifxFrames
import GifxTimeline

#if canImport(Glibc)
import Glibc
#endif

/// One scratch file per fuzzing process, rewritten for every input.
private let scratch = FuzzScratch(name: "gifx-fuzz")
private var scratchPath: String { scratch.path }

/// Canvases are capped at 8 MiB so each input decodes in milliseconds; the limit check itself is still
/// exercised (anything larger is refused exactly as the 1 GiB default refuses larger files).
private let limits = DecodeLimits(maxDimension: 16384, maxCanvasBytes: 8 << 20)

/// Decodes every frame like `gifx to-mp4`/`to-sprite` do (minus the encoders); returns normally on any
/// classified error. A crash, a sanitizer report, a leak or a timeout is a finding.
private func decodeAll(strict: Bool) {
    var limits = limits
    limits.strict = strict
    do {
        let metadata = try readGifMetadata(path: scratchPath, limits: limits)
        for policy in [TimelinePolicy.flanimated, .browser] {
            let timeline = Timeline(metadata.timelineInput, policy: policy)
            precondition(timeline.frames.count == metadata.images.count, "timeline lost frames")
        }
        if metadata.format != .gif {
            // WebP and APNG (issue 35): their readers and compositors, through the stream the CLI uses.
            let stream = try FrameStream(path: scratchPath, metadata: metadata, limits: limits, producerThread: false)
            var frames = 0
            while try stream.nextCanvas({ $0.pixels.count }) != nil { frames += 1 }
            precondition(frames == metadata.images.count, "stream delivered \(frames) of \(metadata.images.count) frames")
            return
        }
        let decoder = try GifFrameDecoder(path: scratchPath, metadata: metadata, limits: limits)
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

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    scratch.write(data, size)
    decodeAll(strict: false)
    // The strict pass costs little more and covers the paths that turn damage into errors.
    if size % 2 == 0 { decodeAll(strict: true) }
    return 0
}
