import GifxEncoders
import Testing
import GifxTimeline

@Suite struct SpriteLayoutTests {
    @Test func tenSquareCellsMakeTheMostSquareGrid() throws {
        // 3x4 (120x160) and 4x3 (160x120) are equally square and equally large: the wider one wins.
        let layout = try SpriteLayout(cellSize: CanvasSize(width: 40, height: 40), cellCount: 10)
        #expect(layout.columns == 4)
        #expect(layout.pageCount == 1)
        let page = layout.page(0)
        #expect((page.width, page.height, page.rows, page.columns) == (160, 120, 3, 4))
        #expect(layout.placement(ofCell: 9).rect == PixelRect(x: 40, y: 80, width: 40, height: 40))
    }

    @Test func wideCellsStackIntoASquareSheet() throws {
        // 12 cells of 40x10: 2 columns x 6 rows = 80x60 is closest to square.
        let layout = try SpriteLayout(cellSize: CanvasSize(width: 40, height: 10), cellCount: 12)
        #expect(layout.columns == 2)
        #expect((layout.page(0).width, layout.page(0).height) == (80, 60))
    }

    @Test func pagesAt64PixelsHoldOne40PixelCellEach() throws {
        let layout = try SpriteLayout(cellSize: CanvasSize(width: 40, height: 40), cellCount: 10, maxSize: 64)
        #expect(layout.pageCount == 10)
        for cell in 0..<10 {
            let placement = layout.placement(ofCell: cell)
            #expect(placement.page == cell)
            #expect(placement.rect == PixelRect(x: 0, y: 0, width: 40, height: 40))
            #expect((layout.page(cell).width, layout.page(cell).height) == (40, 40))
        }
    }

    @Test func benchmarkSizesPageAt4096() throws {
        let hd = try SpriteLayout(cellSize: CanvasSize(width: 1280, height: 720), cellCount: 250)
        #expect((hd.columns, hd.rowsPerPage, hd.pageCount) == (3, 5, 17))
        let last = hd.page(16)
        #expect((last.cellCount, last.rows, last.width, last.height) == (10, 4, 3840, 2880))

        let tiny = try SpriteLayout(cellSize: CanvasSize(width: 64, height: 64), cellCount: 5000)
        #expect((tiny.columns, tiny.rowsPerPage, tiny.pageCount) == (64, 64, 2))
        #expect((tiny.page(1).cellCount, tiny.page(1).height) == (904, 15 * 64))

        let clip = try SpriteLayout(cellSize: CanvasSize(width: 480, height: 270), cellCount: 200)
        #expect((clip.columns, clip.rowsPerPage, clip.pageCount) == (8, 15, 2))

        let uhd = try SpriteLayout(cellSize: CanvasSize(width: 3840, height: 2160), cellCount: 60)
        #expect((uhd.columns, uhd.rowsPerPage, uhd.pageCount) == (1, 1, 60))
    }

    @Test func paddingAndExtrudeGeometry() throws {
        // Slot 3+2=5 wide, 2+2=4 high; slots 2 px apart; rects are the frame's own pixels.
        let layout = try SpriteLayout(
            cellSize: CanvasSize(width: 3, height: 2), cellCount: 5, padding: 2, extrude: 1, columns: 3)
        let page = layout.page(0)
        #expect((page.width, page.height) == (3 * 5 + 2 * 2, 2 * 4 + 2))
        #expect(layout.placement(ofCell: 0).rect == PixelRect(x: 1, y: 1, width: 3, height: 2))
        #expect(layout.placement(ofCell: 2).rect == PixelRect(x: 15, y: 1, width: 3, height: 2))
        #expect(layout.placement(ofCell: 4).rect == PixelRect(x: 8, y: 7, width: 3, height: 2))
    }

    @Test func paddingCountsOnlyBetweenCellsAgainstMaxSize() throws {
        // Two 30 px cells with 4 px padding take exactly 64 px.
        let layout = try SpriteLayout(cellSize: CanvasSize(width: 30, height: 30), cellCount: 4, padding: 4, maxSize: 64)
        #expect((layout.columns, layout.rowsPerPage, layout.pageCount) == (2, 2, 1))
        #expect((layout.page(0).width, layout.page(0).height) == (64, 64))
    }

    @Test func aFrameWiderThanMaxSizeIsAUsageError() {
        #expect(throws: SpriteLayoutError.self) {
            try SpriteLayout(cellSize: CanvasSize(width: 65, height: 10), cellCount: 1, maxSize: 64)
        }
        // Extrusion makes the slot 66 wide.
        #expect(throws: SpriteLayoutError.self) {
            try SpriteLayout(cellSize: CanvasSize(width: 64, height: 10), cellCount: 1, extrude: 1, maxSize: 64)
        }
        do {
            _ = try SpriteLayout(cellSize: CanvasSize(width: 65, height: 10), cellCount: 1, maxSize: 64)
        } catch let error as SpriteLayoutError {
            #expect(error.failureClass == .usage)
            #expect(error == .frameTooLarge(width: 65, height: 10, extrude: 0, maxSize: 64))
            // The library names no flag (the CLI adds the remedy: ToSpriteCommandTests).
            #expect(!error.description.contains("--"))
            #expect(error.description.contains("at most 64 px"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func aRowOfCellsBeyondOneGibibyteIsRefused() throws {
        // 16384x16384 cells, 4 across a 65535 px sheet: one row would be 4 * 16384 * 16384 * 4 bytes = 4 GiB.
        #expect(throws: SpriteLayoutError.self) {
            try SpriteLayout(cellSize: CanvasSize(width: 16384, height: 16384), cellCount: 8, maxSize: 65535)
        }
        // One such cell per row is exactly 1 GiB: allowed.
        let layout = try SpriteLayout(
            cellSize: CanvasSize(width: 16384, height: 16384), cellCount: 2, maxSize: 65535, columns: 1)
        #expect(layout.columns == 1)
    }

    @Test func tooManyColumnsIsAUsageError() {
        #expect(throws: SpriteLayoutError.self) {
            try SpriteLayout(cellSize: CanvasSize(width: 20, height: 20), cellCount: 4, maxSize: 64, columns: 4)
        }
    }

    @Test func forcedColumnsPageByRows() throws {
        let layout = try SpriteLayout(cellSize: CanvasSize(width: 20, height: 20), cellCount: 10, maxSize: 64, columns: 2)
        #expect((layout.columns, layout.rowsPerPage, layout.pageCount) == (2, 3, 2))
        #expect(layout.page(1).cellCount == 4)
        #expect(layout.page(1).rows == 2)
    }

    @Test func pagePathsAreNumberedOnlyWhenPaged() {
        #expect(spritePagePaths("out/Y.png", pageCount: 1) == ["out/Y.png"])
        #expect(spritePagePaths("out/Y.png", pageCount: 3) == ["out/Y-0.png", "out/Y-1.png", "out/Y-2.png"])
    }
}
