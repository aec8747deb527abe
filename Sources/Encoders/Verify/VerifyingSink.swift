import Dispatch
import Foundation
import GifxFrames
import GifxTimeline

/// `RunSettings.verify`: wraps one output's sink, sees the same lent canvases, keeps only what its check needs, and after
/// the sink's `finish` reads the temporaries back, before the commit (`Conversion` refuses to commit when one
/// fails). No second decode of the GIF:
///
/// - a video's packets are decoded as they are written and compared with copies of the YUV frames the encoder
///   was given, queued meanwhile (`VideoTap`); the temporary is then read back packet by packet;
/// - a lossless WebP, a PNG poster and a sprite sheet are exact checks, so a digest per GIF frame is kept
///   (8 bytes a frame) and each frame read back from the temporaries is compared with it;
/// - a JPEG poster keeps its one frame's reference pixels;
/// - a lossy WebP's frames, timing and loop count are checked, not its pixels (nothing bounded to compare with);
/// - the timeline JSON and canvas folders are not verified.
final class VerifyingSink: ConversionSink {
    let inner: any ConversionSink
    private let context: ConversionContext
    private let settings: VerifySettings
    private var temporaries: [AtomicOutput] = []
    private var tap: VideoTap?
    private var digests: [Int] = []
    private var digestMaker: ReferenceMaker?
    private var posterReference: [UInt8]?
    private var innerWantsMore = true
    private var pass = 0
    private(set) var report: OutputVerification?

    init(_ inner: any ConversionSink, context: ConversionContext, settings: VerifySettings) throws {
        self.inner = inner
        self.context = context
        self.settings = settings
        let canvas = context.metadata.canvas
        switch inner {
        case let video as VideoSink:
            video.sessionOpened = { [unowned self, unowned video] session in
                guard case .video(let result) = video.result else { return }
                tap = try VideoTap(
                    session: session, writer: video.writer, keepAlpha: result.keepsAlpha, timeline: context.timeline,
                    settings: settings, run: context.settings)
            }
        case let webp as WebPSink where webp.options.quality == nil:
            digestMaker = try ReferenceMaker(canvas: canvas, output: canvas, keepAlpha: true, background: .white)
        case let sheet as SpriteSheetSink:
            digestMaker = try ReferenceMaker(
                canvas: canvas, output: sheet.options.size.size(for: canvas), keepAlpha: true, background: .white,
                sheet: true)
        case let poster as PosterSink:
            if case .jpeg(let options) = poster.format {
                posterReference = []
                digestMaker = try ReferenceMaker(
                    canvas: canvas, output: canvas, keepAlpha: false, background: options.background)
            } else {
                digestMaker = try ReferenceMaker(canvas: canvas, output: canvas, keepAlpha: true, background: .white)
            }
        default:
            break
        }
    }

    /// `sink` wrapped when the run verifies and the output is one `verify` reads; else `sink` itself.
    static func wrap(_ sink: any ConversionSink, context: ConversionContext) throws -> any ConversionSink {
        guard let settings = context.settings.verify else { return sink }
        switch sink {
        case is VideoSink, is WebPSink, is SpriteSheetSink, is PosterSink:
            return try VerifyingSink(sink, context: context, settings: settings)
        default:
            return sink
        }
    }

    /// Verifies every wrapped sink's temporaries, side by side (one thread each, as the sinks were fed) unless
    /// `concurrent` is false; throws `VerificationFailed` when one does not verify.
    static func verifyAll(_ sinks: [any ConversionSink], concurrent: Bool) throws -> [OutputVerification] {
        let verifying = sinks.compactMap { $0 as? VerifyingSink }
        let round = VerifyRound(verifying)
        if concurrent && verifying.count > 1 {
            DispatchQueue.concurrentPerform(iterations: verifying.count) { round.run($0) }
        } else {
            for index in verifying.indices { round.run(index) }
        }
        let reports = try round.outcomes.compactMap { try $0.get() }
        if reports.contains(where: { !$0.passed }) { throw VerificationFailed(reports: reports) }
        return reports
    }

    var needsPrePass: Bool { inner.needsPrePass }
    func prePass(_ canvas: Canvas) throws { try inner.prePass(canvas) }
    func endPrePass(delivered: Int) throws { try inner.endPrePass(delivered: delivered) }

    func open(in transaction: OutputTransaction) throws {
        let before = transaction.outputs.count
        try inner.open(in: transaction)
        temporaries = Array(transaction.outputs[before...])
    }

    var plannedPasses: Int { inner.plannedPasses }
    /// The inner sink's levels, each with what reading the output back holds besides: the output's decoder
    /// and, for a video, the queue of YUV frames the encoder has not yet returned (its delay: room for 64
    /// frames at 1.5 bytes a pixel).
    var memoryDemand: MemoryDemand? {
        let canvas = context.metadata.canvasBytes
        let own = inner is VideoSink ? 64 * canvas * 3 / 8 + (16 << 20) : 2 * canvas + (4 << 20)
        guard let demand = inner.memoryDemand else {
            return MemoryDemand(consumer: "verify", bytes: own, setting: "read back")
        }
        return MemoryDemand(
            consumer: demand.consumer + " + verify",
            levels: demand.levels.map { .init(bytes: $0.bytes + own, setting: $0.setting) })
    }
    func useMemoryLevel(_ level: Int, plan: MemoryPlan) { inner.useMemoryLevel(level, plan: plan) }

    func beginPass(_ pass: Int) throws -> Bool {
        self.pass = pass
        innerWantsMore = try inner.beginPass(pass)
        if pass == 0, digestMaker != nil {
            digests.removeAll()
            return true  // every canvas's digest, even when the sink itself stops early (a deduplicated sheet)
        }
        return innerWantsMore
    }

    func consume(_ canvas: Canvas) throws -> Bool {
        if let maker = digestMaker, pass == 0, maker.isIdentity, posterReference == nil,
           let pixels = canvas.pixels.baseAddress?.assumingMemoryBound(to: UInt8.self)
        {
            digests.append(Verifier.digest(pixels, stride: canvas.width, width: canvas.width, height: canvas.height))
        } else if let maker = digestMaker, pass == 0 {
            var pixels = [UInt8](repeating: 0, count: maker.allocationBytes)
            pixels.withUnsafeMutableBufferPointer { maker.make(canvas, into: $0.baseAddress!) }
            if posterReference != nil, let poster = inner as? PosterSink {
                if canvas.index == poster.frame { posterReference = pixels }
            } else {
                digests.append(Verifier.digest(pixels, width: maker.width, height: maker.height))
            }
        }
        if innerWantsMore { innerWantsMore = try inner.consume(canvas) }
        if let poster = inner as? PosterSink, canvas.index >= poster.frame { return innerWantsMore }
        return innerWantsMore || (digestMaker != nil && pass == 0 && !(inner is PosterSink))
    }

    func endPass(delivered: Int) throws { try inner.endPass(delivered: delivered) }

    func finish() throws { try inner.finish() }

    var result: OutputResult { inner.result }

    /// Reads the finished temporaries back and checks them; `nil` for outputs that are not verified.
    func verify() throws -> OutputVerification? {
        let verifier = Verifier(context: context, settings: settings)
        let canvas = context.metadata.canvas
        var pageMap: [String: String] = [:]
        for output in temporaries {
            pageMap[URL(fileURLWithPath: output.targetPath).standardized.path] = output.temporaryPath
        }
        switch inner {
        case let video as VideoSink:
            guard let tap, let output = temporaries.first else { return nil }
            report = try tap.finish(temporaryPath: output.temporaryPath, target: video.target)
        case let webp as WebPSink:
            guard let output = temporaries.first else { return nil }
            let source: ReferenceSource = digestMaker != nil
                ? DigestReferenceSource(digests: digests, width: canvas.width, height: canvas.height)
                : UncheckedReferenceSource(width: canvas.width, height: canvas.height)
            report = try verifier.verifyWebP(output.temporaryPath, source: source, target: webp.target)
        case let sheet as SpriteSheetSink:
            let json = URL(fileURLWithPath: sheet.options.jsonPath).standardized.path
            guard let temporary = pageMap[json] else { return nil }
            let size = sheet.options.size.size(for: canvas)
            report = try verifier.verifySheet(
                temporary, target: sheet.options.jsonPath, pageMap: pageMap,
                source: DigestReferenceSource(digests: digests, width: size.width, height: size.height))
        case let poster as PosterSink:
            guard let output = temporaries.first else { return nil }
            let reference: Reference = posterReference.map { .pixels($0) }
                ?? .digest(digests.count > poster.frame ? digests[poster.frame] : 0)
            report = try verifier.verifyPoster(
                output.temporaryPath, expected: Verifier.Expectation(posterFrame: poster.frame), given: reference,
                target: poster.target)
        default:
            return nil
        }
        return report
    }
}

/// The verifications of one run: sink `i` runs on one thread only and writes only outcome `i` (they share
/// nothing: each reads its own temporaries and owns its decoder); `concurrentPerform` returns after all.
private final class VerifyRound: @unchecked Sendable {
    let sinks: [VerifyingSink]
    let outcomes: UnsafeMutableBufferPointer<Result<OutputVerification?, any Error>>

    init(_ sinks: [VerifyingSink]) {
        self.sinks = sinks
        outcomes = .allocate(capacity: sinks.count)
        outcomes.initialize(repeating: .success(nil))
    }

    deinit {
        outcomes.deinitialize()
        outcomes.deallocate()
    }

    func run(_ index: Int) {
        outcomes[index] = Result { try sinks[index].verify() }
    }
}
