import Foundation
import GifxFrames
import GifFixtures
import Testing

/// Each browser compositing rule on tiny fixtures whose expected canvases are written out by hand.
/// Palette `FixtureGIF.primaries`: 0 black, 1 red, 2 green, 3 blue, 4 yellow, 5 magenta, 6 cyan, 7 white.
@Suite struct CompositingTests {
    typealias P = Pixel

    private func canvases(_ frames: [FixtureFrame], width: Int, height: Int) throws -> [[UInt8]] {
        let result = try decodeAllCanvases(temporaryGIF(FixtureGIF(width: width, height: height, frames: frames)))
        #expect(result.warnings.isEmpty)
        return result.canvases
    }

    @Test func disposalNoneAndKeepLeaveTheFrame() throws {
        let result = try canvases(
            [
                .solid(1, width: 3, height: 1, disposal: 0),
                .solid(2, left: 1, width: 1, height: 1, disposal: 1),
                .solid(3, left: 2, width: 1, height: 1),
            ], width: 3, height: 1)
        #expect(result == [canvas(P.red, P.red, P.red), canvas(P.red, P.green, P.red), canvas(P.red, P.green, P.blue)])
    }

    @Test func restoreToBackgroundClearsTheRectToTransparent() throws {
        let result = try canvases(
            [
                .solid(1, width: 3, height: 1),
                .solid(2, left: 1, width: 1, height: 1, disposal: 2),
                .solid(3, left: 2, width: 1, height: 1),
            ], width: 3, height: 1)
        #expect(result == [canvas(P.red, P.red, P.red), canvas(P.red, P.green, P.red), canvas(P.red, P.clear, P.blue)])
    }

    @Test(arguments: [3, 4, 5, 6, 7])
    func restorePreviousPutsBackTheEarlierPixels(rawDisposal: Int) throws {
        let result = try canvases(
            [
                .solid(1, width: 3, height: 1),
                .solid(2, width: 2, height: 1, disposal: rawDisposal),
                .solid(3, left: 2, width: 1, height: 1),
            ], width: 3, height: 1)
        #expect(result == [canvas(P.red, P.red, P.red), canvas(P.green, P.green, P.red), canvas(P.red, P.red, P.blue)])
    }

    @Test func firstFrameRestorePreviousRestoresTheBlankCanvas() throws {
        let result = try canvases(
            [.solid(1, width: 2, height: 1, disposal: 3), .solid(2, left: 1, width: 1, height: 1)],
            width: 2, height: 1)
        #expect(result == [canvas(P.red, P.red), canvas(P.clear, P.green)])
    }

    @Test func transparentIndexLeavesPixelsUnderneath() throws {
        let result = try canvases(
            [
                .solid(1, width: 3, height: 1),
                FixtureFrame(width: 3, height: 1, indices: [0, 2, 0], transparentIndex: 0),
            ], width: 3, height: 1)
        #expect(result[1] == canvas(P.red, P.green, P.red))
    }

    @Test func neverDrawnPixelsAreTransparent() throws {
        let result = try canvases([.solid(4, left: 1, top: 1, width: 1, height: 1)], width: 2, height: 2)
        #expect(result == [canvas(P.clear, P.clear, P.clear, P.yellow)])
    }

    @Test func framesAreClippedToTheCanvas() throws {
        let result = try canvases(
            [
                // Overhangs right and bottom: only its top-left pixel (index 5) lands, at (2, 1).
                FixtureFrame(left: 2, top: 1, width: 2, height: 2, indices: [5, 6, 6, 6], disposal: 2),
                // Wholly outside.
                .solid(7, left: 10, top: 10, width: 2, height: 2),
                // Overhangs left and top would need negative offsets, which GIF cannot express; wide instead.
                FixtureFrame(width: 5, height: 1, indices: [1, 2, 3, 4, 5]),
            ], width: 3, height: 2)
        #expect(result[0] == canvas(P.clear, P.clear, P.clear, P.clear, P.clear, P.magenta))
        #expect(result[1] == canvas(P.clear, P.clear, P.clear, P.clear, P.clear, P.clear))
        #expect(result[2] == canvas(P.red, P.green, P.blue, P.clear, P.clear, P.clear))
    }

    @Test func interlacedRowsLandInTheirPlaces() throws {
        // Row y has colour index y % 8: a wrong pass mapping puts a wrong colour in some row.
        let height = 11
        let frame = FixtureFrame(
            width: 1, height: height, indices: (0..<height).map { UInt8($0 % 8) }, interlaced: true)
        let result = try canvases([frame], width: 1, height: height)
        let expected = canvas(P.black, P.red, P.green, P.blue, P.yellow, P.magenta, P.cyan, P.white, P.black, P.red, P.green)
        #expect(result == [expected])
    }

    @Test func localPaletteReplacesTheGlobalOneForItsFrame() throws {
        let result = try canvases(
            [
                FixtureFrame(width: 2, height: 1, indices: [1, 0], localPalette: [RGB(10, 20, 30), RGB(40, 50, 60)]),
                FixtureFrame(left: 1, width: 1, height: 1, indices: [1]),
            ], width: 2, height: 1)
        #expect(result == [canvas([40, 50, 60, 255], [10, 20, 30, 255]), canvas([40, 50, 60, 255], P.red)])
    }

    @Test func outOfRangeIndicesAreTransparentWithAWarningAndAnErrorWhenStrict() throws {
        let gif = FixtureGIF(
            width: 3, height: 1, globalPalette: [RGB(9, 9, 9), RGB(200, 100, 50)],
            frames: [FixtureFrame(width: 3, height: 1, indices: [1, 3, 0])])
        let path = try temporaryGIF(gif)
        let result = try decodeAllCanvases(path)
        #expect(result.canvases == [canvas([200, 100, 50, 255], P.clear, [9, 9, 9, 255])])
        #expect(result.warnings.count == 1)
        #expect(throws: GifDecodeError.self) { try decodeAllCanvases(path, limits: DecodeLimits(strict: true)) }
    }

    @Test func truncatedImageDataKeepsDecodedRowsAndWarns() throws {
        // A red 4×256 frame, then a 4×256 frame of scrambled indices 1...7 (poorly compressible, so its
        // data spans several 255-byte sub-blocks); the file is cut inside the second sub-block.
        var indices: [UInt8] = [1, 2, 3, 4]
        var seed: UInt32 = 12345
        while indices.count < 4 * 256 {
            seed = seed &* 1_103_515_245 &+ 12345
            indices.append(UInt8((seed >> 16) % 7) + 1)
        }
        let gif = FixtureGIF(
            width: 4, height: 256,
            frames: [.solid(1, width: 4, height: 256), FixtureFrame(width: 4, height: 256, indices: indices)])
        let data = try gif.encode()
        let separator = try #require(lastImageSeparator(in: data))
        let path = try temporaryFile(data.prefix(separator + 10 + 1 + 256 + 20))
        let result = try decodeAllCanvases(path)
        #expect(result.canvases.count == 2)
        // Row 0 of frame 1 decoded (indices 1, 2, 3, 4); the last row was never reached and is still red.
        #expect(Array(result.canvases[1][0..<16]) == canvas(P.red, P.green, P.blue, P.yellow))
        #expect(Array(result.canvases[1][(255 * 16)...]) == canvas(P.red, P.red, P.red, P.red))
        #expect(result.warnings.count == 2)  // metadata: data ends; decoder: rows missing
        #expect(throws: GifDecodeError.self) { try decodeAllCanvases(path, limits: DecodeLimits(strict: true)) }
    }

    @Test func streamDeliversTheSameCanvasesAsTheDecoder() throws {
        let frames: [FixtureFrame] = (0..<12).map { .solid(UInt8($0 % 8), left: $0 % 3, width: 2, height: 2, disposal: $0 % 4) }
        let path = try temporaryGIF(FixtureGIF(width: 4, height: 2, frames: frames))
        let direct = try decodeAllCanvases(path).canvases
        for budget in [nil, 32, 64, 1 << 20] {
            let stream = try FrameStream(path: path, memoryBudget: budget)
            #expect(try collectCanvases(stream) == direct)
            #expect(try stream.nextCanvas { _ in 0 } == nil)
        }
    }
}
