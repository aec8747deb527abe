import Foundation
import GifFixtures
import GifxEncoders
import GifxPipeline
import GifxTimeline
import Testing

/// `RunSettings.edit` through `Conversion` (the path every command takes): what the sinks are given, how many
/// canvases each pass delivers and what the progress total says, for a cut (decoded in order) and for
/// reorderings (spooled, replayed once per pass, the sprite pre-pass included).
@Suite struct EditedConversionTests {
    /// Six 8x8 frames, delays 10 cs each (end 60).
    static func input(_ name: String = #function) throws -> String {
        let folder = try mp4Folder(name)
        let path = folder.appendingPathComponent("in.gif").path
        try FixtureGIF.solidFrames(width: 8, height: 8, colorIndices: [1, 2, 3, 4, 5, 6], delays: [10, 10, 10, 10, 10, 10])
            .write(to: URL(fileURLWithPath: path))
        return path
    }

    static func run(_ edit: TimelineEdit, _ requests: [OutputRequest], input: String) throws
        -> (report: ConversionReport, progress: [(Int, Int)])
    {
        var settings = RunSettings()
        settings.edit = edit
        var progress: [(Int, Int)] = []
        let report = try Conversion(inputPath: input, settings: settings).run(requests, progress: { progress.append(($0, $1)) })
        return (report, progress)
    }

    @Test func cutDeliversOnlyTheFramesShownAndTheProgressEndsAtItsTotal() throws {
        let input = try Self.input()
        // [15, 35): frames 1 (5 cs), 2 (10), 3 (5).
        let (report, progress) = try Self.run(TimelineEdit(from: 15, to: 35), [.canvases(folder: nil)], input: input)
        guard let count = (report.outputs[0] as? CanvasesResult)?.count else { Issue.record("no canvases"); return }
        #expect(count == 3)
        #expect(progress.map(\.0) == [1, 2, 3])
        #expect(progress.allSatisfy { $0.1 == 3 })
        // Frames 0-3 decoded (frame 0 composited and skipped), decoding stopped after frame 3.
        #expect(report.decodedCanvases == 4)
    }

    @Test func boomerangIsSpooledOnceAndReplayedEveryPass() throws {
        let input = try Self.input()
        let folder = try mp4Folder()
        let target = folder.appendingPathComponent("loop.mp4").path
        // Sources 0 1 2 3 4 5 4 3 2 1: 10 output frames a play, two plays; the spool decodes 6 frames once.
        let (report, progress) = try Self.run(
            TimelineEdit(boomerang: true), [.video(target: .file(target), options: VideoSettings(loops: 2, timing: .vfr))],
            input: input)
        guard let video = report.outputs[0] as? VideoResult else { Issue.record("no video"); return }
        #expect(video.summary.canvases == 20)
        #expect(video.summary.outputFrames == 20)
        #expect(progress.last.map { $0.0 == $0.1 } == true)
        #expect(progress.last?.1 == 6 + 20)
        #expect(progress.map(\.0) == Array(1...26))
        // Each GIF frame decoded once, into the spool; both plays read it back.
        #expect(report.decodedCanvases == 6)
    }

    @Test func reversedDedupedSheetRunsItsPrePassFromTheSpool() throws {
        let input = try Self.input()
        let folder = try mp4Folder()
        var options = SpriteOptions(
            png: .file(folder.appendingPathComponent("s.png").path), json: .file(folder.appendingPathComponent("s.json").path))
        options.dedupe = true
        // Reverse then boomerang: 5 4 3 2 1 0 1 2 3 4: 10 frames, 6 distinct cells.
        let (report, progress) = try Self.run(
            TimelineEdit(reverse: true, boomerang: true, crop: PixelRect(x: 2, y: 2, width: 4, height: 3)),
            [.spriteSheet(options)], input: input)
        guard let sheet = report.outputs[0] as? SpriteResult else { Issue.record("no sheet"); return }
        #expect(sheet.frames == 10)
        #expect(sheet.cells == 6)
        #expect(sheet.cellSize == CanvasSize(width: 4, height: 3))
        // Planned: the spool (6 GIF frames), the pre-pass (10) and the pass (10). The deduped pass stops once
        // its 6 cells are written (output frames 0-5 are the 6 distinct ones), as it does without an edit.
        #expect(progress.last?.1 == 26)
        #expect(progress.last?.0 == 6 + 10 + 6)
    }

    @Test func anEditThatDoesNotFitTheGIFIsATypedUsageError() throws {
        let input = try Self.input()
        #expect(throws: EditError(.cutAfterEnd(from: 60, duration: 60))) {
            try Self.run(TimelineEdit(from: 60), [.canvases(folder: nil)], input: input)
        }
        #expect(throws: EditError(.cropOutside(PixelRect(x: 4, y: 0, width: 5, height: 1), canvas: CanvasSize(width: 8, height: 8)))) {
            try Self.run(TimelineEdit(crop: PixelRect(x: 4, y: 0, width: 5, height: 1)), [.canvases(folder: nil)], input: input)
        }
        var settings = RunSettings()
        settings.edit = TimelineEdit(reverse: true)
        settings.verify = VerifySettings()
        #expect(throws: RunSettingsProblem.editWithVerify) { try Conversion(inputPath: input, settings: settings) }
    }
}
