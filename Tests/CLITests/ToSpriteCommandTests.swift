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

/// A sheet's durations are the schedule's, exact (issue 57): an APNG of 1/30 s frames gave `duration: 0.03` (its
/// whole cs / 100) in `gifx.sprite/1` and 30 ms in TexturePacker's. Only the fields whose schema is in cs
/// (`gifx.sprite/1`'s `delay`) are rounded to cs. Expected values are the fractions the file was written with.
@Suite struct SheetDurationTests {
    @Test func anAPNGsThirtiethsAreExactInTheSheet() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let frames: [[UInt8]] = (0..<3).map { i in
            let pixel: [UInt8] = [UInt8(60 * i), 0, 0, 255]
            return [[UInt8]](repeating: pixel, count: 64).flatMap { $0 }
        }
        let input = folder.appendingPathComponent("thirtieths.png")
        try PNGWriter.apng(width: 8, height: 8, frames: frames, delays: [(1, 30), (2, 30), (1, 10)]).write(to: input)
        let yy = folder.appendingPathComponent("yy.json").path
        let packer = folder.appendingPathComponent("tp.json").path
        for (json, format) in [(yy, "yy"), (packer, "texturepacker-array")] {
            let run = try runGifx(["to-sprite", input.path, "-o", json.replacingOccurrences(of: ".json", with: ".png"),
                                   "--json", json, "--format", format, "--quiet"])
            #expect(run.status == 0, "\(run.stderr)")
        }
        let sheet = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: yy))) as? [String: Any])
        let sheetFrames = sheet["frames"] as? [[String: Any]] ?? []
        let durations: [Double] = sheetFrames.compactMap { $0["duration"] as? Double }
        let delays: [Int] = sheetFrames.compactMap { $0["delay"] as? Int }
        let thirtieths: [Double] = [1.0 / 30, 2.0 / 30, 1.0 / 10]
        // Foundation's JSON parser on Linux reads 0.06666666666666667 as …68: within 1e-12, where cs gave 0.07.
        #expect(durations.count == 3 && zip(durations, thirtieths).allSatisfy { abs($0 - $1) < 1e-12 }, "\(durations)")
        #expect(delays == [3, 7, 10])
        #expect(abs((sheet["duration"] as? Double ?? 0) - 0.2) < 1e-12)
        let array = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: packer))) as? [String: Any])
        let packed: [Int] = (array["frames"] as? [[String: Any]] ?? []).compactMap { $0["duration"] as? Int }
        #expect(packed == [33, 67, 100])
    }
}
