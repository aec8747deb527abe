import Foundation
import GifxTimeline

/// The bounded producer cache (design.md, "Memory"): a producer thread decodes and composites ahead into
/// a fixed-capacity ring of canvases; `nextCanvas` lends them to the consumer in frame order. The producer
/// blocks while the ring is full, so memory is `capacity` canvases (plus the compositor's one or two
/// working screens) whatever the frame count. A producer error surfaces on the consumer's call for the
/// frame that failed. `close()` (or deinit) cancels and joins the producer.
/// With more than one thread, every thread decodes the LZW data of the next frames (the decode-ahead
/// window, see `CacheCapacity.plan`) and composites horizontal bands of the frames straight into their
/// slots, each band in frame order (`BandedFrameProducer`): the canvases, warnings and errors are exactly
/// the sequential decoder's.
package final class FrameStream {
    package let metadata: AnimationMetadata
    /// Canvases the ring may hold.
    package let capacity: Int
    /// Threads decoding (the producer counts as one); 1 is the sequential decoder.
    package let threads: Int
    /// Frames decoded ahead of the compositor at most (0 when sequential).
    package let decodeWindow: Int
    package var canvasSize: CanvasSize { metadata.canvas }
    /// Where the canvases come from: one of the two implementations.
    private enum Source {
        /// No producer thread: the decoder runs on the consumer's thread and lends its one canvas.
        case inline(InlineFrames)
        /// A producer thread (with decode-ahead workers) fills the ring ahead of the consumer.
        case ring(CanvasRing)
    }
    private let source: Source

    /// Starts decoding `path`. `metadata` defaults to a fresh `readAnimationMetadata`; `memoryBudget` (bytes)
    /// overrides the capacity categories (see `CacheCapacity`); `threads` defaults to
    /// `metadata.defaultDecodeThreads` (by the work: frames × canvas pixels, at most the cores).
    /// `producerThread` false: no thread at all; each `nextCanvas` decodes its frame on the caller's thread
    /// (a run limited to one thread: `--threads 1`, or a cgroup quota of one core), one canvas held.
    package convenience init(
        path: String, metadata: AnimationMetadata? = nil, limits: DecodeLimits = .default, memoryBudget: Int? = nil,
        threads: Int? = nil, producerThread: Bool = true
    ) throws {
        try self.init(
            path: path, metadata: metadata, limits: limits, memoryBudget: memoryBudget, threads: threads,
            producerThread: producerThread, holdingProducerAt: nil)
    }

    /// Bands a test asks for, in place of `CacheCapacity.bands` (a small canvas in many bands).
    convenience init(path: String, threads: Int, memoryBudget: Int? = nil, bands: Int) throws {
        try self.init(
            path: path, metadata: nil, limits: .default, memoryBudget: memoryBudget, threads: threads,
            holdingProducerAt: nil, bands: bands)
    }

    /// `holdingProducerAt`: a test-only gate; the producer stops before claiming a slot for that frame
    /// until `releaseProducer()` (or `close()`), so a test can stage a race deterministically.
    init(
        path: String, metadata: AnimationMetadata?, limits: DecodeLimits, memoryBudget: Int?, threads: Int?,
        producerThread: Bool = true, holdingProducerAt gate: Int?, bands: Int? = nil
    ) throws {
        let metadata = try metadata ?? readAnimationMetadata(path: path, limits: limits)
        self.metadata = metadata
        if !producerThread && gate == nil {
            try CanvasMemoryCheck.ensure(bytes: metadata.canvasBytes.multipliedReportingOverflow(by: 2).partialValue)
            capacity = 1
            self.threads = 1
            decodeWindow = 0
            source = .inline(try InlineFrames(path: path, metadata: metadata, limits: limits))
            return
        }
        let plan = CacheCapacity.plan(
            canvasBytes: metadata.canvasBytes, frameCount: metadata.images.count, memoryBudget: memoryBudget,
            // A format that is not decoded ahead (WebP, APNG) is decoded on the producer thread alone.
            threads: InputFormat.of(metadata.format).decodesAhead ? threads ?? metadata.defaultDecodeThreads : 1)
        capacity = plan.canvases
        // The compositor's screen and the first cached canvas, before a thread allocates them for good.
        try CanvasMemoryCheck.ensure(bytes: metadata.canvasBytes.multipliedReportingOverflow(by: 2).partialValue)
        self.threads = plan.threads
        decodeWindow = plan.decodeWindow
        let ring = CanvasRing(
            capacity: capacity, canvasBytes: metadata.canvasBytes, frameCount: metadata.images.count, gate: gate)
        source = .ring(ring)
        let producer = Thread {
            ring.produce(path: path, metadata: metadata, limits: limits, plan: plan, bands: bands)
        }
        producer.name = "gifx.frames.producer"
        producer.start()
    }

    deinit { close() }

    /// Most bytes the ring has held at once (allocated canvases × canvas bytes), for the caller's statistics.
    package var peakCacheBytes: Int {
        switch source {
        case .inline(let inline): inline.peakBytes
        case .ring(let ring): ring.peakBytes
        }
    }

    /// Most bytes the decode-ahead window's index buffers have held at once (0 when sequential); final once
    /// the producer has stopped (after the last canvas's `nextCanvas` returned `nil`, or `close()`).
    package var peakDecodeAheadBytes: Int {
        guard case .ring(let ring) = source else { return 0 }
        return ring.peakDecodeAheadBytes
    }

    /// Threads, window and the window's peak bytes, for the caller's statistics (final like `peakDecodeAheadBytes`).
    package var decodeStats: DecodeStats {
        if case .ring(let ring) = source, let stats = ring.stats { return stats }
        return DecodeStats(threads: threads, window: decodeWindow, peakWindowBytes: 0)
    }

    /// Warnings about damaged image data found so far (final once every canvas has been delivered).
    package var warnings: [String] {
        switch source {
        case .inline(let inline): inline.warnings
        case .ring(let ring): ring.warnings
        }
    }

    /// Lends the next canvas (in frame order) to `body`; `nil` after the last one.
    package func nextCanvas<R>(_ body: (Canvas) throws -> R) throws -> R? {
        let next: (index: Int, pixels: UnsafeMutableRawPointer)?
        switch source {
        case .inline(let inline):
            next = try inline.next()
        case .ring(let ring):
            next = try ring.takeNext()
        }
        guard let (index, pixels) = next else { return nil }
        defer { if case .ring(let ring) = source { ring.release() } }
        return try body(
            Canvas(
                index: index, width: metadata.canvas.width, height: metadata.canvas.height,
                pixels: UnsafeRawBufferPointer(start: pixels, count: metadata.canvasBytes)))
    }

    /// Stops the producer and waits for it; safe to call more than once.
    package func close() {
        if case .ring(let ring) = source { ring.cancelAndJoin() }
    }

    /// Test hook: waits until the producer is held at the gate given to `init` (every earlier frame published).
    func waitUntilProducerIsHeld() { if case .ring(let ring) = source { ring.waitUntilHeld() } }

    /// Test hook: lets the producer through the gate.
    func releaseProducer() { if case .ring(let ring) = source { ring.openGate() } }
}
