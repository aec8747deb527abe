import GifxChecks
import GifxFrames
import GifxPipeline
import GifxTimeline

/// A verified WebP: lossless, a digest of every canvas, compared exactly with each frame read back; lossy, its
/// frames, timing and loop count only (nothing bounded to compare its pixels with).
extension WebPSink: VerifiableSink {
    package func makeCheck(context: ConversionContext, settings: VerifySettings) throws -> any OutputCheck {
        let canvas = context.metadata.canvas
        return WebPCheck(
            target: target, canvas: canvas, canvasBytes: context.metadata.canvasBytes,
            references: options.quality == nil
                ? CanvasReferences(
                    try ReferenceMaker(canvas: canvas, output: canvas, keepAlpha: true, background: .white))
                : nil)
    }
}

/// The check of one WebP: the reader's canvases (2 canvases and 4 MiB).
final class WebPCheck: OutputCheck {
    private let target: String
    private let canvas: CanvasSize
    private let references: CanvasReferences?
    let memoryBytes: Int
    private var bytes: Int?

    init(target: String, canvas: CanvasSize, canvasBytes: Int, references: CanvasReferences?) {
        self.target = target
        self.canvas = canvas
        self.references = references
        memoryBytes = 2 * canvasBytes + (4 << 20)
    }

    func useMemory(bytes: Int) { self.bytes = bytes }
    var observesCanvases: Bool { references != nil }
    var needsEveryCanvas: Bool { references != nil }
    func observe(_ canvas: Canvas) { references?.observe(canvas) }

    func verify(_ temporaries: [AtomicOutput], in context: ConversionContext, settings: VerifySettings) throws
        -> OutputVerification?
    {
        let verifier = Verifier(context: context, settings: settings)
        guard let output = temporaries.first else { return nil }
        let source: ReferenceSource = if let references {
            DigestReferenceSource(digests: references.digests, width: canvas.width, height: canvas.height)
        } else {
            UncheckedReferenceSource(width: canvas.width, height: canvas.height)
        }
        return try verifier.verifyWebP(output.temporaryPath, source: source, target: target, memoryBudget: bytes)
    }
}
