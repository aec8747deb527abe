import Foundation
import GifxFrames
import GifxPipeline

/// Every composited canvas as `folder/frame-NNNN.png` (what the encoders receive, for a person to look
/// at), or, without a folder, nothing at all: decoding and compositing alone, for throughput. Each PNG is
/// written directly, not in the conversion's transaction (a developer aid writes what it decoded so far).
package final class CanvasFilesSink: ConversionSink {
    package let folder: String?
    private var delivered = 0

    package init(folder: String?) { self.folder = folder }

    package func open(in transaction: OutputTransaction) throws {}
    package var plannedPasses: Int { 1 }
    /// Without a folder each canvas is only counted: a producer thread would cost a hand-over per frame
    /// and overlap nothing.
    package var worksPerCanvas: Bool { folder != nil }
    package func beginPass(_ pass: Int) throws -> Bool { pass == 0 }

    package func consume(_ canvas: Canvas) throws -> Bool {
        if let folder { try writeCanvasPNG(canvas, to: "\(folder)/frame-\(String(format: "%04d", canvas.index)).png") }
        delivered += 1
        return true
    }

    package func endPass(delivered: Int) throws {}
    package func finish() throws {}
    package var result: any OutputResult { CanvasesResult(folder: folder, count: delivered) }
}

/// The canvases decoded, and written as PNGs when a folder was given (`gifx frames`; not an output kind: a
/// developer's view of what the encoders receive).
package struct CanvasesResult: ReportedOutput {
    package var folder: String?
    package var count: Int
    package var paths: [String] { folder.map { [$0] } ?? [] }
    package var stats: OutputStats {
        var stats = OutputStats(kind: "canvases", paths: paths)
        stats.frames = count
        return stats
    }
}

extension OutputRequest {
    /// Every canvas as a PNG in `folder`, or, with `nil`, decoded and composited only (`CanvasFilesSink`).
    package static func canvases(folder: String?) -> OutputRequest { OutputRequest(kind: "canvases", target: nil) { _ in CanvasFilesSink(folder: folder) } }
}
