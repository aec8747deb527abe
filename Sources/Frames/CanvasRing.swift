import Foundation
import GifxTimeline

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
    func produce(path: String, metadata: AnimationMetadata, limits: DecodeLimits, plan: CacheCapacity.Plan, bands: Int? = nil) {
        var stats: DecodeStats?
        do {
            if !InputFormat.of(metadata.format).decodesAhead {
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
