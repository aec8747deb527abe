import GifxTimeline

/// A 128-bit fingerprint of a canvas's bytes. Two canvases with equal digests are taken as byte-identical:
/// the two 64-bit lanes are independent multiply-rotate hashes over every byte plus the length, so an
/// accidental collision (about 2^-128 per pair) is not a practical concern for animation frames. It is not
/// a cryptographic hash: a crafted GIF could make two different frames share a cell.
package struct CanvasDigest: Hashable, Sendable {
    package var low: UInt64
    package var high: UInt64

    /// Hashes `bytes` 32 at a time in four lanes (so the loop is not bound by one multiply chain).
    package init(_ bytes: UnsafeRawBufferPointer) {
        let p1: UInt64 = 0x9E37_79B1_85EB_CA87
        let p2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
        let p3: UInt64 = 0x1656_67B1_9E37_79F9
        let p4: UInt64 = 0x85EB_CA77_C2B2_AE63
        var a: UInt64 = 0x243F_6A88_85A3_08D3, b: UInt64 = 0x1319_8A2E_0370_7344
        var c: UInt64 = 0xA409_3822_299F_31D0, d: UInt64 = 0x082E_FA98_EC4E_6C89
        @inline(__always) func rotl(_ x: UInt64, _ r: UInt64) -> UInt64 { (x << r) | (x >> (64 - r)) }
        let count = bytes.count
        var offset = 0
        if let base = bytes.baseAddress {
            while offset + 32 <= count {
                let w0 = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                let w1 = base.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)
                let w2 = base.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self)
                let w3 = base.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self)
                a = rotl(a &+ w0 &* p2, 31) &* p1
                b = rotl(b &+ w1 &* p2, 31) &* p1
                c = rotl(c &+ w2 &* p3, 29) &* p4
                d = rotl(d &+ w3 &* p3, 29) &* p4
                offset += 32
            }
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while offset < count {
                tail |= UInt64(base.load(fromByteOffset: offset, as: UInt8.self)) << shift
                shift += 8
                offset += 1
                if shift == 64 {
                    a = rotl(a &+ tail &* p2, 31) &* p1
                    c = rotl(c &+ tail &* p3, 29) &* p4
                    tail = 0; shift = 0
                }
            }
            a = rotl(a &+ tail &* p2, 31) &* p1
            c = rotl(c &+ tail &* p3, 29) &* p4
        }
        func avalanche(_ x: UInt64) -> UInt64 {
            var x = x
            x ^= x >> 33; x = x &* 0xFF51_AFD7_ED55_8CCD
            x ^= x >> 33; x = x &* 0xC4CE_B9FE_1A85_EC53
            x ^= x >> 33
            return x
        }
        let length = UInt64(count)
        low = avalanche(rotl(a, 1) &+ rotl(b, 7) ^ (length &* p3))
        high = avalanche(rotl(c, 12) &+ rotl(d, 18) ^ (length &* p1))
    }
}

/// Assigns sprite cells to frames: byte-identical canvases share the cell of the first one.
/// Fed one digest per frame in order (the first pass of deduplication), it yields the cell count, which the
/// PNG header needs before the first pixel row is written.
package struct FrameDeduper: Sendable {
    private var cellOfDigest: [CanvasDigest: Int] = [:]
    /// Cell index of each frame so far (4 bytes a frame: a 5-million-frame GIF's aliases take 20 MB), in
    /// chunks, so growing it never holds two copies (an array doubling from 4M to 8M slots would peak at 48 MB).
    package private(set) var cellOfFrame = ChunkedColumn<UInt32>()
    /// Frame that fills each cell (the first frame showing that canvas).
    package private(set) var sourceFrameOfCell: [Int] = []

    package init() {}

    /// Records the next frame; returns its cell.
    @discardableResult
    package mutating func add(_ digest: CanvasDigest) -> Int {
        let frame = cellOfFrame.count
        if let cell = cellOfDigest[digest] {
            cellOfFrame.append(UInt32(cell))
            return cell
        }
        let cell = sourceFrameOfCell.count
        cellOfDigest[digest] = cell
        sourceFrameOfCell.append(frame)
        cellOfFrame.append(UInt32(cell))
        return cell
    }

    package var cellCount: Int { sourceFrameOfCell.count }
    /// Frames that reuse an earlier cell.
    package var cellsSaved: Int { cellOfFrame.count - sourceFrameOfCell.count }
}
