import Foundation
import GifxTimeline

/// The decoder of a stream without a producer thread: frames decoded and composited on demand into one canvas.
final class InlineFrames {
    let decoder: any FrameSource
    private let canvas: UnsafeMutableRawPointer
    private let canvasBytes: Int
    private var index = 0
    private(set) var peakBytes = 0
    /// The decoder's warnings as of the last frame delivered, as the ring publishes them (a frame that
    /// fails adds none).
    private(set) var warnings: [String] = []
    private var warningTotal = 0

    init(path: String, metadata: AnimationMetadata, limits: DecodeLimits) throws {
        decoder = try InputFormat.makeFrameSource(path: path, metadata: metadata, limits: limits)
        canvasBytes = metadata.canvasBytes
        canvas = .allocate(byteCount: Swift.max(1, canvasBytes), alignment: 64)
    }

    deinit { canvas.deallocate() }

    /// The next frame composited into the canvas, `nil` after the last.
    func next() throws -> (index: Int, pixels: UnsafeMutableRawPointer)? {
        guard try decoder.advance() else { return nil }
        decoder.copyCanvas(to: canvas)
        if decoder.warningTotal != warningTotal {
            warnings = decoder.warnings
            warningTotal = decoder.warningTotal
        }
        peakBytes = canvasBytes
        defer { index += 1 }
        return (index, canvas)
    }
}
