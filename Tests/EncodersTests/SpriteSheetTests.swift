import GifxEncoders
import Foundation
import GifxFrames
import GifFixtures
import GifxPipeline
import Testing
import GifxTimeline

@Suite struct SpriteSheetTests {
    /// Five solid 6x4 frames; delays raw 7, none, 0, 1, 20 resolve (flanimated, timeline.md) to 7, 7
    /// (carried), 10 (rounded up), 10 (rounded up), 20.
    @Test func cellsMatchTheCanvasesAndTheJSONDescribesThem() throws {
        let folder = try spriteFolder()
        let gif = FixtureGIF.solidFrames(
            width: 6, height: 4, colorIndices: [1, 2, 3, 4, 5], delays: [7, nil, 0, 1, 20], loopCounts: [3])
        let (result, json) = try runSprite(gif, in: folder)
        #expect(result.pagePaths == [folder.appendingPathComponent("Y.png").path])

        // 5 cells of 6x4: 2 columns x 3 rows = 12x12, the most square sheet.
        let sheet = try Sheet(folder.appendingPathComponent("Y.png").path)
        #expect((sheet.width, sheet.height) == (12, 12))
        let images = try #require(json["images"] as? [[String: Any]])
        #expect(images.count == 1)
        #expect(images[0]["name"] as? String == "Y.png")
        #expect(images[0]["width"] as? Int == 12)
        #expect(images[0]["height"] as? Int == 12)

        let rects = try checkContentsRects(json)
        let frames = try yyFrames(json)
        #expect(frames.map { $0["index"] as? Int } == [0, 1, 2, 3, 4])
        #expect(frames.map { $0["page"] as? Int } == [0, 0, 0, 0, 0])
        #expect(frames.map { $0["duration"] as? Double } == [0.07, 0.07, 0.1, 0.1, 0.2])
        #expect(frames.map { $0["delay"] as? Int } == [7, 7, 10, 10, 20])
        #expect(rects == [
            JSONRect(x: 0, y: 0, width: 6, height: 4), JSONRect(x: 6, y: 0, width: 6, height: 4),
            JSONRect(x: 0, y: 4, width: 6, height: 4), JSONRect(x: 6, y: 4, width: 6, height: 4),
            JSONRect(x: 0, y: 8, width: 6, height: 4),
        ])
        for (rect, colour) in zip(rects, [1, 2, 3, 4, 5]) {
            #expect(sheet.crop(x: rect.x, y: rect.y, width: 6, height: 4) == filled(rgba(colour), 6, 4))
        }
        // The unused sixth slot is transparent.
        #expect(sheet.crop(x: 6, y: 8, width: 6, height: 4) == filled(clearPixel, 6, 4))
        #expect(json["loopCount"] as? Int == 3)
        #expect(json["plays"] as? Int == 3)
        #expect(json["duration"] as? Double == 0.54)
        #expect(json["schema"] as? String == "gifx.sprite/1")
    }

    @Test func transparencyIsKeptAndPlaysNullMeansForever() throws {
        // Frame 0 draws red on the 2x2 centre of a 4x4 canvas; frame 1 draws blue on the top-left pixel
        // (disposal none). Everything never drawn stays (0,0,0,0).
        let folder = try spriteFolder()
        let gif = FixtureGIF(width: 4, height: 4, loopCounts: [0], frames: [
            .solid(1, left: 1, top: 1, width: 2, height: 2, delay: 5),
            .solid(3, left: 0, top: 0, width: 1, height: 1, delay: 6),
        ])
        let (_, json) = try runSprite(gif, in: folder, settings: RunSettings(policy: .browser))
        var first = filled(clearPixel, 4, 4)
        for (x, y) in [(1, 1), (2, 1), (1, 2), (2, 2)] { first.replaceSubrange((y * 4 + x) * 4..<(y * 4 + x) * 4 + 4, with: rgba(1)) }
        var second = first
        second.replaceSubrange(0..<4, with: rgba(3))
        let sheet = try Sheet(folder.appendingPathComponent("Y.png").path)
        let rects = try checkContentsRects(json)
        #expect(sheet.crop(x: rects[0].x, y: rects[0].y, width: 4, height: 4) == first)
        #expect(sheet.crop(x: rects[1].x, y: rects[1].y, width: 4, height: 4) == second)
        #expect(json["loopCount"] as? Int == 0)
        #expect(json.keys.contains("plays") && json["plays"] is NSNull)
        #expect(json["policy"] as? String == "browser")
    }

    @Test func tenFramesOf40PixelsPageAt64() throws {
        let folder = try spriteFolder()
        let colours: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 0, 1, 2]
        let gif = FixtureGIF.solidFrames(width: 40, height: 40, colorIndices: colours, delays: Array(repeating: 4, count: 10))
        let (result, json) = try runSprite(gif, in: folder) { $0.maxSize = 64 }
        #expect(result.pagePaths.count == 10)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("Y.png").path))
        let images = try #require(json["images"] as? [[String: Any]])
        #expect(images.map { $0["name"] as? String } == (0..<10).map { "Y-\($0).png" })
        let frames = try yyFrames(json)
        #expect(frames.map { $0["page"] as? Int } == Array(0..<10))
        let rects = try checkContentsRects(json)
        for (page, colour) in colours.enumerated() {
            let sheet = try Sheet(folder.appendingPathComponent("Y-\(page).png").path)
            #expect((sheet.width, sheet.height) == (40, 40))
            #expect(rects[page] == JSONRect(x: 0, y: 0, width: 40, height: 40))
            #expect(sheet.pixels == filled(rgba(Int(colour)), 40, 40))
        }
    }

    @Test func dedupeSharesCellsOfIdenticalCanvases() throws {
        let folder = try spriteFolder()
        let gif = FixtureGIF.solidFrames(
            width: 4, height: 4, colorIndices: [1, 2, 1, 3, 2, 1], delays: [1, 2, 3, 4, 5, 6])
        let (result, json) = try runSprite(gif, in: folder) { $0.dedupe = true }
        #expect(result.cells == 3)
        #expect(result.cellsSaved == 3)
        #expect(json["cellsSaved"] as? Int == 3)
        let rects = try checkContentsRects(json)
        #expect(rects[0] == rects[2] && rects[0] == rects[5])
        #expect(rects[1] == rects[4])
        #expect(Set([rects[0].x * 100 + rects[0].y, rects[1].x * 100 + rects[1].y, rects[3].x * 100 + rects[3].y]).count == 3)
        // Three cells of 4x4: 2 columns x 2 rows.
        let sheet = try Sheet(folder.appendingPathComponent("Y.png").path)
        #expect((sheet.width, sheet.height) == (8, 8))
        for (frame, colour) in [1, 2, 1, 3, 2, 1].enumerated() {
            let r = rects[frame]
            #expect(sheet.crop(x: r.x, y: r.y, width: 4, height: 4) == filled(rgba(colour), 4, 4))
        }
        // Durations stay per frame (1 cs is rounded up to 10).
        #expect(try yyFrames(json).map { $0["delay"] as? Int } == [10, 2, 3, 4, 5, 6])
    }

    @Test func oneFrameGIF() throws {
        let folder = try spriteFolder()
        let gif = FixtureGIF.solidFrames(width: 5, height: 3, colorIndices: [6], delays: [nil], loopCounts: [])
        let (result, json) = try runSprite(gif, in: folder)
        #expect(result.pageSizes == [CanvasSize(width: 5, height: 3)])
        let sheet = try Sheet(folder.appendingPathComponent("Y.png").path)
        #expect(sheet.pixels == filled(rgba(6), 5, 3))
        #expect(try checkContentsRects(json) == [JSONRect(x: 0, y: 0, width: 5, height: 3)])
        #expect(try yyFrames(json).first?["duration"] as? Double == 0.1)  // no GCE, nothing to carry: 10 cs
        #expect(json["loopCount"] is NSNull)
        #expect(json["plays"] is NSNull)  // flanimated: no loop extension = forever
    }

    @Test func oneByOneGIF() throws {
        let folder = try spriteFolder()
        let gif = FixtureGIF.solidFrames(width: 1, height: 1, colorIndices: [1, 2, 3], delays: [3, 3, 3])
        let (_, json) = try runSprite(gif, in: folder)
        // 3 cells of 1x1: 2 columns x 2 rows (2x2) beats 3x1 and 1x3.
        let sheet = try Sheet(folder.appendingPathComponent("Y.png").path)
        #expect((sheet.width, sheet.height) == (2, 2))
        let rects = try checkContentsRects(json)
        for (rect, colour) in zip(rects, [1, 2, 3]) { #expect(sheet.pixel(rect.x, rect.y) == rgba(colour)) }
        #expect(sheet.pixel(1, 1) == clearPixel)
    }

    @Test func paddingIsTransparentAndExtrusionRepeatsEdges() throws {
        // 3x2 frames with six different colours, so each edge is distinguishable.
        let folder = try spriteFolder()
        let indices: [[UInt8]] = [[1, 2, 3, 4, 5, 6], [7, 1, 2, 3, 4, 5]]
        let gif = FixtureGIF(width: 3, height: 2, frames: indices.map {
            FixtureFrame(width: 3, height: 2, indices: $0, delay: 10)
        })
        let (_, json) = try runSprite(gif, in: folder) {
            $0.padding = 2; $0.extrude = 1; $0.columns = 2
        }
        // Slots are 5x4, 2 px apart: sheet 12x4.
        let sheet = try Sheet(folder.appendingPathComponent("Y.png").path)
        #expect((sheet.width, sheet.height) == (12, 4))
        let rects = try checkContentsRects(json)
        #expect(rects == [JSONRect(x: 1, y: 1, width: 3, height: 2), JSONRect(x: 8, y: 1, width: 3, height: 2)])
        for (frame, slotX) in [(0, 0), (1, 7)] {
            let i = indices[frame].map(Int.init)
            let top = [i[0], i[0], i[1], i[2], i[2]], bottom = [i[3], i[3], i[4], i[5], i[5]]
            for (y, row) in [top, top, bottom, bottom].enumerated() {
                for (x, colour) in row.enumerated() {
                    #expect(sheet.pixel(slotX + x, y) == rgba(colour), "frame \(frame) slot pixel \(x),\(y)")
                }
            }
        }
        for y in 0..<4 { for x in 5..<7 { #expect(sheet.pixel(x, y) == clearPixel) } }
    }

    @Test func scalingHalvesExactlyOnSolidAreasAndKeepsTransparency() throws {
        // 8x8 canvas: left half red, right half never drawn (transparent). At 0.5 each output pixel
        // averages a 2x2 block that is uniform, so the area filter must give exact colours.
        let folder = try spriteFolder()
        let gif = FixtureGIF(width: 8, height: 8, frames: [
            .solid(1, left: 0, top: 0, width: 4, height: 8, delay: 10),
            .solid(2, left: 0, top: 0, width: 8, height: 8, delay: 10),
        ])
        let (result, json) = try runSprite(gif, in: folder) { $0.size = .scale(0.5) }
        #expect(result.cellSize == CanvasSize(width: 4, height: 4))
        let sheet = try Sheet(folder.appendingPathComponent("Y.png").path)
        let rects = try checkContentsRects(json)
        var half = [UInt8]()
        for _ in 0..<4 { half += filled(rgba(1), 2, 1) + filled(clearPixel, 2, 1) }
        #expect(sheet.crop(x: rects[0].x, y: rects[0].y, width: 4, height: 4) == half)
        #expect(sheet.crop(x: rects[1].x, y: rects[1].y, width: 4, height: 4) == filled(rgba(2), 4, 4))
        let frameSize = try #require(json["frameSize"] as? [String: Any])
        #expect(frameSize["width"] as? Int == 4)
        let sourceSize = try #require(json["sourceSize"] as? [String: Any])
        #expect(sourceSize["width"] as? Int == 8)
    }

    @Test func aGIFWiderThanMaxSizeFailsBeforeWritingAnything() throws {
        let folder = try spriteFolder()
        let gif = FixtureGIF.solidFrames(width: 100, height: 10, colorIndices: [1, 2], delays: [5, 5])
        #expect {
            _ = try runSprite(gif, in: folder) { $0.maxSize = 64 }
        } throws: { error in
            (error as? SpriteLayoutError)?.failureClass == .usage && "\(error)".contains("100x10")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["in.gif"])
    }

    @Test func existingOutputIsKeptWithoutOverwrite() throws {
        let folder = try spriteFolder()
        let png = folder.appendingPathComponent("Y.png")
        try Data("keep".utf8).write(to: png)
        let gif = FixtureGIF.solidFrames(width: 4, height: 4, colorIndices: [1, 2], delays: [5, 5])
        #expect {
            _ = try runSprite(gif, in: folder)
        } throws: { error in
            (error as? OutputError)?.failureClass == .cannotCreateOutput
        }
        #expect(try Data(contentsOf: png) == Data("keep".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["Y.png", "in.gif"])
        // With overwrite both files are (re)written.
        let (_, json) = try runSprite(gif, in: folder, settings: RunSettings(overwrite: true))
        #expect(try yyFrames(json).count == 2)
        #expect(try Sheet(png.path).width == 8)
    }

    @Test func existingJSONIsKeptWithoutOverwrite() throws {
        let folder = try spriteFolder()
        let jsonURL = folder.appendingPathComponent("Y.json")
        try Data("{}".utf8).write(to: jsonURL)
        let gif = FixtureGIF.solidFrames(width: 4, height: 4, colorIndices: [1], delays: [5])
        #expect(throws: OutputError.self) { _ = try runSprite(gif, in: folder) }
        #expect(try Data(contentsOf: jsonURL) == Data("{}".utf8))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("Y.png").path))
    }
}

@Suite struct SpritePixelFormatTests {
    /// PNG colour type from the IHDR chunk (byte 25): 3 indexed, 6 RGBA.
    private func colourType(_ path: String) throws -> UInt8 {
        try Data(contentsOf: URL(fileURLWithPath: path))[25]
    }

    @Test func fewColoursGiveAnIndexedSheet() throws {
        let folder = try spriteFolder()
        let gif = FixtureGIF.solidFrames(width: 3, height: 3, colorIndices: [0, 7], delays: [5, 5])
        let (result, _) = try runSprite(gif, in: folder)
        #expect(result.indexed)
        #expect(try colourType(result.pagePaths[0]) == 3)
    }

    @Test func paletteColoursBeyond255ButFewOnTheSheetStillGiveAnIndexedSheet() throws {
        // Two frames with 256-colour local palettes that share no colour: 512 colours listed, but the
        // sheet shows 5 (the pre-pass counts them): indexed, with the same pixels.
        let folder = try spriteFolder()
        let paletteA = (0..<256).map { RGB(UInt8($0), 0, 1) }
        let paletteB = (0..<256).map { RGB(UInt8($0), 1, 0) }
        let gif = FixtureGIF(width: 4, height: 1, globalPalette: nil, frames: [
            FixtureFrame(width: 4, height: 1, indices: [0, 100, 200, 255], localPalette: paletteA, delay: 5),
            FixtureFrame(width: 4, height: 1, indices: [9, 9, 9, 7], localPalette: paletteB, delay: 5, transparentIndex: 9),
        ])
        let (result, json) = try runSprite(gif, in: folder)
        #expect(result.indexed)
        #expect(try colourType(result.pagePaths[0]) == 3)
        let sheet = try Sheet(result.pagePaths[0])
        let rects = try checkContentsRects(json)
        let first: [UInt8] = [0, 0, 1, 255, 100, 0, 1, 255, 200, 0, 1, 255, 255, 0, 1, 255]
        #expect(sheet.crop(x: rects[0].x, y: rects[0].y, width: 4, height: 1) == first)
        // Index 9 is transparent in frame 1: the first three pixels keep frame 0's colours.
        #expect(sheet.crop(x: rects[1].x, y: rects[1].y, width: 4, height: 1) == Array(first[0..<12]) + [7, 1, 0, 255])
    }

    @Test func paletteMapsExactlyAndRejectsOtherColours() throws {
        let folder = try spriteFolder()
        let url = folder.appendingPathComponent("p.gif")
        try FixtureGIF.solidFrames(width: 1, height: 1, colorIndices: [0], delays: [5]).write(to: url)
        let metadata = try readAnimationMetadata(path: url.path)
        let palette = try #require(SheetPalette.make(path: url.path, metadata: metadata))
        #expect(palette.entries.count == 9)  // transparent + 8 primaries
        #expect(palette.entries[0] == 0)
    }
}
