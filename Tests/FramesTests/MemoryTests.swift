import Foundation
import GifxFrames
import GifFixtures
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Peak memory does not grow with frame count: giflib's SavedImages trap and the bounded ring.
@Suite(.serialized) struct MemoryTests {
    @Test func metadataOf200kImagesReadsEveryImage() throws {
        let count = 200_000
        let frame = FixtureFrame(width: 1, height: 1, indices: [1], localPalette: [RGB(1, 2, 3), RGB(4, 5, 6)], delay: 3)
        let path = try temporaryFile(FixtureGIF.repeatingFrame(width: 1, height: 1, frame: frame, count: count))
        let metadata = try readAnimationMetadata(path: path)
        #expect(metadata.images.count == count)
        #expect(metadata.images.last?.localPaletteSize == 2)
        #expect(metadata.frames.last?.rawDelay == 3)
        // The memory bound is checked per process in CLITests (MetadataMemoryTests): this process runs
        // other suites in parallel, so its own peak RSS says nothing about this read.
    }

    @Test func twoThousandFullHDFramesDecodeThroughOneCanvas() throws {
        let (width, height, count) = (1920, 1080, 2000)
        // Each frame is a 1×1 rect, so the file is small, but every canvas is a full 1920×1080 copy.
        let frame = FixtureFrame(left: 7, top: 5, width: 1, height: 1, indices: [1], delay: 4)
        let path = try temporaryFile(FixtureGIF.repeatingFrame(width: width, height: height, frame: frame, count: count))
        let stream = try FrameStream(path: path)
        let canvasBytes = width * height * 4
        #expect(stream.capacity == 1)
        var delivered = 0
        while let pixel = try stream.nextCanvas({ canvas -> [UInt8] in
            let offset = (5 * width + 7) * 4
            return Array(canvas.pixels[offset..<(offset + 4)]) + Array(canvas.pixels[0..<4])
        }) {
            #expect(pixel == Pixel.red + Pixel.clear)
            delivered += 1
        }
        #expect(delivered == count)
        #expect(stream.peakCacheBytes == canvasBytes)  // one canvas, whatever the frame count
    }
}
