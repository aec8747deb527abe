import Foundation
import GifFixtures
import Testing

@Suite struct ToSpriteCommandTests {
    private let gif = FixtureGIF.solidFrames(width: 4, height: 4, colorIndices: [1, 2, 1], delays: [5, 6, 7])

    @Test func defaultOutputsSitBesideTheInput() throws {
        let folder = try temporaryFolder()
        let input = try writeGIF(gif, to: folder, name: "clip.gif")
        let run = try runGifx(["to-sprite", input, "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(files == ["clip.gif", "clip.json", "clip.png"])
        let json = try #require(
            JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("clip.json"))) as? [String: Any])
        let images = try #require(json["images"] as? [[String: Any]])
        #expect(images.first?["name"] as? String == "clip.png")
        #expect((json["frames"] as? [Any])?.count == 3)
    }

    @Test func standardInputNeedsAnOutputPath() throws {
        let run = try runGifx(["to-sprite", "-"], stdin: gif.encode())
        #expect(run.status == 64)
    }

    @Test func standardInputWithOutputAndJSONPathAndFormat() throws {
        let folder = try temporaryFolder()
        let png = folder.appendingPathComponent("sheet.png").path
        let jsonPath = folder.appendingPathComponent("meta/sheet-data.json")
        try FileManager.default.createDirectory(
            at: jsonPath.deletingLastPathComponent(), withIntermediateDirectories: true)
        let run = try runGifx(
            ["to-sprite", "-", "-o", png, "--json", jsonPath.path, "--format", "aseprite", "--quiet"],
            stdin: gif.encode())
        #expect(run.status == 0, "\(run.stderr)")
        let json = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: jsonPath)) as? [String: Any])
        let meta = try #require(json["meta"] as? [String: Any])
        // The image is named relative to the JSON's folder.
        #expect(meta["image"] as? String == "../sheet.png")
        let frames = try #require(json["frames"] as? [String: Any])
        #expect(frames.keys.sorted() == ["sheet 0000", "sheet 0001", "sheet 0002"])
    }

    @Test func dedupeReportsCellsSavedOnStderrAndInStats() throws {
        let folder = try temporaryFolder()
        let input = try writeGIF(gif, to: folder)
        let run = try runGifx(["to-sprite", input, "--dedupe", "--stats"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderrLines.contains { $0.hasPrefix("gifx: \(input): dedupe: 1 of 3 frames") })
        let stats = try #require(JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        #expect(stats["cellsSaved"] as? Int == 1)
        #expect(stats["cells"] as? Int == 2)
        #expect(stats["frames"] as? Int == 3)
    }

    @Test func tooWideForMaxSizeIsOneLineExit64AndWritesNothing() throws {
        let folder = try temporaryFolder()
        let wide = FixtureGIF.solidFrames(width: 80, height: 8, colorIndices: [1], delays: [5])
        let input = try writeGIF(wide, to: folder)
        let run = try runGifx(["to-sprite", input, "--max-size", "64"])
        #expect(run.status == 64)
        #expect(run.stderrLines.count == 1)
        #expect(run.stderrLines.first?.hasPrefix("gifx: \(input): a frame of 80x8 px") == true)
        // The remedy in this command's flags (the library's error names none).
        #expect(run.stderrLines.first?.contains("raise --max-size") == true, "\(run.stderrLines)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["in.gif"])
    }

    @Test func existingOutputExits73AndIsKept() throws {
        let folder = try temporaryFolder()
        let input = try writeGIF(gif, to: folder)
        let png = folder.appendingPathComponent("in.png")
        try Data("old".utf8).write(to: png)
        let run = try runGifx(["to-sprite", input])
        #expect(run.status == 73)
        #expect(run.stderrLines.count == 1)
        #expect(try Data(contentsOf: png) == Data("old".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["in.gif", "in.png"])
        let again = try runGifx(["to-sprite", input, "--overwrite", "--quiet"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try Data(contentsOf: png).starts(with: [0x89, 0x50, 0x4E, 0x47]))
    }

    @Test func malformedInputExits65() throws {
        let folder = try temporaryFolder()
        let input = folder.appendingPathComponent("bad.gif")
        try Data("GIF89a not really".utf8).write(to: input)
        let run = try runGifx(["to-sprite", input.path])
        #expect(run.status == 65)
        #expect(run.stderrLines.count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["bad.gif"])
    }

    @Test func badOptionsAreUsageErrors() throws {
        let folder = try temporaryFolder()
        let input = try writeGIF(gif, to: folder)
        for arguments in [["--columns", "0"], ["--padding", "-1"], ["--format", "xml"], ["--width", "4", "--scale", "2"]] {
            let run = try runGifx(["to-sprite", input] + arguments)
            #expect(run.status == 64, "\(arguments)")
        }
    }
}
