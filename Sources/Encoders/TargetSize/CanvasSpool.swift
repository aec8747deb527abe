import GifxFrames
import GifxPipeline

/// Composited canvases kept in order on disk (`CanvasScratchFile`), so an output can be encoded again
/// without decoding the GIF again (`--target-size`'s further encodes). Memory stays one canvas.
final class CanvasSpool {
    let width: Int
    let height: Int
    private let file: CanvasScratchFile
    private var indices: [Int] = []
    private var buffer: [UInt8]

    init(width: Int, height: Int, folder: String) throws {
        self.width = width
        self.height = height
        buffer = [UInt8](repeating: 0, count: width * height * 4)
        file = try CanvasScratchFile(canvasBytes: width * height * 4, folder: folder)
    }

    var count: Int { indices.count }

    /// Appends a canvas (its pixels and frame index).
    func append(_ canvas: Canvas) throws {
        precondition(canvas.width == width && canvas.height == height)
        try file.write(canvas.pixels, slot: indices.count)
        indices.append(canvas.index)
    }

    /// Lends every canvas, in the order appended, to `body`.
    func replay(_ body: (Canvas) throws -> Void) throws {
        for (slot, index) in indices.enumerated() {
            try buffer.withUnsafeMutableBytes { raw in
                try file.read(slot: slot, into: raw.baseAddress!)
                try body(Canvas(index: index, width: width, height: height, pixels: UnsafeRawBufferPointer(raw)))
            }
        }
    }
}
