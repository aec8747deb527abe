/// Growable storage for one fixed-width field of millions of frames, in chunks of `chunkSize` elements.
///
/// Why chunks: a single array doubles as it grows, and while it copies, old and new buffers are both
/// resident (three times the data at the peak). A GIF's frame count is only known at the end of the
/// metadata pass, so its per-frame columns grow here chunk by chunk: the most ever allocated beyond the
/// data is one partly filled chunk. A value type (copy-on-write chunks), so `Timeline` and `AnimationMetadata`
/// can share one column without copying it.
package struct ChunkedColumn<Element: Hashable & Sendable>: RandomAccessCollection, Hashable, Sendable {
    static var chunkShift: Int { 14 }
    /// Elements per chunk (16384).
    package static var chunkSize: Int { 1 << chunkShift }

    private var chunks: [[Element]] = []
    package private(set) var count = 0

    package init() {}

    package var startIndex: Int { 0 }
    package var endIndex: Int { count }

    package subscript(position: Int) -> Element {
        get { chunks[position >> Self.chunkShift][position & (Self.chunkSize - 1)] }
        set { chunks[position >> Self.chunkShift][position & (Self.chunkSize - 1)] = newValue }
    }

    package mutating func append(_ element: Element) {
        if count & (Self.chunkSize - 1) == 0 {
            var chunk: [Element] = []
            // The first chunk grows on demand (small GIFs stay small); later ones are allocated whole.
            if !chunks.isEmpty { chunk.reserveCapacity(Self.chunkSize) }
            chunks.append(chunk)
        }
        chunks[chunks.count - 1].append(element)
        count += 1
    }
}

/// A column of `Int`s that mostly grow slowly from one frame to the next (start times, file offsets),
/// stored in 4 bytes each: every block of 32768 values keeps its first value, and each value is kept as
/// its non-negative distance from it. A value that does not fit (earlier than its block's first, or 4 GiB
/// beyond it) is kept exactly in a side table, so any sequence round-trips; the GIFs that need the side
/// table (4 GiB within 32768 frames) have frames so large that its entries cost nothing by comparison.
package struct OffsetColumn: RandomAccessCollection, Hashable, Sendable {
    static var blockShift: Int { 15 }
    private static let outOfRange = UInt32.max

    private var blockBases: [Int] = []
    private var distances = ChunkedColumn<UInt32>()
    private var outliers: [Int: Int] = [:]

    package init() {}

    package var startIndex: Int { 0 }
    package var endIndex: Int { distances.count }

    package subscript(position: Int) -> Int {
        let distance = distances[position]
        if distance == Self.outOfRange { return outliers[position]! }
        return blockBases[position >> Self.blockShift] + Int(distance)
    }

    package mutating func append(_ value: Int) {
        let position = distances.count
        if position & ((1 << Self.blockShift) - 1) == 0 { blockBases.append(value) }
        let (distance, overflow) = value.subtractingReportingOverflow(blockBases[blockBases.count - 1])
        if !overflow, distance >= 0, distance < Int(Self.outOfRange) {
            distances.append(UInt32(distance))
        } else {
            distances.append(Self.outOfRange)
            outliers[position] = value
        }
    }
}
