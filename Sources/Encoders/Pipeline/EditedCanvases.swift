import Foundation
import GifxFrames
import GifxPOSIXFiles
import GifxTimeline
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// The canvases of an edited schedule (`RunSettings.edit`, docs/edits.md), made from the GIF's composited
/// canvases: each cropped to the edit's rectangle and numbered by its output frame, so every sink sees the
/// edited animation as if it were the GIF.
///
/// A cut (the source frames never go backwards) is delivered as the GIF decodes: frames before the cut are
/// composited and skipped, decoding stops after the last frame needed, and a frame needed twice in a row is
/// delivered twice. A reordering (reverse, boomerang) cannot wait on the decoder, and holding the canvases
/// would cost memory in proportion to the frames: the needed canvases (cropped) are spooled once to a
/// scratch file, `width * height * 4` bytes each, and read back in the edited order for every pass. The
/// file is unlinked the moment it is created, so nothing is left behind whatever ends the process; the
/// memory stays one canvas.
package final class EditedCanvases {
    package let edit: EditedTimeline
    /// The GIF's canvas.
    private let source: CanvasSize
    /// What each output canvas is cut out of the GIF's: the crop, or the whole canvas.
    private let rect: PixelRect
    private let cropping: Bool
    private let outputBytes: Int
    /// The cropped canvas, or the canvas read back from the spool.
    private let buffer: UnsafeMutableRawPointer
    private var spool: CanvasScratchFile?
    private let scratchFolder: String
    /// Whether the earliest GIF frame shown (cropped) is opaque, learnt while spooling; `nil` before.
    package private(set) var earliestCanvasIsOpaque: Bool?

    package init(edit: EditedTimeline, canvas: CanvasSize, scratchFolder: String) {
        self.edit = edit
        source = canvas
        rect = edit.edit.crop ?? PixelRect(x: 0, y: 0, width: canvas.width, height: canvas.height)
        cropping = rect != PixelRect(x: 0, y: 0, width: canvas.width, height: canvas.height)
        outputBytes = rect.width * rect.height * 4
        buffer = .allocate(byteCount: max(1, cropping || !edit.isMonotone ? outputBytes : 0), alignment: 64)
        self.scratchFolder = scratchFolder
    }

    deinit { buffer.deallocate() }

    /// Whether canvases are spooled and read back in the edited order (reverse, boomerang).
    package var reorders: Bool { !edit.isMonotone }

    /// GIF canvases decoded to fill the spool (the progress total counts them once).
    package var spoolFrames: Int { reorders ? edit.sourceRange.upperBound + 1 : 0 }

    /// Output frame `index` made of the GIF's `canvas`: cropped into `buffer` when cropping.
    private func output(_ canvas: Canvas, as index: Int) -> Canvas {
        guard cropping, let from = canvas.pixels.baseAddress else {
            return Canvas(index: index, width: canvas.width, height: canvas.height, pixels: canvas.pixels)
        }
        let rowBytes = rect.width * 4
        for row in 0..<rect.height {
            let offset = ((rect.y + row) * source.width + rect.x) * 4
            (buffer + row * rowBytes).copyMemory(from: from + offset, byteCount: rowBytes)
        }
        return Canvas(
            index: index, width: rect.width, height: rect.height,
            pixels: UnsafeRawBufferPointer(start: buffer, count: outputBytes))
    }

    /// One in-order pass: `decode` runs the GIF's stream (its body says whether to go on); `deliver` gets
    /// each output canvas and says whether its sinks want more.
    package func passInOrder(
        decode: ((Canvas) throws -> Bool) throws -> Int, deliver: (Canvas) throws -> Bool
    ) throws {
        let sources = edit.sourceFrames
        var next = 0
        // `deliver` runs only inside `decode`'s body, and both return before this does.
        try withoutActuallyEscaping(deliver) { deliver in
            _ = try decode { canvas in
                while next < sources.count, sources[next] == canvas.index {
                    let goOn = try deliver(output(canvas, as: next))
                    next += 1
                    if !goOn { return false }
                }
                return next < sources.count
            }
        }
    }

    /// One reordered pass: the spool filled by `decode` on the first, then every output canvas read back.
    package func passReordered(
        decode: ((Canvas) throws -> Bool) throws -> Int, deliver: (Canvas) throws -> Bool
    ) throws {
        let spool = try self.spool ?? fillSpool(decode)
        let range = edit.sourceRange
        for (index, sourceFrame) in edit.sourceFrames.enumerated() {
            try spool.read(slot: sourceFrame - range.lowerBound, into: buffer)
            let canvas = Canvas(
                index: index, width: rect.width, height: rect.height,
                pixels: UnsafeRawBufferPointer(start: buffer, count: outputBytes))
            if try !deliver(canvas) { return }
        }
    }

    private func fillSpool(_ decode: ((Canvas) throws -> Bool) throws -> Int) throws -> CanvasScratchFile {
        let file = try CanvasScratchFile(canvasBytes: outputBytes, folder: scratchFolder)
        spool = file
        let range = edit.sourceRange
        var spooled = 0
        _ = try decode { canvas in
            guard canvas.index >= range.lowerBound else { return true }
            let cropped = output(canvas, as: canvas.index)
            if canvas.index == range.lowerBound { earliestCanvasIsOpaque = Transparency.isOpaque(cropped) }
            try file.write(cropped.pixels, slot: canvas.index - range.lowerBound)
            spooled += 1
            return canvas.index < range.upperBound
        }
        guard spooled == range.count else {
            throw GifDecodeError(
                .truncated, at: nil,
                "only \(range.lowerBound + spooled) of the \(range.upperBound + 1) frames the edit shows could be decoded")
        }
        return file
    }
}

/// An edit that does not fit the GIF (a cut after its end, a crop outside its canvas, a speed too high).
package struct EditError: GifxError, Equatable {
    package let problem: TimelineEditError
    package init(_ problem: TimelineEditError) { self.problem = problem }
    package var failureClass: FailureClass { .usage }
    package var description: String { problem.description }
}
