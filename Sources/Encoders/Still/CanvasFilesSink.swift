import Foundation
import GifxFrames

/// Every composited canvas as `folder/frame-NNNN.png` (what the encoders receive, for a person to look
/// at), or, without a folder, nothing at all: decoding and compositing alone, for throughput. Each PNG is
/// written directly, not in the conversion's transaction (a developer aid writes what it decoded so far).
public final class CanvasFilesSink: ConversionSink {
    public let folder: String?
    private var delivered = 0

    public init(folder: String?) { self.folder = folder }

    public func open(in transaction: OutputTransaction) throws {}
    public var plannedPasses: Int { 1 }
    /// Without a folder each canvas is only counted: a producer thread would cost a hand-over per frame
    /// and overlap nothing.
    public var worksPerCanvas: Bool { folder != nil }
    public func beginPass(_ pass: Int) throws -> Bool { pass == 0 }

    public func consume(_ canvas: Canvas) throws -> Bool {
        if let folder { try writeCanvasPNG(canvas, to: "\(folder)/frame-\(String(format: "%04d", canvas.index)).png") }
        delivered += 1
        return true
    }

    public func endPass(delivered: Int) throws {}
    public func finish() throws {}
    public var result: OutputResult { .canvases(folder: folder, count: delivered) }
}
