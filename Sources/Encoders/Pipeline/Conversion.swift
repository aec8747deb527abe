import Foundation
import GifxFrames
import GifxTimeline

/// What a conversion did.
public struct ConversionReport: Sendable {
    /// GIF frames.
    public var frames: Int
    /// One play of the schedule the outputs follow (under the run's policy; after an edit, the edited one).
    public var playDuration: MediaTime
    /// The GIF's canvas.
    public var canvas: CanvasSize
    /// Seconds spent reading the GIF's structure (step 1), before any pixel was decoded.
    public var metadataSeconds: Double
    /// One result per request, in the order asked.
    public var outputs: [any OutputResult]
    /// Metadata and decoder warnings (damaged data kept, and the like), each once.
    public var warnings: [String]
    /// The largest the bounded canvas cache grew in any pass.
    public var peakCacheBytes: Int
    /// How many canvases the cache may hold.
    public var cacheCapacity: Int
    /// Decoding threads and the decode-ahead window (the largest of the passes).
    public var decode: DecodeStats
    /// How the memory budget was shared among the run's consumers (planned bytes, settings chosen).
    package var memory: MemoryPlan
    /// Canvases decoded and composited in all (pre-pass and every pass): the GIF's frame count when one
    /// decode fed every output.
    public var decodedCanvases: Int = 0
    /// With `RunSettings.verify`: what reading each output back found (all passed, or the run threw
    /// `VerificationFailed` and nothing was committed).
    public var verifications: [OutputVerification] = []
}

/// Progress: canvases streamed so far and the total expected (pre-pass and every pass).
package typealias ConversionProgress = (_ done: Int, _ total: Int) -> Void

/// A conversion of one GIF into any number of outputs: the single owner of the steps every command runs.
///
/// `run` reads like libav's doc/examples/mux.c: read the metadata; build the `Timeline` and each output's
/// plan (its sink); run the pre-pass the sinks ask for; open every output; stream the canvases through
/// the bounded cache (`FrameStream`) into every sink that needs pixels, once per pass; finish and commit
/// all outputs together, or none (`OutputTransaction`). Errors come up typed (`GifDecodeError`,
/// `LibavError`, `OutputError`, …); the CLI words them.
package final class Conversion {
    package let inputPath: String
    package let settings: RunSettings

    /// A conversion of the GIF at `inputPath`; throws `RunSettingsProblem` when `settings` cannot run.
    package init(inputPath: String, settings: RunSettings = RunSettings()) throws {
        if let problem = settings.problem { throw problem }
        self.inputPath = inputPath
        self.settings = settings
    }

    private var warnings: [String] = []
    private var peakCacheBytes = 0
    private var decode: DecodeStats?
    private var progress: ConversionProgress?
    private var shouldStop: (() -> Bool)?
    private var done = 0
    /// GIF canvases decoded and composited in all passes (with an edit: the skipped and spooled ones too).
    private var decodedTotal = 0
    private var verifications: [OutputVerification] = []
    private var total = 0
    /// The frame ring's share of the memory plan (bytes), set by `planMemory`.
    private var ringBudget: Int?
    /// The most canvases a frame ring of this run held room for (`FrameStream.capacity`, the largest of the passes).
    private var ringCapacity = 0
    /// Whether any sink works per canvas (`ConversionSink.worksPerCanvas`): else a one-thread decode needs no
    /// producer thread.
    private var consumerWorks = true
    /// With `RunSettings.edit`: the edited canvases every pass delivers instead of the GIF's.
    private var edited: EditedCanvases?

    /// Writes every requested output, all or none. `shouldStop` is asked after every canvas: when it says
    /// true the run stops there, removes every temporary output and throws `CancellationError` (the async
    /// API passes the Task's cancellation through it).
    package func run(
        _ requests: [OutputRequest], progress: ConversionProgress? = nil, shouldStop: (() -> Bool)? = nil
    ) throws -> ConversionReport {
        self.progress = progress
        self.shouldStop = shouldStop
        let started = Date()
        let metadata = try readMetadata()
        let metadataSeconds = Date().timeIntervalSince(started)
        var context = try buildTimeline(metadata)
        edited = context.edit.map { EditedCanvases(edit: $0, canvas: metadata.canvas, scratchFolder: settings.resolvedScratchFolder) }
        context.editedCanvases = edited
        defer { edited = nil }  // closes the spool
        let sinks = try requests.map { try VerifyingSink.wrap(try $0.makeSink(context), context: context) }
        consumerWorks = sinks.contains { $0.worksPerCanvas }
        let memory = try planMemory(sinks, metadata).report
        planProgress(sinks, frames: context.frameCount)
        try runPrePass(sinks, metadata)
        let transaction = OutputTransaction(overwrite: settings.overwrite, scratchFolder: settings.resolvedScratchFolder)
        do {
            try openOutputs(sinks, in: transaction)
            try streamCanvases(into: sinks, metadata)
            try commitOutputs(sinks, transaction)
        } catch {
            transaction.discard()
            throw error
        }
        return ConversionReport(
            frames: metadata.images.count, playDuration: context.timeline.playDuration, canvas: metadata.canvas,
            metadataSeconds: metadataSeconds,
            outputs: sinks.map(\.result), warnings: warnings,
            peakCacheBytes: peakCacheBytes,
            cacheCapacity: ringCapacity,
            decode: decode ?? DecodeStats(threads: 1, window: 0, peakWindowBytes: 0), memory: memory,
            decodedCanvases: decodedTotal, verifications: verifications)
    }

    /// Steps 1 and 2 of `run` and no more: the input's structure, the schedule, and what `requests` would need
    /// (`ConversionDemand`). Nothing is decoded, opened or created. Throws what those steps throw in `run` (an
    /// input that is not an animation, a damaged header, an edit that does not fit).
    package func demand(_ requests: [OutputRequest]) throws -> ConversionDemand {
        ConversionDemand(context: try buildTimeline(try readMetadata()), requests: requests)
    }

    // MARK: The steps, in order.

    /// 1. The GIF's structure: canvas, frames, delays, byte offsets (no pixels).
    private func readMetadata() throws -> AnimationMetadata {
        let metadata = try readAnimationMetadata(path: inputPath, limits: settings.limits)
        warnings = metadata.warnings
        return metadata
    }

    /// 2. The schedule every output follows: the GIF's, or its edit (refused here when it does not fit the GIF).
    private func buildTimeline(_ metadata: AnimationMetadata) throws -> ConversionContext {
        let timeline = Timeline(metadata.timelineInput, policy: settings.policy)
        guard let edit = settings.edit else {
            return ConversionContext(inputPath: inputPath, metadata: metadata, timeline: timeline, settings: settings)
        }
        let edited: EditedTimeline
        do { edited = try timeline.applying(edit) } catch { throw EditError(error) }
        return ConversionContext(
            inputPath: inputPath, metadata: metadata, timeline: edited.timeline, settings: settings, edit: edited)
    }

    /// 2. One memory budget shared by every consumer (`ConversionMemory`), planned once: each sink takes its share
    /// (found by the sink's position), the frame ring its own. Refused here, before anything is decoded or written.
    private func planMemory(_ sinks: [any ConversionSink], _ metadata: AnimationMetadata) throws -> ConversionMemoryPlan {
        let plan = try ConversionMemory.plan(sinks, metadata: metadata, settings: settings)
        for (sink, share) in zip(sinks, plan.sinkShares) {
            if let share { sink.useMemory(share, of: plan.report) }
        }
        ringBudget = plan.ring.plannedBytes
        if plan.report.isTight { HeapPolicy.returnLargeBlocksToTheKernel() }
        return plan
    }

    /// The pre-pass some sinks need before their outputs can be opened (sprite dedupe hashes).
    private func runPrePass(_ sinks: [any ConversionSink], _ metadata: AnimationMetadata) throws {
        let wanting = sinks.filter(\.needsPrePass)
        guard !wanting.isEmpty else { return }
        let delivered = try stream(metadata) { canvas in
            for sink in wanting { try sink.prePass(canvas) }
            return true
        }
        for sink in wanting { try sink.endPrePass(delivered: delivered) }
    }

    /// 3. Every output's files, created before the first pixel is written.
    private func openOutputs(_ sinks: [any ConversionSink], in transaction: OutputTransaction) throws {
        for sink in sinks { try sink.open(in: transaction) }
    }

    /// 4. The canvases, decoded once per pass into every sink that takes part in it (side by side, one
    /// thread per sink: `SinkFanOut`).
    private func streamCanvases(into sinks: [any ConversionSink], _ metadata: AnimationMetadata) throws {
        let fanOut = SinkFanOut(concurrent: settings.sinksSideBySide)
        var pass = 0
        while true {
            let active = try sinks.filter { try $0.beginPass(pass) }
            if active.isEmpty { return }
            var wanting = active
            let delivered = try stream(metadata) { canvas in
                wanting = try fanOut.consume(canvas, by: wanting)
                return !wanting.isEmpty
            }
            for sink in active { try sink.endPass(delivered: delivered) }
            pass += 1
        }
    }

    /// 5. Trailers and JSON, then (`RunSettings.verify`) every output read back, then every file renamed into place together.
    private func commitOutputs(_ sinks: [any ConversionSink], _ transaction: OutputTransaction) throws {
        for sink in sinks { try sink.finish() }
        verifications = try VerifyingSink.verifyAll(sinks, concurrent: settings.sinksSideBySide)
        try transaction.commit()
    }

    // MARK: Helpers.

    private func planProgress(_ sinks: [any ConversionSink], frames: Int) {
        let prePass = sinks.contains(where: \.needsPrePass) ? 1 : 0
        let passes = prePass + (sinks.map(\.plannedPasses).max() ?? 0)
        total = frames * passes + (passes > 0 ? edited?.spoolFrames ?? 0 : 0)
    }

    /// One pass: `body` gets each canvas (the GIF's, or the edit's: `EditedCanvases`) and says whether to go
    /// on. Returns the canvases delivered.
    private func stream(_ metadata: AnimationMetadata, _ body: (Canvas) throws -> Bool) throws -> Int {
        var delivered = 0
        func deliver(_ canvas: Canvas) throws -> Bool {
            let goOn = try body(canvas)
            delivered += 1
            done += 1
            progress?(done, max(total, done))
            return goOn
        }
        func decode(_ each: (Canvas) throws -> Bool) throws -> Int { try decodeCanvases(metadata, each) }
        if let edited {
            if edited.reorders {
                try edited.passReordered(decode: { each in
                    // The spool's canvases count towards the progress once.
                    try decode { canvas in
                        let goOn = try each(canvas)
                        done += 1
                        progress?(done, max(total, done))
                        return goOn
                    }
                }, deliver: deliver)
            } else {
                try edited.passInOrder(decode: decode, deliver: deliver)
            }
        } else {
            _ = try decode(deliver)
        }
        return delivered
    }

    /// The GIF's canvases through a fresh bounded cache: `body` gets each and says whether to go on.
    /// Returns the canvases decoded.
    private func decodeCanvases(_ metadata: AnimationMetadata, _ body: (Canvas) throws -> Bool) throws -> Int {
        let stream = try FrameStream(
            path: inputPath, metadata: metadata, limits: settings.limits, memoryBudget: ringBudget,
            threads: settings.decodeThreads(for: metadata),
            // A producer thread overlaps decoding with the sinks' work; with none (frames --null) a one-thread
            // decode runs on this thread, without a hand-over per frame.
            producerThread: settings.resolvedThreads > 1 && (consumerWorks || settings.decodeThreads(for: metadata) > 1))
        ringCapacity = max(ringCapacity, stream.capacity)
        defer {
            peakCacheBytes = max(peakCacheBytes, stream.peakCacheBytes)
            for warning in stream.warnings where !warnings.contains(warning) { warnings.append(warning) }
            stream.close()
            decode = decode.map { $0.merged(with: stream.decodeStats) } ?? stream.decodeStats
        }
        var decoded = 0
        var more = true
        while more, let goOn = try stream.nextCanvas(body) {
            more = goOn
            decoded += 1
            decodedTotal += 1
            if shouldStop?() == true { throw CancellationError() }
        }
        return decoded
    }
}
