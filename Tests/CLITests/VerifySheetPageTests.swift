import Foundation
import GifFixtures
import Testing

/// Issue 38: `gifx verify in.gif sheet.png sheet.json` checks the PNG as the page its description names (the
/// frames cut from it), not as a poster; a page given alone fails as a poster with a one-line hint. Expected values
/// come from the fixture's construction (8 frames of distinct colours, 4 cells to a page at --max-size 20).
@Suite struct VerifySheetPageTests {
    /// 8 frames, 10x8, each its own colour: at --max-size 20, a 2x2 grid per page, so pages -0 and -1 of 4 frames.
    static let gif = FixtureGIF.solidFrames(
        width: 10, height: 8, colorIndices: [1, 2, 3, 4, 5, 6, 7, 1], delays: [10, 20, 30, 40, 50, 60, 70, 80])

    struct Sheet {
        var folder: URL
        var input: String
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
    }

    static func makeSheet() throws -> Sheet {
        let folder = try temporaryFolder()
        let input = try writeGIF(gif, to: folder)
        let sheet = Sheet(folder: folder, input: input)
        let run = try runGifx(["to-sprite", input, "-o", sheet.path("s.png"), "--json", sheet.path("s.json"), "--max-size", "20"])
        try #require(run.status == 0, "\(run.stderr)")
        try #require(FileManager.default.fileExists(atPath: sheet.path("s-0.png")))
        try #require(FileManager.default.fileExists(atPath: sheet.path("s-1.png")))
        return sheet
    }

    @Test func pagesGivenWithTheirDescriptionVerifyAsPages() throws {
        let sheet = try Self.makeSheet()
        defer { try? FileManager.default.removeItem(at: sheet.folder) }
        let reports = try VerifyCommandTests.verify(sheet.input, [sheet.path("s-0.png"), sheet.path("s-1.png"), sheet.path("s.json")])
        #expect(reports.status == 0, "\(reports.stderr)")
        try #require(reports.outputs.count == 3)
        for page in reports.outputs.prefix(2) {
            #expect(page["kind"] as? String == "sheet page")
            #expect(page["outputFrames"] as? Int == 4)
            #expect((page["failures"] as? [String])?.isEmpty == true)
        }
        #expect(reports.outputs[2]["kind"] as? String == "sheet")
        #expect(reports.outputs[2]["outputFrames"] as? Int == 8)
        // The description given before the page, and the page alone with it: the same.
        let one = try VerifyCommandTests.verify(sheet.input, [sheet.path("s.json"), sheet.path("s-1.png")])
        #expect(one.status == 0, "\(one.stderr)")
        #expect(one.outputs.last?["kind"] as? String == "sheet page")
    }

    /// The two pages swapped on disk: each page's report fails, naming the frames that show other GIF frames.
    @Test func swappedPagesFailAsPages() throws {
        let sheet = try Self.makeSheet()
        defer { try? FileManager.default.removeItem(at: sheet.folder) }
        let manager = FileManager.default
        try manager.moveItem(atPath: sheet.path("s-0.png"), toPath: sheet.path("t.png"))
        try manager.moveItem(atPath: sheet.path("s-1.png"), toPath: sheet.path("s-0.png"))
        try manager.moveItem(atPath: sheet.path("t.png"), toPath: sheet.path("s-1.png"))
        let reports = try VerifyCommandTests.verify(sheet.input, [sheet.path("s-0.png"), sheet.path("s.json")])
        #expect(reports.status == 1)
        let page = try #require(reports.outputs.first)
        #expect(page["kind"] as? String == "sheet page")
        #expect(page["mismatchedFrames"] as? Int == 4, "\(page)")
        #expect(reports.stderrLines.contains { $0.hasPrefix("gifx: \(sheet.path("s-0.png")): verification failed:") }, "\(reports.stderr)")
    }

    /// A page alone fails as a poster, with one hint line naming the description beside it; moved away from
    /// it, the hint names the grid of the GIF's frame size instead.
    @Test func aPageAloneGetsAHint() throws {
        let sheet = try Self.makeSheet()
        defer { try? FileManager.default.removeItem(at: sheet.folder) }
        let alone = try runGifx(["verify", sheet.input, sheet.path("s-1.png")])
        #expect(alone.status == 1)
        let lines = alone.stderrLines.filter { $0.hasPrefix("gifx: ") }
        #expect(lines.count == 1, "\(alone.stderr)")
        #expect(lines.first?.contains("hint: this PNG is a page of the sprite sheet \(sheet.path("s.json"))") == true, "\(alone.stderr)")

        let away = sheet.folder.appendingPathComponent("away")
        try FileManager.default.createDirectory(at: away, withIntermediateDirectories: true)
        let moved = away.appendingPathComponent("s-1.png").path
        try FileManager.default.copyItem(atPath: sheet.path("s-1.png"), toPath: moved)
        let lone = try runGifx(["verify", sheet.input, moved])
        #expect(lone.status == 1)
        #expect(lone.stderr.contains("hint: this PNG looks like a sprite sheet page (2x2 cells of the GIF's 10x8 frame)"), "\(lone.stderr)")
    }

    /// A real poster that fails (another GIF's frame) gets no sheet hint: it is one cell, not a grid.
    @Test func aWrongPosterGetsNoHint() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.gif, to: folder)
        let other = try writeGIF(
            .solidFrames(width: 10, height: 8, colorIndices: [0], delays: [10]), to: folder, name: "other.gif")
        let poster = folder.appendingPathComponent("p.png").path
        try #require(try runGifx(["convert", other, "-o", poster]).status == 0)
        let run = try runGifx(["verify", input, poster])
        #expect(run.status == 1)
        #expect(!run.stderr.contains("hint:"), "\(run.stderr)")
    }
}
