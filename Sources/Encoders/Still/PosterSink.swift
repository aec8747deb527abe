import GifxFrames
import GifxPipeline
import GifxTimeline

/// Which frame a poster shows.
public enum PosterFrame: Sendable, Equatable {
    /// Frame `n` (0-based).
    case index(Int)
    /// Frame `count / 2`.
    case middle
    /// The last frame.
    case last

    /// The 0-based frame among `count` frames, or nil when there is no such frame.
    public func resolved(frameCount count: Int) -> Int? {
        let index: Int
        switch self {
        case .index(let n): index = n
        case .middle: index = count / 2
        case .last: index = count - 1
        }
        return (0..<count).contains(index) ? index : nil
    }
}

/// A poster frame asked for that the GIF does not have: a usage problem found once the frames are counted.
package struct PosterFrameError: GifxError {
    package let path: String
    package let requested: Int
    package let frameCount: Int
    package var description: String { "poster frame \(requested) does not exist (the GIF has \(frameCount) frames)" }
    package var failureClass: FailureClass { .usage }
    package var subjectPath: String? { path }
}

/// A poster's file format.
public enum PosterFormat: Sendable, Hashable {
    /// RGBA PNG: the canvas exactly, transparency kept.
    case png
    /// Baseline JPEG over the background colour (`JPEGOptions`).
    case jpeg(JPEGOptions)
}

/// What a poster output wrote.
public struct PosterResult: Sendable {
    public var target: String
    public var format: PosterFormat
    public var frame: Int
    public var width: Int
    public var height: Int
}

/// A still of one composited frame: an RGBA PNG (alpha kept, as the canvas has it) or a JPEG over the
/// background. The pass stops asking for canvases once its frame is written, so a frame-0 poster costs
/// one frame's decode.
package final class PosterSink: ConversionSink {
    /// Where the output goes.
    package let destination: OutputTarget
    /// The target's name in results, errors and the memory plan (`OutputTarget.name`).
    package let target: String
    package let frame: Int
    package let format: PosterFormat
    private let size: CanvasSize
    private var output: AtomicOutput?
    private var written = false

    package init(target destination: OutputTarget, frame: PosterFrame, format: PosterFormat = .png, context: ConversionContext) throws {
        let target = destination.name
        let count = context.frameCount
        guard let index = frame.resolved(frameCount: count) else {
            let requested: Int
            if case .index(let n) = frame { requested = n } else { requested = count }
            throw PosterFrameError(path: target, requested: requested, frameCount: count)
        }
        self.destination = destination
        self.target = target
        self.frame = index
        self.format = format
        size = context.canvas
    }

    package func open(in transaction: OutputTransaction) throws { output = try transaction.add(destination) }

    /// A JPEG is the canvas over the background, then libav's 4:2:0 frame and its packet; a PNG goes row by row.
    package var memoryDemand: MemoryDemand? {
        let canvas = size.width * size.height * 4
        switch format {
        case .png: return MemoryDemand(consumer: "poster \(target)", bytes: size.width * 8 + (1 << 20), setting: "rows")
        case .jpeg: return MemoryDemand(consumer: "poster \(target)", bytes: canvas * 2 + (2 << 20), setting: "one frame")
        }
    }

    /// A JPEG is encoded by libavcodec (MJPEG).
    package var usesLibav: Bool {
        if case .jpeg = format { return true }
        return false
    }

    package var plannedPasses: Int { 1 }
    package func beginPass(_ pass: Int) throws -> Bool { pass == 0 }

    package func consume(_ canvas: Canvas) throws -> Bool {
        guard canvas.index == frame, let output else { return canvas.index < frame }
        switch format {
        case .png: try writeCanvasPNG(canvas, fileDescriptor: output.fileDescriptor, path: target)
        case .jpeg(let options):
            try writeCanvasJPEG(canvas, options: options, fileDescriptor: output.fileDescriptor, path: target)
        }
        written = true
        return false
    }

    package func endPass(delivered: Int) throws {
        guard written else {
            throw OutputError(
                path: target, reason: "frame \(frame) could not be decoded (\(delivered) frames were)",
                failure: .malformedData)
        }
    }

    package func finish() throws {}
    package var result: any OutputResult {
        PosterResult(target: target, format: format, frame: frame, width: size.width, height: size.height)
    }
}
