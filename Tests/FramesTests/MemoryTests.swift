import Foundation
import Frames
import GifFixtures
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Peak memory does not grow with frame count: giflib's SavedImages trap and the bounded ring.
@Suite(.serialized) struct MemoryTests {
    /// A GIF whose one frame (GCE + image, with a 2-entry local palette) is repeated `count` times.
    static func repeatedFrameGIF(width: Int, height: Int, frame: FixtureFrame, count: Int) throws -> Data {
        let single = try FixtureGIF(width: width, height: height, loopCounts: [], frames: [frame]).encode()
        let start = try #require(single.firstRange(of: Data([0x21, 0xF9, 0x04]))).lowerBound
        let header = single[..<start]
        let body = single[start..<(single.endIndex - 1)]  // up to the trailer
        var data = Data(capacity: header.count + body.count * count + 1)
        data.append(header)
        for _ in 0..<count { data.append(body) }
        data.append(0x3B)
        return data
    }

    static func peakResidentBytes() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss * 1024  // kilobytes on Linux
    }

    @Test func metadataOf200kImagesStaysSmall() throws {
        let count = 200_000
        let frame = FixtureFrame(width: 1, height: 1, indices: [1], localPalette: [RGB(1, 2, 3), RGB(4, 5, 6)], delay: 3)
        let path = try temporaryFile(Self.repeatedFrameGIF(width: 1, height: 1, frame: frame, count: count))
        let before = Self.peakResidentBytes()
        let metadata = try readGifMetadata(path: path)
        let growth = Self.peakResidentBytes() - before
        #expect(metadata.images.count == count)
        #expect(metadata.images.last?.localPaletteSize == 2)
        #expect(metadata.frames.last?.rawDelay == 3)
        // Our own per-image record is ~100 bytes; giflib's SavedImages kept per image (plus palette copies
        // and the ImageCount overrun) would crash or add well over this.
        #expect(growth < 96 << 20, "peak RSS grew by \(growth) bytes")
        print("metadata of \(count) images: peak RSS +\(growth / 1024) KiB")
    }

    @Test func twoThousandFullHDFramesDecodeThroughOneCanvas() throws {
        let (width, height, count) = (1920, 1080, 2000)
        // Each frame is a 1×1 rect, so the file is small, but every canvas is a full 1920×1080 copy.
        let frame = FixtureFrame(left: 7, top: 5, width: 1, height: 1, indices: [1], delay: 4)
        let path = try temporaryFile(Self.repeatedFrameGIF(width: width, height: height, frame: frame, count: count))
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
