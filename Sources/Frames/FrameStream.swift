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
    package let metadata: GifMetadata
    /// Canvases the ring may hold.
    package let capacity: Int
    /// Threads decoding (the producer counts as one); 1 is the sequential decoder.
    package let threads: Int
    /// Frames decoded ahead of the compositor at most (0 when sequential).
    package let decodeWindow: Int
    package var canvasSize: CanvasSize { metadata.canvas }
    private let ring: CanvasRing
    private let producer: Thread?
    /// Without a producer thread: the decoder, run on the consumer's thread, and the one canvas it lends.
    private let inline: InlineFrames?

    /// Starts decoding `path`. `metadata` defaults to a fresh `readGifMetadata`; `memoryBudget` (bytes)
    /// overrides the capacity categories (see `CacheCapacity`); `threads` defaults to
    /// `metadata.defaultDecodeThreads` (by the work: frames × canvas pixels, at most the cores).
    /// `producerThread` false: no thread at all; each `nextCanvas` decodes its frame on the caller's thread
    /// (a run limited to one thread: `--threads 1`, or a cgroup quota of one core), one canvas held.
    package convenience init(
        path: String, metadata: GifMetadata? = nil, limits: DecodeLimits = .default, memoryBudget: Int? = nil,
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
        path: String, metadata: GifMetadata?, limits: DecodeLimits, memoryBudget: Int?, threads: Int?,
        producerThread: Bool = true, holdingProducerAt gate: Int?, bands: Int? = nil
    ) throws {
        let metadata = try metadata ?? readGifMetadata(path: path, limits: limits)
        self.metadata = metadata
        if !producerThread && gate == nil {
            try CanvasMemoryCheck.ensure(bytes: metadata.canvasBytes.multipliedReportingOverflow(by: 2).partialValue)
            capacity = 1
            self.threads = 1
            decodeWindow = 0
            ring = CanvasRing(capacity: 1, canvasBytes: metadata.canvasBytes, frameCount: 0)
            producer = nil
            inline = try InlineFrames(path: path, metadata: metadata, limits: limits)
            return
        }
        inline = nil
        let plan = CacheCapacity.plan(
            canvasBytes: metadata.canvasBytes, frameCount: metadata.images.count, memoryBudget: memoryBudget,
            // A WebP or APNG is decoded on the producer thread alone (no decode-ahead workers).
            threads: metadata.format == .gif ? threads ?? metadata.defaultDecodeThreads : 1)
        capacity = plan.canvases
        // The compositor's screen and the first cached canvas, before a thread allocates them for good.
        try CanvasMemoryCheck.ensure(bytes: metadata.canvasBytes.multipliedReportingOverflow(by: 2).partialValue)
        self.threads = plan.threads
        decodeWindow = plan.decodeWindow
        let ring = CanvasRing(
            capacity: capacity, canvasBytes: metadata.canvasBytes, frameCount: metadata.images.count, gate: gate)
        self.ring = ring
        let producer = Thread {
            ring.produce(path: path, metadata: metadata, limits: limits, plan: plan, bands: bands)
        }
        producer.name = "gifx.frames.producer"
        producer.start()
        self.producer = producer
    }

    deinit { close() }

    /// Most bytes the ring has held at once (allocated canvases × canvas bytes), for the caller's statistics.
    package var peakCacheBytes: Int { inline?.peakBytes ?? ring.peakBytes }

    /// Most bytes the decode-ahead window's index buffers have held at once (0 when sequential); final once
    /// the producer has stopped (after the last canvas's `nextCanvas` returned `nil`, or `close()`).
    package var peakDecodeAheadBytes: Int { ring.peakDecodeAheadBytes }

    /// Threads, window and the window's peak bytes, for the caller's statistics (final like `peakDecodeAheadBytes`).
    package var decodeStats: DecodeStats {
        if inline == nil, let stats = ring.stats { return stats }
        return DecodeStats(threads: threads, window: decodeWindow, peakWindowBytes: 0)
    }

    /// Warnings about damaged image data found so far (final once every canvas has been delivered).
    package var warnings: [String] { inline?.warnings ?? ring.warnings }

    /// Lends the next canvas (in frame order) to `body`; `nil` after the last one.
    package func nextCanvas<R>(_ body: (Canvas) throws -> R) throws -> R? {
        if let inline {
            guard let (index, pixels) = try inline.next() else { return nil }
            return try body(
                Canvas(
                    index: index, width: metadata.canvas.width, height: metadata.canvas.height,
                    pixels: UnsafeRawBufferPointer(start: pixels, count: metadata.canvasBytes)))
        }
        guard let (index, pixels) = try ring.takeNext() else { return nil }
        defer { ring.release() }
        return try body(
            Canvas(
                index: index, width: metadata.canvas.width, height: metadata.canvas.height,
                pixels: UnsafeRawBufferPointer(start: pixels, count: metadata.canvasBytes)))
    }

    /// Stops the producer and waits for it; safe to call more than once.
    package func close() {
        if inline == nil { ring.cancelAndJoin() }
    }

    /// Test hook: waits until the producer is held at the gate given to `init` (every earlier frame published).
    func waitUntilProducerIsHeld() { ring.waitUntilHeld() }

    /// Test hook: lets the producer through the gate.
    func releaseProducer() { ring.openGate() }
}

/// The decoder of a stream without a producer thread: frames decoded and composited on demand into one canvas.
final class InlineFrames {
    let decoder: any FrameSource
    private let canvas: UnsafeMutableRawPointer
    private let canvasBytes: Int
    private var index = 0
    private(set) var peakBytes = 0
    /// The decoder's warnings as of the last frame delivered, as the ring publishes them (a frame that
    /// fails adds none).
    private(set) var warnings: [String] = []
    private var warningTotal = 0

    init(path: String, metadata: GifMetadata, limits: DecodeLimits) throws {
        decoder = try InputFormat.makeFrameSource(path: path, metadata: metadata, limits: limits)
        canvasBytes = metadata.canvasBytes
        canvas = .allocate(byteCount: Swift.max(1, canvasBytes), alignment: 64)
    }

    deinit { canvas.deallocate() }

    /// The next frame composited into the canvas, `nil` after the last.
    func next() throws -> (index: Int, pixels: UnsafeMutableRawPointer)? {
        guard try decoder.advance() else { return nil }
        decoder.copyCanvas(to: canvas)
        if decoder.warningTotal != warningTotal {
            warnings = decoder.warnings
            warningTotal = decoder.warningTotal
        }
        peakBytes = canvasBytes
        defer { index += 1 }
        return (index, canvas)
    }
}

/// The ring shared by the producer thread and the consumer.
/// `@unchecked Sendable`: every stored var is read and written only while holding `monitor`; a slot's
/// pixels are written by the producer only between claiming a free slot and publishing it (`filled += 1`),
/// and read by the consumer only between `takeNext` and `release`, so no slot is touched by both at once.
final class CanvasRing: @unchecked Sendable {
    /// The one lock of the ring and of the banded producer's scheduler.
    let monitor = Monitor()
    /// Signalled when the consumer or the producer should look again (a frame published or released, a stop).
    private let condition: Monitor.Condition
    /// The banded producer's workers' condition: broadcast when a released slot or a cancel may give them work.
    var workers: Monitor.Condition?
    private let capacity: Int
    private let canvasBytes: Int
    private let frameCount: Int
    private var slots: [UnsafeMutableRawPointer?]
    /// Frames published and not yet released by the consumer.
    private var filled = 0
    /// Next frame the consumer takes.
    private var consumed = 0
    private var allocatedSlots = 0
    private var cancelled = false
    private var producerExited = false
    private var failure: (frame: Int, error: any Error)?
    private var decoderWarnings: [String] = []
    private var producerStats: DecodeStats?
    /// Test gate: the producer waits before claiming a slot for this frame or a later one.
    private var gate: Int?
    private var heldAtGate = false

    /// Frames published before the consumer is woken (1 except for tiny canvases).
    private let wakeBatch: Int

    init(capacity: Int, canvasBytes: Int, frameCount: Int, gate: Int? = nil) {
        self.capacity = capacity; self.canvasBytes = canvasBytes; self.frameCount = frameCount; self.gate = gate
        condition = Monitor.Condition(monitor)
        wakeBatch = canvasBytes <= CacheCapacity.tinyCanvasBytes && gate == nil ? Swift.min(capacity, 16) : 1
        slots = Array(repeating: nil, count: capacity)
    }

    deinit {
        for slot in slots { slot?.deallocate() }
    }

    var peakBytes: Int { locked { allocatedSlots * canvasBytes } }
    var warnings: [String] { locked { decoderWarnings } }
    var peakDecodeAheadBytes: Int { locked { producerStats?.peakWindowBytes ?? 0 } }
    /// The banded producer's statistics, once it has stopped (`nil` for the sequential decoder).
    var stats: DecodeStats? { locked { producerStats } }

    // MARK: producer side

    /// The producer thread's body: the sequential decoder (or a WebP/APNG source) composites each frame and
    /// it is copied into a claimed slot; with more than one thread, `BandedFrameProducer` composites bands
    /// of frames straight into their slots on every thread. Until done, cancelled, or failed.
    func produce(path: String, metadata: GifMetadata, limits: DecodeLimits, plan: CacheCapacity.Plan, bands: Int? = nil) {
        var stats: DecodeStats?
        do {
            if metadata.format != .gif {
                // A WebP or APNG (issue 35): its `FrameSource` decodes and composites each frame in order on this
                // thread (one call per frame; no decode-ahead), into the same ring.
                let source = try InputFormat.makeFrameSource(path: path, metadata: metadata, limits: limits)
                deliverFrames(of: source, advancing: source.advance)
            } else if plan.threads > 1 {
                stats = BandedFrameProducer(
                    ring: self, path: path, metadata: metadata, limits: limits, plan: plan, bands: bands
                ).run()
            } else {
                let decoder = try GifFrameDecoder(path: path, metadata: metadata, limits: limits)
                deliverFrames(of: decoder, advancing: decoder.advance)
            }
        } catch {
            locked { failure = (0, error) }  // the source could not be opened
        }
        locked {
            producerStats = stats
            producerExited = true
            condition.broadcast()
        }
    }

    /// The one delivery loop of every source: `next` composites the next frame, which is copied into a claimed
    /// slot and published with the warnings (only when they changed: building the list per frame would cost
    /// O(frames) each time); until the last frame, a cancel, or an error, recorded with its frame.
    private func deliverFrames(of source: some FrameSource, advancing next: () throws -> Bool) {
        var frame = 0
        var publishedWarnings = 0
        do {
            while try next() {
                guard let slot = claimSlot(for: frame) else { break }  // cancelled
                source.copyCanvas(to: slot)
                let total = source.warningTotal
                publish(warnings: total != publishedWarnings ? source.warnings : nil)
                publishedWarnings = total
                frame += 1
            }
        } catch {
            locked { failure = (frame, error) }
        }
    }

    private func claimSlot(for frame: Int) -> UnsafeMutableRawPointer? {
        locked {
            while let gate, frame >= gate, !cancelled {
                heldAtGate = true
                condition.broadcast()
                condition.wait()
            }
            while !isSlotFree(for: frame) && !cancelled { condition.wait() }
            if cancelled { return nil }
            return slotLocked(for: frame)
        }
    }

    /// Whether frame `frame`'s slot no longer holds a frame the consumer has still to release (holding the lock).
    func isSlotFree(for frame: Int) -> Bool { frame < consumed + capacity }

    /// Frame `frame`'s slot, allocated on first use (holding the lock).
    func slotLocked(for frame: Int) -> UnsafeMutableRawPointer {
        let position = frame % capacity
        if let slot = slots[position] { return slot }
        let slot = UnsafeMutableRawPointer.allocate(byteCount: Swift.max(1, canvasBytes), alignment: 64)
        slots[position] = slot
        allocatedSlots += 1
        return slot
    }

    /// Whether the banded producer may draw frame `frame` (holding the lock): not at or past the test gate.
    /// Asked for the gate's frame once every earlier frame is published, the producer counts as held there.
    func passesGate(_ frame: Int) -> Bool {
        guard let gate, frame >= gate else { return true }
        if consumed + filled >= gate && !heldAtGate {
            heldAtGate = true
            condition.broadcast()
        }
        return false
    }

    /// Whether the consumer closed the stream (holding the lock).
    var isCancelled: Bool { cancelled }

    /// Records that frame `frame` failed with `error` (holding the lock): the consumer gets it at that frame.
    func fail(frame: Int, _ error: any Error) { failure = (frame, error) }

    private func publish(warnings: [String]?) {
        locked { publishLocked(warnings: warnings) }
    }

    /// Publishes the next frame, in order (holding the lock).
    func publishLocked(warnings: [String]?) {
        filled += 1
        if let warnings { decoderWarnings = warnings }
        // Tiny canvases wake the consumer once per `wakeBatch` frames: waking it for each cost more than
        // the frame. The producer only waits when the ring is full (`filled == capacity >= wakeBatch`)
        // and broadcasts when it stops, so a waiting consumer is always woken.
        if filled >= wakeBatch { condition.broadcast() }
    }

    // MARK: consumer side

    /// Waits for the next frame; `nil` when all were delivered; throws the producer's error for its frame.
    func takeNext() throws -> (index: Int, pixels: UnsafeMutableRawPointer)? {
        try locked {
            while filled == 0 && !producerExited && consumed < frameCount && !cancelled { condition.wait() }
            // Closed: nothing more is delivered, not even a frame the producer published before it stopped.
            if cancelled && consumed < frameCount { throw GifDecodeError(.io, at: nil, "frame stream closed") }
            if filled > 0, let slot = slots[consumed % capacity] { return (consumed, slot) }
            if let failure, failure.frame == consumed { throw failure.error }
            return nil
        }
    }

    /// Hands the slot taken by `takeNext` back to the producer.
    func release() {
        locked {
            filled -= 1
            consumed += 1
            // A producer waiting for a slot is woken once `wakeBatch` slots are free (or the ring is empty),
            // as the consumer is: per frame on tiny canvases, the hand-over cost more than the frame.
            if capacity - filled >= wakeBatch || filled == 0 { condition.broadcast() }
            workers?.broadcast()  // a slot is free: bands of a later frame may go on
        }
    }

    func waitUntilHeld() {
        locked { while !heldAtGate && !producerExited { condition.wait() } }
    }

    func openGate() {
        locked {
            gate = nil
            condition.broadcast()
            workers?.broadcast()
        }
    }

    func cancelAndJoin() {
        locked {
            cancelled = true
            condition.broadcast()
            workers?.broadcast()
            while !producerExited { condition.wait() }
        }
    }

    func locked<T>(_ body: () throws -> T) rethrows -> T {
        try monitor.withLock(body)
    }
}
