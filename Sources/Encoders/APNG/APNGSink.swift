import Foundation
import GifxFrames
import GifxPipeline
import GifxTimeline
import SystemPackage

/// How an animated PNG is encoded. It is always lossless: the frames hold the canvases' exact pixels.
package struct APNGOptions: Sendable {
    /// zlib's compression level for each frame's data, 0...9.
    package var compressionLevel: Int

    /// - Parameter compressionLevel: zlib's level, 0 (stored) to 9 (smallest, the default).
    package init(compressionLevel: Int = 9) { self.compressionLevel = compressionLevel }
}

/// What an APNG output wrote.
package struct APNGResult: Sendable {
    /// The output's name (a path, or `-` for standard output).
    package var target: String
    /// Canvases of the animation (frames of the input's schedule).
    package var frames: Int
    /// Frames in the file: identical consecutive canvases are one frame, and a delay too long for 16 bits adds
    /// 1×1 frames that carry the rest of it.
    package var framesWritten: Int
    /// Total plays written in acTL (0: forever).
    package var loopCount: Int
    /// Palette entries of an indexed APNG (colour type 3), `nil` for RGBA (colour type 6).
    package var paletteEntries: Int?
    /// The frame size written (the canvas).
    package var width: Int
    package var height: Int
}

/// An animated PNG (`APNGWriter`): one pass, each canvas added at its schedule start in the timeline's own units,
/// so every delay is exact as `delay_num/delay_den`; the loop count is the policy's plays (0 forever).
///
/// Indexed when every canvas fits one palette of at most 256 entries, else RGBA. The palette is the colours the
/// canvases show, counted in a pre-pass (`ColourCensus`, fixed memory; the decode runs twice), not the GIF's
/// palettes: those often list 256 colours of which a frame shows a few, and PLTE would carry them all (777 bytes
/// of a 1.4 KB file on Examples/missing-delays.gif). A pixel found outside the palette (it cannot happen with the
/// census's colours; kept correct rather than assumed, as in the sheet) restarts the pass in RGBA, the file
/// emptied first.
package final class APNGSink: ConversionSink {
    package let destination: OutputTarget
    package let target: String
    package let options: APNGOptions
    private let timeline: Timeline
    private let plays: Int
    private var palette: SheetPalette?
    private var census: ColourCensus?
    private var output: AtomicOutput?
    private var writer: APNGWriter?
    private var restartInRGBA = false
    private var passesWritten = 0
    private var frames = 0
    private var written: (frames: Int, palette: Int?) = (0, nil)
    package let memoryDemand: MemoryDemand?

    package init(target: OutputTarget, options: APNGOptions, context: ConversionContext) throws {
        guard (0...9).contains(options.compressionLevel) else {
            throw OutputError(
                path: target.name, reason: "APNG compression level \(options.compressionLevel) is not in 0...9",
                failure: .usage)
        }
        destination = target
        self.target = target.name
        self.options = options
        timeline = context.timeline
        plays = min(context.timeline.loop.plays ?? 0, Int(UInt32.max))
        census = ColourCensus()
        // The canvas shown and two candidate rectangles (RGBA at worst: 12 bytes a pixel), the frame waiting for
        // its delay and the one being deflated (at most about a canvas each), libpng's in-memory PNG of a frame
        // (the same again) and zlib's window and buffers; the census's bitmap (2 MiB).
        let canvasBytes = context.canvas.width * context.canvas.height * 4
        memoryDemand = MemoryDemand(
            consumer: "apng \(target.name)", bytes: 6 * canvasBytes + (4 << 20),
            setting: "one pass")
    }

    package var needsPrePass: Bool { census != nil }
    package func prePass(_ canvas: Canvas) throws {
        guard let census, !census.overflowed else { return }
        census.add(canvas.pixels.baseAddress!, width: canvas.width, height: canvas.height, stride: canvas.width * 4)
    }

    package func endPrePass(delivered: Int) throws {
        guard let census else { return }
        palette = SheetPalette(census: census, needsTransparent: false)
        self.census = nil
    }

    package func open(in transaction: OutputTransaction) throws {
        output = try transaction.add(destination)
    }

    package var plannedPasses: Int { 1 }

    package func beginPass(_ pass: Int) throws -> Bool {
        guard passesWritten == 0 || restartInRGBA else { return false }
        let output = output!
        if restartInRGBA {
            restartInRGBA = false
            palette = nil
            do {
                try output.descriptor!.resize(to: 0)
                try output.descriptor!.seek(offset: 0, from: .start)
            } catch {
                throw OutputError.writing(output.displayPath, errno: (error as? Errno)?.rawValue ?? EIO)
            }
        }
        frames = 0
        writer = try APNGWriter(
            width: timeline.canvas.width, height: timeline.canvas.height, format: palette.map { APNGPixelFormat.indexed($0) } ?? .rgba,
            plays: plays, timescale: timeline.timescale, level: options.compressionLevel,
            descriptor: output.descriptor!, name: output.displayPath)
        return true
    }

    package func consume(_ canvas: Canvas) throws -> Bool {
        guard let writer, !restartInRGBA else { return false }
        do {
            try writer.add(
                canvas.pixels.baseAddress!.assumingMemoryBound(to: UInt32.self), start: timeline.frames[canvas.index].start)
        } catch is APNGPaletteMiss {
            restartInRGBA = true
            self.writer = nil
            return false
        }
        frames += 1
        return true
    }

    package func endPass(delivered: Int) throws {
        guard !restartInRGBA else { return }
        passesWritten += 1
    }

    package func finish() throws {
        guard let writer else { return }
        try writer.finish(end: timeline.duration.units)
        if case .indexed(let palette) = writer.format { written.palette = palette.entries.count }
        written.frames = writer.framesWritten
        self.writer = nil
    }

    package var result: any OutputResult {
        APNGResult(
            target: target, frames: frames, framesWritten: written.frames, loopCount: plays,
            paletteEntries: written.palette, width: timeline.canvas.width, height: timeline.canvas.height)
    }
}
