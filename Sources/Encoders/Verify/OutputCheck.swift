import GifxFrames

/// A sink whose output a verifying conversion reads back (`RunSettings.verify`): it makes the check of its own
/// output. `VerifyingSink` wraps every such sink and knows it only through this protocol and `OutputCheck`; a sink
/// that does not conform (the timeline JSON, canvas folders) is not verified.
package protocol VerifiableSink: ConversionSink {
    /// The check of this sink's output in a conversion run with `context`, verifying with `settings`. Throws when
    /// what the check needs cannot be set up (a reference scaler), before anything is opened.
    func makeCheck(context: ConversionContext, settings: VerifySettings) throws -> any OutputCheck
}

/// One output's verification in a verifying conversion: what it keeps of the canvases lent to its sink, the memory
/// it holds besides the sink's, and how it reads the finished temporaries back before the commit.
package protocol OutputCheck: AnyObject {
    /// Bytes the check holds besides its sink (the output's decoder, references), added to each level of the sink's
    /// `memoryDemand`.
    var memoryBytes: Int { get }
    /// The bytes the run's memory plan gave the check (its part of the sink's share), before `open`.
    func useMemory(bytes: Int)
    /// Whether it sees the canvases of the first pass (`observe`).
    var observesCanvases: Bool { get }
    /// Whether it needs every canvas of the first pass, even once its sink needs no more (a deduplicated sheet).
    var needsEveryCanvas: Bool { get }
    /// One canvas of the first pass, lent.
    func observe(_ canvas: Canvas)
    /// Reads `temporaries` (the sink's files, finished, not yet committed) back with `verifier`; `nil` when there
    /// is nothing to verify.
    func verify(_ temporaries: [AtomicOutput], with verifier: Verifier) throws -> OutputVerification?
}

extension OutputCheck {
    package func useMemory(bytes: Int) {}
    package var observesCanvases: Bool { false }
    package var needsEveryCanvas: Bool { false }
    package func observe(_ canvas: Canvas) {}
}

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
            digests.append(Verifier.digest(pixels, stride: canvas.width, width: canvas.width, height: canvas.height))
            return
        }
        var reference = [UInt8](repeating: 0, count: maker.allocationBytes)
        reference.withUnsafeMutableBufferPointer { maker.make(canvas, into: $0.baseAddress!) }
        if let pixelFrame {
            if canvas.index == pixelFrame { pixels = reference }
        } else {
            digests.append(Verifier.digest(reference, width: maker.width, height: maker.height))
        }
    }

    /// What frame `frame` is compared with: its kept pixels, else its digest (0 when it was never observed).
    func reference(ofFrame frame: Int) -> Reference {
        pixels.map { .pixels($0) } ?? .digest(digests.count > frame ? digests[frame] : 0)
    }
}
