import GifxChecks
import GifxFrames

/// What an exact check keeps of the canvases it observes: a digest per canvas of the reference the output should
/// show (at its size, over its background; the canvas itself, read in place, when that is the reference), or one
/// frame's reference pixels (a JPEG poster, compared within a bound). 8 bytes a frame, or one frame.
final class CanvasReferences {
    let maker: ReferenceMaker
    /// The frame whose pixels are kept instead of digests.
    private let pixelFrame: Int?
    private(set) var digests: [Int] = []
    /// With `pixelFrame`: its reference pixels once observed (empty until then).
    private(set) var pixels: [UInt8]?

    init(_ maker: ReferenceMaker, keepingPixelsOf pixelFrame: Int? = nil) {
        self.maker = maker
        self.pixelFrame = pixelFrame
        pixels = pixelFrame == nil ? nil : []
    }

    func observe(_ canvas: Canvas) {
        if maker.isIdentity, pixelFrame == nil,
           let pixels = canvas.pixels.baseAddress?.assumingMemoryBound(to: UInt8.self)
        {
            digests.append(FrameDigest.digest(pixels, stride: canvas.width, width: canvas.width, height: canvas.height))
            return
        }
        var reference = [UInt8](repeating: 0, count: maker.allocationBytes)
        reference.withUnsafeMutableBufferPointer { maker.make(canvas, into: $0.baseAddress!) }
        if let pixelFrame {
            if canvas.index == pixelFrame { pixels = reference }
        } else {
            digests.append(FrameDigest.digest(reference, width: maker.width, height: maker.height))
        }
    }

    /// What frame `frame` is compared with: its kept pixels, else its digest (0 when it was never observed).
    func reference(ofFrame frame: Int) -> Reference {
        pixels.map { .pixels($0) } ?? .digest(digests.count > frame ? digests[frame] : 0)
    }
}
