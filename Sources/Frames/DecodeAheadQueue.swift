import Foundation

/// The decode-ahead window shared by the compositing thread and the LZW worker threads: frames are
/// claimed in file order, decoded to index buffers by whichever thread claimed them, and handed to the
/// compositor strictly in order. At most `window` frames are claimed and not yet composited, and each
/// holds one index buffer (canvas width × height bytes), so the window's memory is bounded.
/// `@unchecked Sendable`: every stored var is read and written only while holding `condition`; a buffer
/// is written only by the thread that claimed its frame, then read only by the compositor after `store`.
final class DecodeAheadQueue: @unchecked Sendable {
    /// What the compositor should do next.
    enum Step {
        /// The frame it waits for is decoded.
        case composite(DecodedImage)
        /// Nobody has claimed this frame yet: decode it on the compositing thread.
        case decode(index: Int, buffer: UnsafeMutablePointer<UInt8>)
    }

    private let condition = NSCondition()
    let window: Int
    private let frameCount: Int
    private let bufferBytes: Int
    /// Next frame to hand out.
    private var nextClaim = 0
    /// Next frame the compositor composites.
    private var nextComposite = 0
    /// Decoded frames waiting for the compositor, by frame index modulo `window`.
    private var ready: [DecodedImage?]
    private var freeBuffers: [UnsafeMutablePointer<UInt8>] = []
    private var allocatedBuffers = 0
    private var stopped = false
    private var runningWorkers = 0

    init(window: Int, frameCount: Int, bufferBytes: Int) {
        self.window = Swift.max(1, window); self.frameCount = frameCount; self.bufferBytes = Swift.max(1, bufferBytes)
        ready = Array(repeating: nil, count: self.window)
    }

    deinit {
        for image in ready { image?.pixels.deallocate() }
        for buffer in freeBuffers { buffer.deallocate() }
    }

    /// Most bytes the window's index buffers have held at once.
    var peakBytes: Int { locked { allocatedBuffers * bufferBytes } }

    /// Starts `count` worker threads, each decoding with the decoder `makeDecoder` opens for it.
    func startWorkers(_ count: Int, makeDecoder: @escaping @Sendable () throws -> ImageIndexDecoder) {
        locked { runningWorkers += count }
        for number in 0..<count {
            let thread = Thread { [self] in
                work(makeDecoder: makeDecoder)
                locked {
                    runningWorkers -= 1
                    condition.broadcast()
                }
            }
            thread.name = "gifx.frames.lzw\(number + 1)"
            thread.start()
        }
    }

    /// Stops handing out frames and waits for every worker to finish the frame it is decoding.
    func stopAndJoinWorkers() {
        locked {
            stopped = true
            condition.broadcast()
            while runningWorkers > 0 { condition.wait() }
        }
    }

    // MARK: compositor side

    /// Blocks until frame `index` is decoded, or until there is a frame for the compositor to decode itself.
    func nextStep(for index: Int) -> Step {
        locked {
            while true {
                if let image = ready[index % window], image.index == index {
                    ready[index % window] = nil
                    return .composite(image)
                }
                if let claim = claimLocked() { return .decode(index: claim.index, buffer: claim.buffer) }
                condition.wait()
            }
        }
    }

    /// Frame `image.index` is composited: its buffer goes back to the pool and the window moves on.
    func finished(_ image: DecodedImage) {
        locked {
            freeBuffers.append(image.pixels)
            nextComposite = image.index + 1
            condition.broadcast()
        }
    }

    // MARK: both sides

    /// Hands a decoded frame to the compositor.
    func store(_ image: DecodedImage) {
        locked {
            ready[image.index % window] = image
            condition.broadcast()
        }
    }

    // MARK: workers

    private func work(makeDecoder: () throws -> ImageIndexDecoder) {
        var decoder: ImageIndexDecoder?
        while let claim = claimBlocking() {
            do {
                if decoder == nil { decoder = try makeDecoder() }
                store(decoder!.decode(claim.index, into: claim.buffer))
            } catch {
                // The worker cannot read the file at all: the compositor reports it at this frame.
                store(DecodedImage(index: claim.index, pixels: claim.buffer, error: error))
            }
        }
    }

    private func claimBlocking() -> (index: Int, buffer: UnsafeMutablePointer<UInt8>)? {
        locked {
            while !stopped && nextClaim < frameCount {
                if let claim = claimLocked() { return claim }
                condition.wait()
            }
            return nil
        }
    }

    /// The next frame and a buffer for it, when the window has room (call holding the lock).
    private func claimLocked() -> (index: Int, buffer: UnsafeMutablePointer<UInt8>)? {
        guard !stopped, nextClaim < frameCount, nextClaim < nextComposite + window else { return nil }
        let buffer: UnsafeMutablePointer<UInt8>
        if let free = freeBuffers.popLast() {
            buffer = free
        } else {
            buffer = .allocate(capacity: bufferBytes)
            allocatedBuffers += 1
        }
        defer { nextClaim += 1 }
        return (nextClaim, buffer)
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        condition.lock()
        defer { condition.unlock() }
        return try body()
    }
}
