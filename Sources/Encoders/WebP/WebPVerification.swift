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

extension Verifier {
    /// `source`/`target` serve a verifying conversion (digests of the conversion's canvases; the temporary read, the target
    /// named). A lossy WebP's pixels cannot be checked against digests: in a verifying conversion only its frames,
    /// timing and loop count are.
    /// `memoryBudget`: a verifying conversion's share for the check (else the run's budget).
    func verifyWebP(
        _ path: String, source given: ReferenceSource? = nil, target: String? = nil, memoryBudget: Int? = nil
    ) throws -> OutputVerification {
        let reader = try WebPFrameReader(path: path, threads: run.threads)
        var report = OutputVerification(
            path: target ?? path, kind: OutputKind.webp.reader.name,
            codec: reader.lossless ? "webp (lossless)" : "webp (lossy)", width: reader.width,
            height: reader.height, exact: reader.lossless)
        report.loopCount = reader.loopCount
        report.expectedLoopCount = timeline.loop.plays ?? 0
        let maker = try ReferenceMaker(
            canvas: timeline.canvas, output: CanvasSize(width: reader.width, height: reader.height), keepAlpha: true,
            background: settings.background)
        let pixelsChecked = given == nil || reader.lossless
        let matcher = TimedMatcher(
            timeline: timeline,
            source: pixelsChecked ? given ?? CanvasReferenceSource(feed: feed(), maker: maker)
                : UncheckedReferenceSource(width: maker.width, height: maker.height),
            plays: 1, bound: reader.lossless ? nil : settings.minPSNR ?? VerifyDefaults.minPSNR,
            memoryBudget: memoryBudget ?? run.memoryBudget)
        if settings.recordsFrames { matcher.frameLog = [] }
        // A still WebP (gifx writes one for a GIF of one frame): shown as long as the page shows it, so it
        // lasts the GIF's one frame and has no loop count to compare (found by the encoder matrix).
        let still = !reader.animated && reader.frameCount == 1 && timeline.frames.count == 1
        while let (start, duration) = try reader.next(), let pixels = reader.pixels {
            let end = still ? timeline.playDuration.seconds * 1000 : start + duration
            try matcher.add(ShownFrame(pixels: pixels, stride: reader.width, startMs: start, endMs: end))
        }
        matcher.finish(into: &report, settings: settings)
        if !still && reader.loopCount != report.expectedLoopCount {
            report.failures.append("loop count \(reader.loopCount), the schedule's is \(report.expectedLoopCount ?? 0) (0: forever)")
        }
        return report
    }
}
