import Foundation
import GifxFrames
import GifFixtures
import Testing
import GifxTimeline

@Suite struct MetadataTests {
    @Test func readsCanvasFramesAndControlFields() throws {
        let gif = FixtureGIF(
            width: 7, height: 5, backgroundIndex: 3, loopCounts: [],
            frames: [
                .solid(1, width: 7, height: 5, delay: 25, disposal: 2, transparentIndex: 4),
                FixtureFrame(
                    left: 2, top: 1, width: 3, height: 2, indices: [0, 1, 2, 3, 4, 5],
                    localPalette: [RGB(1, 2, 3), RGB(4, 5, 6), RGB(7, 8, 9)], delay: nil, interlaced: true),
                .solid(2, left: 1, top: 1, width: 2, height: 2, delay: 0, disposal: 6),
            ])
        let metadata = try readAnimationMetadata(path: temporaryGIF(gif))
        #expect(metadata.canvas == CanvasSize(width: 7, height: 5))
        #expect(metadata.backgroundIndex == 3)
        #expect(metadata.globalPaletteSize == 8)
        #expect(metadata.loopCount == nil)
        #expect(metadata.warnings.isEmpty)
        #expect(metadata.images.count == 3)
        #expect(
            metadata.frames[0]
                == FrameDescriptor(
                    rawDelay: 25, rect: PixelRect(x: 0, y: 0, width: 7, height: 5), disposal: .background,
                    transparentIndex: 4, interlaced: false))
        #expect(
            metadata.frames[1]
                == FrameDescriptor(
                    rawDelay: nil, rect: PixelRect(x: 2, y: 1, width: 3, height: 2), disposal: .none,
                    transparentIndex: nil, interlaced: true))
        #expect(metadata.frames[2].disposal == .previous)  // raw 6 acts as restore-previous
        #expect(metadata.frames[2].rawDelay == 0)
        #expect(metadata.images[0].localPaletteSize == nil)
        #expect(metadata.images[1].localPaletteSize == 4)  // 3 colours round up to a 4-entry table
        #expect(metadata.timelineInput.frames == metadata.frames)
    }

    @Test(arguments: [
        ([Int](), "NETSCAPE2.0", Int?.none), ([0], "NETSCAPE2.0", 0), ([1], "NETSCAPE2.0", 1),
        ([65535], "NETSCAPE2.0", 65535), ([3, 7], "NETSCAPE2.0", 3), ([5], "ANIMEXTS1.0", 5),
    ])
    func loopCount(counts: [Int], name: String, expected: Int?) throws {
        let gif = FixtureGIF(
            width: 2, height: 2, loopCounts: counts, loopExtensionName: name,
            frames: [.solid(1, width: 2, height: 2)])
        #expect(try readAnimationMetadata(path: temporaryGIF(gif)).loopCount == expected)
    }

    @Test func lastControlExtensionBeforeAnImageApplies() throws {
        // Two GCEs before one image: splice a second GCE (delay 77, disposal 1) after the first.
        var data = try FixtureGIF(width: 1, height: 1, loopCounts: [], frames: [.solid(1, width: 1, height: 1, delay: 5)])
            .encode()
        let gce = try #require(data.firstRange(of: Data([0x21, 0xF9, 0x04])))
        data.insert(contentsOf: [0x21, 0xF9, 0x04, 0x04, 77, 0, 0, 0], at: gce.lowerBound + 8)
        let metadata = try readAnimationMetadata(path: temporaryFile(data))
        #expect(metadata.frames.map(\.rawDelay) == [77])
        #expect(metadata.frames[0].disposal == .keep)
    }

    @Test func truncatedFileKeepsFramesReadAndWarns() throws {
        let gif = FixtureGIF.solidFrames(width: 4, height: 4, colorIndices: [1, 2, 3], delays: [10, 20, 30])
        let data = try gif.encode()
        let third = try #require(lastImageSeparator(in: data))
        let cut = data.prefix(third + 4)  // ends inside the third image descriptor
        let metadata = try readAnimationMetadata(path: temporaryFile(Data(cut)))
        #expect(metadata.frames.map(\.rawDelay) == [10, 20])
        #expect(metadata.isTruncated)
        #expect(metadata.warnings.count == 1)
        #expect(metadata.warnings.first?.contains("at byte \(third + 4)") == true)

        let strict = #expect(throws: GifDecodeError.self) {
            try readAnimationMetadata(path: temporaryFile(Data(cut)), limits: DecodeLimits(strict: true))
        }
        #expect(strict?.kind == .truncated)
        #expect(strict?.failureClass == .malformedData)
        #expect(strict?.description == "truncated GIF at byte \(third + 4): data ends while reading an image descriptor")
    }

    @Test func errorsAreClassifiedForExitCodes() throws {
        let missing = #expect(throws: GifDecodeError.self) { try readAnimationMetadata(path: "/nonexistent/x.gif") }
        #expect(missing?.failureClass == .cannotOpenInput)
        let directory = #expect(throws: GifDecodeError.self) { try readAnimationMetadata(path: "/tmp") }
        #expect(directory?.failureClass == .cannotOpenInput)
        let notGIF = #expect(throws: GifDecodeError.self) {
            try readAnimationMetadata(path: temporaryFile(Data("PNG is not GIF at all".utf8)))
        }
        #expect(notGIF?.failureClass == .malformedData)
        #expect(notGIF?.description.hasPrefix("malformed GIF at byte") == true)
        let noImage = #expect(throws: GifDecodeError.self) {
            try readAnimationMetadata(path: temporaryGIF(FixtureGIF(width: 2, height: 2, frames: [])))
        }
        #expect(noImage?.failureClass == .malformedData)
        #expect(noImage?.reason == "the file contains no image")
    }

    @Test func refusesOversizedCanvasAndFrameBeforeAllocating() throws {
        // Canvas 20000×10: the header says so; no pixels are ever allocated.
        let wide = FixtureGIF(width: 20000, height: 10, frames: [.solid(1, width: 1, height: 1)])
        let canvas = #expect(throws: GifDecodeError.self) { try readAnimationMetadata(path: temporaryGIF(wide)) }
        #expect(canvas?.kind == .tooLarge)
        #expect(canvas?.description == "GIF too large at byte 6: canvas 20000×10 exceeds the 16384×16384 limit")

        let bytes = #expect(throws: GifDecodeError.self) {
            try readAnimationMetadata(
                path: temporaryGIF(FixtureGIF(width: 100, height: 100, frames: [.solid(1, width: 1, height: 1)])),
                limits: DecodeLimits(maxCanvasBytes: 39_999))
        }
        #expect(bytes?.kind == .tooLarge)

        // A frame descriptor claiming 17000×1 on a small canvas: patch the width field of a 1×1 image.
        var data = try FixtureGIF(width: 4, height: 4, frames: [.solid(1, width: 1, height: 1)]).encode()
        let separator = try #require(lastImageSeparator(in: data))
        data[separator + 5] = UInt8(17000 & 0xff)
        data[separator + 6] = UInt8(17000 >> 8)
        let frame = #expect(throws: GifDecodeError.self) { try readAnimationMetadata(path: temporaryFile(data)) }
        #expect(frame?.kind == .tooLarge)
        #expect(frame?.reason.hasPrefix("frame 0 17000×1") == true)
    }

    @Test func emptyCanvasIsMalformed() throws {
        var data = try FixtureGIF(width: 1, height: 1, frames: [.solid(1, width: 1, height: 1)]).encode()
        data[6] = 0  // width 0
        let error = #expect(throws: GifDecodeError.self) { try readAnimationMetadata(path: temporaryFile(data)) }
        #expect(error?.kind == .malformed)
    }
}

/// Offset of the last image separator: the 0x2C right after a GCE's terminator or the previous image data.
/// Fixture files from `FixtureGIF` always put a GCE (8 bytes, ends in 0x00) right before each image.
func lastImageSeparator(in data: Data) -> Int? {
    var found: Int?
    var index = data.startIndex
    while let range = data[index...].firstRange(of: Data([0x21, 0xF9, 0x04])) {
        let separator = range.lowerBound + 8
        if separator < data.endIndex, data[separator] == 0x2C { found = separator - data.startIndex }
        index = range.upperBound
    }
    return found
}
