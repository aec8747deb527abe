import GifxEncoders
import Testing
@testable import gifx

/// What a batch hands its workers (`BatchJob`) and what it looks for afterwards, named from the output kinds' files
/// (`OutputKind.files`): the names here are the ones docs/cli.md (`batch`) promises, written out by hand.
@Suite struct BatchJobTests {
    @Test func outputsAreNamedByTheirKinds() {
        let convert = BatchTarget(command: .convert, formats: [.pngPoster, .sheet, .timelineJSON])
        let job = convert.job(input: "-a.gif", base: "out/a", stdout: "o", stderr: "e")
        #expect(job.input == "./-a.gif")
        #expect(job.outputs == [
            BatchJob.Output(kind: "png", path: "out/a.png"),
            BatchJob.Output(kind: "sheet", path: "out/a.sheet.png", description: "out/a.sheet.json"),
            BatchJob.Output(kind: "timeline", path: "out/a.timeline.json"),
        ])
        #expect(convert.markerPaths(base: "out/a") == ["out/a.png", "out/a.sheet.json", "out/a.timeline.json"])
        #expect(convert.outputExtension == ".png")
        #expect(BatchTarget(command: .convert, formats: [.sheet]).outputExtension == ".sheet.png")

        let sprite = BatchTarget(command: .toSprite)
        #expect(sprite.job(input: "a.gif", base: "out/a", stdout: "o", stderr: "e").outputs == [
            BatchJob.Output(kind: "sheet", path: "out/a.png", description: "out/a.json"),
        ])
        #expect(sprite.markerPaths(base: "out/a") == ["out/a.json"])
        #expect(sprite.outputExtension == ".png")

        let mp4 = BatchTarget(command: .toMP4)
        #expect(mp4.job(input: "a.gif", base: "out/a", stdout: "o", stderr: "e").outputs == [
            BatchJob.Output(kind: "mp4", path: "out/a.mp4"),
        ])
        let timeline = BatchTarget(command: .timeline)
        #expect(timeline.job(input: "a.gif", base: "out/a", stdout: "o", stderr: "e").outputs.isEmpty)
        #expect(timeline.standardOutputPath(base: "out/a") == "out/a.timeline.json")
    }

    @Test func leftoverTemporariesBelongToTheirInputs() {
        let convert = BatchTarget(command: .convert, formats: [.pngPoster, .sheet])
        #expect(LeftoverTemporaries.candidateBases(ofTemporary: ".a.sheet-2.png.gifx-Ab12Cd", target: convert).contains("a"))
        // A one-page sheet beside a poster: `.png` alone would read the sheet's PNG as the poster of `a.sheet`.
        #expect(LeftoverTemporaries.candidateBases(ofTemporary: ".a.sheet.png.gifx-Ab12Cd", target: convert).contains("a"))
        #expect(LeftoverTemporaries.candidateBases(ofTemporary: ".a.sheet.json.gifx-Ab12Cd", target: convert) == ["a"])
        let sprite = BatchTarget(command: .toSprite)
        #expect(Set(LeftoverTemporaries.candidateBases(ofTemporary: ".a-3.png.gifx-Ab12Cd", target: sprite)) == ["a-3", "a"])
        #expect(LeftoverTemporaries.candidateBases(ofTemporary: ".a.json.gifx-Ab12Cd", target: sprite) == ["a"])
        let mp4 = BatchTarget(command: .toMP4)
        #expect(LeftoverTemporaries.candidateBases(ofTemporary: ".a.mp4.gifx-Ab12Cd", target: mp4) == ["a"])
        #expect(LeftoverTemporaries.candidateBases(ofTemporary: ".a.mp4.gifx-Ab1", target: mp4).isEmpty)
        #expect(LeftoverTemporaries.candidateBases(ofTemporary: "a.mp4.gifx-Ab12Cd", target: mp4).isEmpty)
    }
}
