import GifxFrames
import GifxPipeline
import GifxTimeline

/// A verified poster: a PNG's frame compared exactly with its canvas's digest; a JPEG's with its reference pixels
/// (the canvas over the background), within the PSNR bound.
extension PosterSink: VerifiableSink {
    package func makeCheck(context: ConversionContext, settings: VerifySettings) throws -> any OutputCheck {
        let canvas = context.metadata.canvas
        let references: CanvasReferences
        if case .jpeg(let options) = format {
            references = CanvasReferences(
                try ReferenceMaker(canvas: canvas, output: canvas, keepAlpha: false, background: options.background),
                keepingPixelsOf: frame)
        } else {
            references = CanvasReferences(
                try ReferenceMaker(canvas: canvas, output: canvas, keepAlpha: true, background: .white))
        }
        return PosterCheck(target: target, frame: frame, canvasBytes: context.metadata.canvasBytes, references: references)
    }
}

/// The check of one poster: the image read back (2 canvases and 4 MiB). It sees the canvases up to its frame and
/// stops with its sink.
final class PosterCheck: OutputCheck {
    private let target: String
    private let frame: Int
    private let references: CanvasReferences
    let memoryBytes: Int

    init(target: String, frame: Int, canvasBytes: Int, references: CanvasReferences) {
        self.target = target
        self.frame = frame
        self.references = references
        memoryBytes = 2 * canvasBytes + (4 << 20)
    }

    var observesCanvases: Bool { true }
    func observe(_ canvas: Canvas) { references.observe(canvas) }

    func verify(_ temporaries: [AtomicOutput], in context: ConversionContext, settings: VerifySettings) throws
        -> OutputVerification?
    {
        let verifier = Verifier(context: context, settings: settings)
        guard let output = temporaries.first else { return nil }
        return try verifier.verifyPoster(
            output.temporaryPath, expected: Verifier.Expectation(posterFrame: frame),
            given: references.reference(ofFrame: frame), target: target)
    }
}
