import Foundation
import GifxTimeline

/// The parallel GIF decoder (issue 39): every thread takes whichever task is ready, under the ring's one
/// lock. Two kinds of task:
/// - the LZW data of the next frame, decoded to an index buffer (frames claimed in file order, at most
///   `window` of them decoded and not yet composited: one index buffer each);
/// - one horizontal band of one frame, composited straight into the frame's ring slot. A band is a
///   `Compositor` of its rows alone (its own palette table, pending disposal and restore-previous save), so
///   the bands of a canvas never touch each other and each band runs through the frames in order on its own:
///   compositing, the serial stage of a GIF, is split `bands` ways. A band first makes its rows of the slot
///   hold the previous canvas (copied from the previous slot, or already there in a ring of one canvas), so
///   no canvas is ever copied whole on one thread.
/// A frame whose bands are all drawn is judged (damage and out-of-palette warnings, or the error that ends the
/// stream, exactly as the sequential decoder judges it) and published; frames complete in order because each
/// band does. The canvases, warnings and errors are the sequential decoder's (ParallelDecodeTests).
/// `@unchecked Sendable`: every stored var is read and written only while holding `ring.monitor`; a band's
/// compositor only by the thread running that band's task (`bandBusy`); an index buffer only by the thread
/// that claimed its frame until it is stored, then only read by band tasks until the frame completes.
final class BandedFrameProducer: @unchecked Sendable {
    private let ring: CanvasRing
    private let path: String
    private let metadata: AnimationMetadata
    private let limits: DecodeLimits
    private let frameCount: Int
    private let window: Int
    private let bufferBytes: Int
    private let bands: [Compositor]
    private let threads: Int
    /// Where idle threads wait for a task; signalled only as many times as there are new tasks for others.
    private let wake: Monitor.Condition
    private var idleWorkers = 0

    // MARK: state guarded by `ring.monitor`
    private var globalColors: ColorTable?
    /// Next frame whose LZW data is handed out.
    private var nextClaim = 0
    /// The first frame not yet drawn by every band (its index buffer is still in use).
    private var oldestIncomplete = 0
    /// Decoded frames, by frame index modulo `window`.
    private var decoded: [DecodedImage?]
    /// Bands still to draw, and whether one saw a colour index beyond the palette, by frame modulo `window`.
    private var bandsLeft: [Int]
    private var outOfRange: [Bool]
    /// Per band: the next frame it draws, and whether a thread is drawing it now.
    private var bandNext: [Int]
    private var bandBusy: [Bool]
    private var freeBuffers: [UnsafeMutablePointer<UInt8>] = []
    private var allocatedBuffers = 0
    private var stopped = false
    private var runningWorkers = 0
    private var warningLog = WarningLog()
    /// Busy nanoseconds: per band (compositing), and in LZW decoding (all threads).
    private var bandNanoseconds: [UInt64]
    private var lzwNanoseconds: UInt64 = 0

    /// `bands`: how many (tests); by default `CacheCapacity.bands` of the canvas.
    init(
        ring: CanvasRing, path: String, metadata: AnimationMetadata, limits: DecodeLimits, plan: CacheCapacity.Plan,
        bands bandCount: Int? = nil
    ) {
        self.ring = ring; self.path = path; self.metadata = metadata; self.limits = limits
        frameCount = metadata.images.count
        window = Swift.max(1, plan.decodeWindow)
        bufferBytes = Swift.max(1, metadata.canvas.width * metadata.canvas.height)
        threads = plan.threads
        let height = metadata.canvas.height
        let count = Swift.max(1, Swift.min(height, bandCount ?? CacheCapacity.bands(width: metadata.canvas.width, height: height)))
        self.bands = (0..<count).map { band in
            Compositor(
                width: metadata.canvas.width, height: height, band: (band * height / count)..<((band + 1) * height / count))
        }
        decoded = Array(repeating: nil, count: window)
        bandsLeft = Array(repeating: count, count: window)
        outOfRange = Array(repeating: false, count: window)
        bandNext = Array(repeating: 0, count: count)
        bandBusy = Array(repeating: false, count: count)
        bandNanoseconds = Array(repeating: 0, count: count)
        wake = Monitor.Condition(ring.monitor)
    }

    deinit {
        for image in decoded { image?.pixels.deallocate() }
        for buffer in freeBuffers { buffer.deallocate() }
    }

    /// Runs the decoder on the calling thread (the producer) and `threads - 1` more; returns when every frame
    /// is published, the stream is cancelled, or a frame failed (recorded in the ring for that frame).
    func run() -> DecodeStats {
        let started = DispatchTime.now().uptimeNanoseconds
        do {
            let reader = try GifFileReader(path: path)
            try checkScreen(reader, limits: limits)
            guard reader.screenWidth == metadata.canvas.width, reader.screenHeight == metadata.canvas.height else {
                throw GifDecodeError(.malformed, at: 6, "the file changed since its metadata was read")
            }
            globalColors = reader.globalColors
            ring.locked {
                runningWorkers = threads
                ring.workers = wake
            }
            for number in 1..<threads {
                let thread = Thread { [self] in work(decoder: nil) }
                thread.name = "gifx.frames.worker\(number)"
                thread.start()
            }
            work(decoder: ImageIndexDecoder(reader: reader, metadata: metadata, decoder: limits.decoder))
            ring.locked {
                while runningWorkers > 0 { wake.wait() }
                ring.workers = nil
            }
        } catch {
            ring.locked { ring.fail(frame: 0, error) }  // the file could not be opened
        }
        let wall = DispatchTime.now().uptimeNanoseconds - started
        return ring.locked {
            DecodeStats(
                threads: threads, window: window, peakWindowBytes: allocatedBuffers * bufferBytes, bands: bands.count,
                compositeSeconds: Double(bandNanoseconds.reduce(0, +)) / 1e9, lzwSeconds: Double(lzwNanoseconds) / 1e9,
                longestBandSeconds: Double(bandNanoseconds.max() ?? 0) / 1e9, wallSeconds: Double(wall) / 1e9)
        }
    }

    // MARK: the worker loop

    private enum Task {
        case band(Int, image: DecodedImage, canvas: UnsafeMutablePointer<UInt32>, previous: UnsafeMutablePointer<UInt32>?)
        case lzw(frame: Int, buffer: UnsafeMutablePointer<UInt8>)
    }

    private func work(decoder: ImageIndexDecoder?) {
        var decoder = decoder
        let monitor = ring.monitor
        monitor.lock()
        while let task = nextTaskLocked() {
            monitor.unlock()
            let started = DispatchTime.now().uptimeNanoseconds
            switch task {
            case .band(let band, let image, let canvas, let previous):
                drawBand(band, image, into: canvas, continuing: previous)
                let elapsed = DispatchTime.now().uptimeNanoseconds - started
                monitor.lock()
                bandNanoseconds[band] += elapsed
                bandFinished(band, frame: image.index)
            case .lzw(let frame, let buffer):
                var image: DecodedImage
                do {
                    if decoder == nil {
                        decoder = try ImageIndexDecoder(path: path, metadata: metadata, decoder: limits.decoder)
                    }
                    image = decoder!.decode(frame, into: buffer)
                } catch {
                    // This thread cannot read the file at all: the frame reports it, in order.
                    image = DecodedImage(index: frame, pixels: buffer, error: error)
                }
                let elapsed = DispatchTime.now().uptimeNanoseconds - started
                monitor.lock()
                lzwNanoseconds += elapsed
                decoded[frame % window] = image
                // Its bands can start: this thread takes one, idle ones the others.
                wakeIdle(bands.indices.reduce(0) { $0 + (bandNext[$1] == frame && !bandBusy[$1] ? 1 : 0) } - 1)
            }
        }
        runningWorkers -= 1
        wake.broadcast()  // the producer waits for the last worker; idle ones see the stream is done
        monitor.unlock()
    }

    /// Wakes up to `count` idle threads (holding the lock).
    private func wakeIdle(_ count: Int) {
        guard count > 0, idleWorkers > 0 else { return }
        if count == 1 { wake.signal() } else { wake.broadcast() }
    }

    /// The next task (holding the lock), waiting while none is ready; `nil` when the stream is done.
    private func nextTaskLocked() -> Task? {
        while true {
            if ring.isCancelled { stopped = true }
            if stopped || oldestIncomplete == frameCount {
                wake.broadcast()  // the others stop too
                return nil
            }
            // Bands first, the oldest frame first: they publish frames and free index buffers.
            var chosen: (band: Int, image: DecodedImage)?
            for band in bands.indices where !bandBusy[band] {
                let frame = bandNext[band]
                guard frame < frameCount, chosen.map({ $0.image.index > frame }) ?? true, ring.passesGate(frame),
                    let image = decoded[frame % window], image.index == frame, ring.isSlotFree(for: frame)
                else { continue }
                chosen = (band, image)
            }
            if let (band, image) = chosen {
                let frame = image.index
                bandBusy[band] = true
                let canvas = ring.slotLocked(for: frame).assumingMemoryBound(to: UInt32.self)
                let previous = frame == 0 ? nil : ring.slotLocked(for: frame - 1).assumingMemoryBound(to: UInt32.self)
                return .band(band, image: image, canvas: canvas, previous: previous)
            }
            if nextClaim < frameCount && nextClaim < oldestIncomplete + window {
                let buffer: UnsafeMutablePointer<UInt8>
                if let free = freeBuffers.popLast() {
                    buffer = free
                } else {
                    buffer = .allocate(capacity: bufferBytes)
                    allocatedBuffers += 1
                }
                defer { nextClaim += 1 }
                return .lzw(frame: nextClaim, buffer: buffer)
            }
            idleWorkers += 1
            wake.wait()
            idleWorkers -= 1
        }
    }

    /// Band `band` has drawn `frame` (holding the lock); the frame's last band judges and publishes it.
    private func bandFinished(_ band: Int, frame: Int) {
        bandBusy[band] = false
        bandNext[band] = frame + 1
        let slot = frame % window
        if bands[band].sawOutOfRangeIndex { outOfRange[slot] = true }
        bandsLeft[slot] -= 1
        guard bandsLeft[slot] == 0 else { return }
        // Every band has drawn it; frames complete in order, since every band draws them in order.
        let image = decoded[slot]!
        decoded[slot] = nil
        freeBuffers.append(image.pixels)
        wakeIdle(nextClaim < frameCount ? 1 : 0)  // the window has room for one more frame's LZW data
        bandsLeft[slot] = bands.count
        let sawOutOfRange = outOfRange[slot]
        outOfRange[slot] = false
        oldestIncomplete = frame + 1
        let before = warningLog.total
        do {
            if let error = image.error {
                warningLog.append(try GifFrameDecoder.damageWarning(error, frame: frame, strict: limits.strict))
            }
            if sawOutOfRange {
                warningLog.append(
                    try GifFrameDecoder.outOfRangeWarning(
                        frame: frame, metadata: metadata, hasGlobalColors: globalColors != nil, strict: limits.strict))
            }
            ring.publishLocked(warnings: warningLog.total != before ? warningLog.lines : nil)
        } catch {
            ring.fail(frame: frame, error)
            stopped = true
            wake.broadcast()
        }
    }

    // MARK: one band of one frame (no lock held)

    /// Draws band `band` of `frame` into `canvas`, as the sequential decoder draws those rows: the previous
    /// frame's disposal, the frame's palette (none when its descriptor could not be read), and the rows the
    /// LZW data gave before it ended or broke, in decode order.
    private func drawBand(
        _ band: Int, _ image: DecodedImage, into canvas: UnsafeMutablePointer<UInt32>,
        continuing previous: UnsafeMutablePointer<UInt32>?
    ) {
        let compositor = bands[band]
        compositor.target(canvas, continuing: previous)
        let descriptor = metadata.images[image.index].descriptor
        compositor.beginFrame(
            area: compositor.clip(descriptor.rect), disposal: descriptor.disposal,
            palette: image.record.map { $0.localColors ?? globalColors } ?? nil,
            transparentIndex: image.record == nil ? nil : descriptor.transparentIndex)
        let rect = descriptor.rect, area = image.area, rows = compositor.rows
        func draw(_ row: Int) {
            let stored = row - image.rowOffset
            if stored >= 0 && stored < area.height {
                compositor.drawRow(image.pixels + stored * area.width, count: area.width, left: area.x, y: rect.y + row)
            }
        }
        if !descriptor.interlaced {
            // Rows in order: only the band's, and only those decoded.
            let first = Swift.max(0, rows.lowerBound - rect.y)
            let end = Swift.min(rect.height, image.rowsDecoded, rows.upperBound - rect.y)
            if first < end { for row in first..<end { draw(row) } }
            return
        }
        var remaining = image.rowsDecoded
        for pass in DecodedImage.rowOrder(interlaced: true) {
            var row = pass.start
            while row < rect.height && remaining > 0 {
                remaining -= 1
                if rows.contains(rect.y + row) { draw(row) }
                row += pass.step
            }
        }
    }
}
