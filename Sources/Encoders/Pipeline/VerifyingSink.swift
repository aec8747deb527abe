import Foundation
import GifxFrames
import GifxTimeline

/// `RunSettings.verify`: wraps one output's sink (a `VerifiableSink`) with the `OutputCheck` the sink made of its
/// output, shows the check the same lent canvases, and after the sink's `finish` has it read the temporaries back,
/// before the commit (`Conversion` refuses to commit when one fails). It knows sinks only through these two
/// protocols. No second decode of the GIF:
///
/// - a video's packets are decoded as they are written and compared with copies of the YUV frames the encoder
///   was given, queued meanwhile (`VideoTap`); the temporary is then read back packet by packet;
/// - a lossless WebP, a PNG poster and a sprite sheet are exact checks, so a digest per GIF frame is kept
///   (8 bytes a frame) and each frame read back from the temporaries is compared with it;
/// - a JPEG poster keeps its one frame's reference pixels;
/// - a lossy WebP's frames, timing and loop count are checked, not its pixels (nothing bounded to compare with);
/// - the timeline JSON and canvas folders are not verified (their sinks are not `VerifiableSink`s).
final class VerifyingSink: ConversionSink {
    let inner: any ConversionSink
    private let check: any OutputCheck
    private let context: ConversionContext
    private let settings: VerifySettings
    private var temporaries: [AtomicOutput] = []
    private var innerWantsMore = true
    private var pass = 0
    /// The inner sink's demand, asked once (the plan's share holds one of its levels plus the check's bytes).
    private lazy var innerDemand = inner.memoryDemand
    private(set) var report: OutputVerification?

    private init(_ inner: any ConversionSink, check: any OutputCheck, context: ConversionContext, settings: VerifySettings) {
        self.inner = inner
        self.check = check
        self.context = context
        self.settings = settings
    }

    /// `sink` wrapped when the run verifies and the sink's output is one `verify` reads (`VerifiableSink`); else
    /// `sink` itself.
    static func wrap(_ sink: any ConversionSink, context: ConversionContext) throws -> any ConversionSink {
        guard let settings = context.settings.verify, let verifiable = sink as? any VerifiableSink else { return sink }
        return VerifyingSink(
            sink, check: try verifiable.makeCheck(context: context, settings: settings), context: context,
            settings: settings)
    }

    /// Verifies every wrapped sink's temporaries, side by side (one thread each, as the sinks were fed) unless
    /// `concurrent` is false; throws `VerificationFailed` when one does not verify.
    static func verifyAll(_ sinks: [any ConversionSink], concurrent: Bool) throws -> [OutputVerification] {
        let verifying = sinks.compactMap { $0 as? VerifyingSink }
        // Each verification reads its own temporaries and owns its decoder: they share nothing.
        let round = SideBySide(verifying.count) { try verifying[$0].verify() }
        round.run(concurrent: concurrent)
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
    var usesLibav: Bool { inner.usesLibav }
    /// The inner sink's levels, each with what reading the output back holds besides (`OutputCheck.memoryBytes`).
    var memoryDemand: MemoryDemand? {
        let own = check.memoryBytes
        guard let demand = innerDemand else {
            return MemoryDemand(consumer: "verify", bytes: own, setting: "read back")
        }
        return MemoryDemand(
            consumer: demand.consumer + " + verify",
            levels: demand.levels.map { .init(bytes: $0.bytes + own, setting: $0.setting) })
    }

    /// The share holds the inner sink's level and the check's bytes: each gets its part.
    func useMemory(_ share: MemoryPlan.Share, of plan: MemoryPlan) {
        guard let demand = innerDemand else {
            check.useMemory(bytes: share.plannedBytes)
            return
        }
        let innerBytes = demand.levels[share.level].bytes
        check.useMemory(bytes: share.plannedBytes - innerBytes)
        var innerShare = share
        innerShare.consumer = demand.consumer
        innerShare.plannedBytes = innerBytes
        inner.useMemory(innerShare, of: plan)
    }

    func beginPass(_ pass: Int) throws -> Bool {
        self.pass = pass
        innerWantsMore = try inner.beginPass(pass)
        // Every canvas of the first pass reaches the check, even when the sink itself stops early.
        if pass == 0, check.observesCanvases { return true }
        return innerWantsMore
    }

    func consume(_ canvas: Canvas) throws -> Bool {
        if pass == 0, check.observesCanvases { check.observe(canvas) }
        if innerWantsMore { innerWantsMore = try inner.consume(canvas) }
        return innerWantsMore || (pass == 0 && check.needsEveryCanvas)
    }

    func endPass(delivered: Int) throws { try inner.endPass(delivered: delivered) }

    func finish() throws { try inner.finish() }

    var result: any OutputResult { inner.result }

    /// Reads the finished temporaries back and checks them; `nil` for outputs that are not verified.
    func verify() throws -> OutputVerification? {
        report = try check.verify(temporaries, in: context, settings: settings)
        return report
    }
}
