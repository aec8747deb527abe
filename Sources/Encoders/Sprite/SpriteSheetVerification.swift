import Foundation
import GifxChecks
import GifxFrames
import GifxPipeline
import GifxTimeline

/// A verified sprite sheet: a digest of every cell as the sheet scales it, compared exactly with each cell read
/// back from the page temporaries the JSON names.
extension SpriteSheetSink: VerifiableSink {
    package func makeCheck(context: ConversionContext, settings: VerifySettings) throws -> any OutputCheck {
        let canvas = context.metadata.canvas
        let cell = options.size.size(for: canvas)
        return SpriteSheetCheck(
            options: options, cell: cell, canvasBytes: context.metadata.canvasBytes,
            references: CanvasReferences(
                try ReferenceMaker(canvas: canvas, output: cell, keepAlpha: true, background: .white, sheet: true)))
    }
}

/// The check of one sheet: the page reader's buffers (2 canvases and 4 MiB).
final class SpriteSheetCheck: OutputCheck {
    private let options: SpriteOptions
    private let cell: CanvasSize
    private let references: CanvasReferences
    let memoryBytes: Int

    init(options: SpriteOptions, cell: CanvasSize, canvasBytes: Int, references: CanvasReferences) {
        self.options = options
        self.cell = cell
        self.references = references
        memoryBytes = 2 * canvasBytes + (4 << 20)
    }

    var observesCanvases: Bool { true }
    var needsEveryCanvas: Bool { true }
    func observe(_ canvas: Canvas) { references.observe(canvas) }

    func verify(_ temporaries: [AtomicOutput], in context: ConversionContext, settings: VerifySettings) throws
        -> OutputVerification?
    {
        let verifier = Verifier(context: context, settings: settings)
        var pageMap: [String: String] = [:]
        for output in temporaries {
            pageMap[URL(fileURLWithPath: output.targetPath).standardized.path] = output.temporaryPath
        }
        let json = URL(fileURLWithPath: options.jsonPath).standardized.path
        guard let temporary = pageMap[json] else { return nil }
        return try verifier.verifySheet(
            temporary, target: options.jsonPath, pageMap: pageMap,
            source: DigestReferenceSource(digests: references.digests, width: cell.width, height: cell.height))
    }
}
