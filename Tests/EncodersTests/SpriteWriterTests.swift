import Foundation
import GifFixtures
import Testing
import GifxTimeline

@testable import GifxEncoders
@testable import GifxFrames

@Suite struct SpriteWriterTests {
    @Test func anIndexedSheetRefusesAColourOutsideItsPalette() throws {
        let folder = try spriteFolder()
        let url = folder.appendingPathComponent("p.gif")
        try FixtureGIF.solidFrames(width: 2, height: 1, colorIndices: [1], delays: [5]).write(to: url)
        let palette = try #require(SheetPalette.make(path: url.path, metadata: try readAnimationMetadata(path: url.path)))
        let layout = try SpriteLayout(cellSize: CanvasSize(width: 2, height: 1), cellCount: 2)
        let fd = open(folder.appendingPathComponent("s.png").path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        defer { close(fd) }
        let writer = SpriteSheetWriter(layout: layout, fileDescriptors: [fd], paths: ["s.png"], format: .indexed(palette))
        // Red and transparent are in the palette; (1, 2, 3) is not.
        let good: [UInt8] = [255, 0, 0, 255, 0, 0, 0, 0]
        let bad: [UInt8] = [255, 0, 0, 255, 1, 2, 3, 255]
        try good.withUnsafeBytes { try writer.addCell(copying: $0) }
        #expect(throws: PaletteMiss.self) { try bad.withUnsafeBytes { try writer.addCell(copying: $0) } }
    }

    @Test func digestsDifferOnAnyByteAndAgreeOnEqualBytes() {
        var a = [UInt8](repeating: 7, count: 4 * 37)
        let b = a
        let da = a.withUnsafeBytes { CanvasDigest($0) }
        #expect(da == b.withUnsafeBytes { CanvasDigest($0) })
        for position in [0, 31, 32, 100, a.count - 1] {
            a[position] ^= 1
            #expect(a.withUnsafeBytes { CanvasDigest($0) } != da, "byte \(position)")
            a[position] ^= 1
        }
        // Same bytes, different length.
        #expect(a.dropLast(4).withUnsafeBytes { CanvasDigest($0) } != da)
    }
}
