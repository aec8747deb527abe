import Foundation
import GifFixtures
import Testing

/// Reading metadata keeps ~100 bytes per image, never giflib's SavedImages: measured on the child process.
@Suite struct MetadataMemoryTests {
    @Test func timelineOf200kImagesStaysSmall() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let frame = FixtureFrame(width: 1, height: 1, indices: [1], localPalette: [RGB(1, 2, 3), RGB(4, 5, 6)], delay: 3)
        let many = folder.appendingPathComponent("many.gif")
        try FixtureGIF.repeatingFrame(width: 1, height: 1, frame: frame, count: 200_000).write(to: many)
        let one = folder.appendingPathComponent("one.gif")
        try FixtureGIF.repeatingFrame(width: 1, height: 1, frame: frame, count: 1).write(to: one)

        // `timeline` without --json: the schedule is built but the output stays small.
        let baseline = try runGifx(["timeline", one.path])
        let run = try runGifx(["timeline", many.path], timeout: 120)
        #expect(baseline.status == 0 && run.status == 0, "\(run.stderr)")
        #expect(run.stdoutText.contains("200000 frames, 6000.00 s"))
        let growth = run.peakRSSBytes - baseline.peakRSSBytes
        // Metadata + schedule + table are a few hundred bytes per frame; giflib's SavedImages (a
        // descriptor, palette copy and raster per image) would add far more.
        #expect(growth < 100 << 20, "peak RSS grew by \(growth) bytes for 200k images")
    }
}
