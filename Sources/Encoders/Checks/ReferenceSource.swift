import GifxFrames

/// What an output frame is compared with: the GIF frame's reference pixels (RGBA at the output's geometry), or,
/// where the check is exact and the pixels are gone (a verifying conversion's check of a lossless output after the conversion's
/// pass), their digest.
package enum Reference {
    case pixels([UInt8])
    case digest(Int)
    /// Not compared: always passes.
    case unchecked
    /// A packed copy of the YUV frame an encoder was given (`PlaneView`).
    case planes([UInt8])
    /// A frame the output was planned never to show: matches nothing.
    case absent
}

/// The references of the GIF's frames in schedule order, one play after another for as long as asked.
package protocol ReferenceSource: AnyObject {
    /// The compared region.
    var width: Int { get }
    var height: Int { get }
    /// Memory one reference takes (the matcher's ring is sized from the budget with it).
    var bytesPerReference: Int { get }
    /// The next GIF frame's reference; `nil` when none is available (yet).
    func next() throws -> Reference?
}

/// References pushed as the conversion's frames reach the encoder (a verifying conversion of a video: the encoder's
/// packets are decoded as they are written, so the queue holds only the frames between the one handed to the
/// encoder and the one its decoder returns, the encoder's delay).
package final class QueuedReferenceSource: ReferenceSource {
    private var queue: [[UInt8]] = []
    private var head = 0
    package let width: Int
    package let height: Int
    package var bytesPerReference: Int { width * height * 3 / 2 }
    /// The most references waiting at once.
    package private(set) var peakQueued = 0

    package init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Queues the copy of a frame's planes (`nil`: a frame the plan never shows).
    package func push(planes: [UInt8]?) {
        queue.append(planes ?? [])
        peakQueued = max(peakQueued, queue.count - head)
    }

    package func next() throws -> Reference? {
        guard head < queue.count else { return nil }
        let pixels = queue[head]
        queue[head] = []
        head += 1
        if head > 64 && head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
        return pixels.isEmpty ? .absent : .planes(pixels)
    }
}

/// Digests recorded as the canvases passed, replayed play after play (a verifying conversion's check of lossless outputs).
package final class DigestReferenceSource: ReferenceSource {
    private let digests: [Int]
    private var index = 0
    package let width: Int
    package let height: Int
    package var bytesPerReference: Int { 8 }

    package init(digests: [Int], width: Int, height: Int) {
        self.digests = digests
        self.width = width
        self.height = height
    }

    package func next() throws -> Reference? {
        guard !digests.isEmpty else { return nil }
        defer { index += 1 }
        return .digest(digests[index % digests.count])
    }
}

/// No pixels to compare with (a lossy WebP in a verifying conversion): every frame passes the pixel check, so only the
/// frames' count, timing and the loop count are verified.
package final class UncheckedReferenceSource: ReferenceSource {
    package let width: Int
    package let height: Int
    package var bytesPerReference: Int { 1 }
    package init(width: Int, height: Int) { self.width = width; self.height = height }
    package func next() throws -> Reference? { .unchecked }
}
