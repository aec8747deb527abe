import GifxEncoders
import Foundation
import Testing
import GifxTimeline

@Suite struct MaxRectsTests {
    /// A fixed pseudo-random sequence (xorshift), so failures reproduce.
    struct Rng {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Int(state % UInt64(bound))
        }
    }

    /// Rects of random sizes: every placed rect lies inside the bin and no two overlap; a rect is refused
    /// only when the bin has no room left for it (checked by area and by a 1x1 still fitting).
    @Test(arguments: [1, 2, 3]) func placedRectsNeitherOverlapNorLeaveTheBin(seed: UInt64) {
        var rng = Rng(state: 0x9E37_79B9 &* seed)
        var bin = MaxRectsBin(width: 128, height: 96)
        var placed: [PixelRect] = []
        for _ in 0..<400 {
            let w = 1 + rng.next(24), h = 1 + rng.next(24)
            guard let spot = bin.insert(width: w, height: h) else { continue }
            placed.append(PixelRect(x: spot.x, y: spot.y, width: w, height: h))
        }
        #expect(placed.count > 20)
        var covered = [Bool](repeating: false, count: 128 * 96)
        for r in placed {
            #expect(r.x >= 0 && r.y >= 0 && r.x + r.width <= 128 && r.y + r.height <= 96)
            for y in r.y..<(r.y + r.height) {
                for x in r.x..<(r.x + r.width) {
                    #expect(!covered[y * 128 + x], "overlap at \(x),\(y)")
                    covered[y * 128 + x] = true
                }
            }
        }
        // Fill what is left with 1x1 rects: every free pixel is reachable, so the free list lost nothing.
        var ones = 0
        while bin.insert(width: 1, height: 1) != nil { ones += 1 }
        #expect(ones == covered.filter { !$0 }.count)
    }

    /// Equal squares tile a bin whose side is a multiple of theirs exactly.
    @Test func equalSquaresTileExactly() {
        var bin = MaxRectsBin(width: 40, height: 40)
        var spots = Set<[Int]>()
        for _ in 0..<16 {
            guard let s = bin.insert(width: 10, height: 10) else { Issue.record("refused"); return }
            spots.insert([s.x, s.y])
        }
        #expect(spots.count == 16 && spots.allSatisfy { $0[0] % 10 == 0 && $0[1] % 10 == 0 })
        #expect(bin.insert(width: 1, height: 1) == nil)
    }

    /// Best short side fit: a 10x3 rect goes where the leftover short side is smallest.
    @Test func bestShortSideFitPicksTheTightestSide() {
        var bin = MaxRectsBin(width: 20, height: 20)
        _ = bin.insert(width: 20, height: 16)  // leaves a 20x4 strip at the bottom
        let spot = bin.insert(width: 10, height: 3)
        #expect(spot?.y == 16)
    }

    /// PackedLayout with trim-sized cells: maxrects uses far less area than the grid of the largest cell.
    @Test func maxRectsPacksMixedSizesTighterThanTheGrid() throws {
        let sizes = (0..<60).map { PixelRect(x: 0, y: 0, width: 4 + ($0 * 7) % 29, height: 4 + ($0 * 11) % 23) }
        let packed = try PackedLayout(
            cellCount: sizes.count, source: { sizes[$0] }, packing: .maxrects, padding: 0, extrude: 0, maxSize: 4096,
            powerOfTwo: false, trimmed: true)
        let grid = try PackedLayout(
            cellCount: sizes.count, source: { sizes[$0] }, packing: .grid, padding: 0, extrude: 0, maxSize: 4096,
            powerOfTwo: false, trimmed: true)
        let area = { (l: PackedLayout) in (0..<l.pageCount).map { l.pageSize($0).width * l.pageSize($0).height }.reduce(0, +) }
        #expect(Double(area(packed)) < 0.8 * Double(area(grid)))
        let pot = try PackedLayout(
            cellCount: sizes.count, source: { sizes[$0] }, packing: .maxrects, padding: 2, extrude: 1, maxSize: 100,
            powerOfTwo: true, trimmed: true)
        for k in 0..<pot.pageCount {
            let s = pot.pageSize(k)
            #expect(s.width & (s.width - 1) == 0 && s.height & (s.height - 1) == 0 && s.width <= 64 && s.height <= 64)
        }
    }
}
