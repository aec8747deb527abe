import Foundation
import GifxFrames
import GifFixtures
import Testing

/// Regressions found by the reliability work (issue 8), checked at the library level.
@Suite struct ReliabilityRegressionTests {
    /// `count` 1×1 frames with a GCE each whose one pixel (index 2) is beyond the 2-entry global table:
    /// one warning per frame (bytes written by hand: header, table, descriptor, 3-bit LZW clear/2/end).
    /// (A frame with no colour table at all is refused outright: DecoderGapTests.)
    static func outOfRangeFrames(_ count: Int) -> Data {
        var data = Data("GIF89a".utf8 + [1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 255, 255, 255])
        let frame: [UInt8] = [0x21, 0xF9, 0x04, 0x00, 0x02, 0x00, 0x00, 0x00]
            + [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0x02, 0x02, 0x54, 0x01, 0x00]
        for _ in 0..<count { data.append(contentsOf: frame) }
        data.append(0x3B)
        return data
    }

    /// Used to keep one line per frame in an array copied for every frame (quadratic: a million such
    /// frames did not finish in 2 minutes). Now 100 lines plus one summary, whatever the frame count.
    @Test func warningsPerDamagedFrameAreCapped() throws {
        let count = 5_000
        let path = try temporaryFile(Self.outOfRangeFrames(count))
        let stream = try FrameStream(path: path)
        var delivered = 0
        while try stream.nextCanvas({ $0.pixels.count }) != nil { delivered += 1 }
        #expect(delivered == count)
        let warnings = stream.warnings
        #expect(warnings.count == 101)
        #expect(warnings.first == "frame 0 uses colour indices beyond its palette; those pixels are left transparent")
        #expect(warnings[99].hasPrefix("frame 99 "))
        #expect(warnings.last == "\(count - 100) more warnings like these not shown")
    }

    /// A truncation warning is always kept, after the capped lines.
    @Test func truncationWarningSurvivesTheCap() throws {
        // 150 too-short GCEs (one warning each), one image, then the file ends inside a second image.
        var data = Data("GIF89a".utf8 + [1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 255, 255, 255])
        for _ in 0..<150 { data.append(contentsOf: [0x21, 0xF9, 0x02, 0x00, 0x00, 0x00]) }
        data.append(contentsOf: [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0x02, 0x02, 0x44, 0x01, 0x00])
        data.append(contentsOf: [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0x02, 0x02, 0x44])
        let metadata = try readAnimationMetadata(path: try temporaryFile(data))
        #expect(metadata.images.count == 2)
        #expect(metadata.warnings.count == 102)
        #expect(metadata.warnings[100] == "50 more warnings like these not shown")
        #expect(metadata.warnings.last?.contains("keeping the 2 images read before it") == true)
    }

    /// A million 1×1 frames are 4 MB decoded ("all frames" category) but were a million separate slots;
    /// the ring now holds at most `maxCanvases`.
    @Test func ringSlotsAreCappedWhateverTheFrameCount() {
        #expect(CacheCapacity.capacity(canvasBytes: 4, frameCount: 1_000_000) == CacheCapacity.maxCanvases)
        #expect(CacheCapacity.capacity(canvasBytes: 4, frameCount: 1_000_000, memoryBudget: 1 << 30) == CacheCapacity.maxCanvases)
        // The category still follows the whole animation's size: 600 frames of 64 KiB is 37.5 MiB → 5.
        #expect(CacheCapacity.capacity(canvasBytes: 64 << 10, frameCount: 600) == 5)
        #expect(CacheCapacity.capacity(canvasBytes: 4, frameCount: 300) == 300)
    }
}
