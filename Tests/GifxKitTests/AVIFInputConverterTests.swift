import Foundation
import GifFixtures
import GifxKit
import Testing

/// Issue 59 at the library level: `GifConverter` takes an AVIF like any input. The fixture is written by avifenc
/// (libavif-bin) from PNG frames of GifFixtures' `PNGWriter`, at 1/600 s with durations 24, 42 and 600 units (40,
/// 70 and 1000 ms); the schedule keeps the file's timescale, and the MP4 is read back by ffprobe.
@Suite(.enabled(if: AnimatedInputTools.find("avifenc") != nil && AnimatedInputTools.available, "needs avifenc (libavif-bin) and ffprobe (make deps)"))
struct AVIFInputConverterTests {
    @Test func avifConvertsOnItsOwnTimescale() async throws {
        let folder = try AnimatedInputConverterTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var arguments = ["-s", "10", "-j", "1", "--timescale", "600"]
        for (index, (colour, duration)) in zip(AnimatedInputConverterTests.colours, [24, 42, 600]).enumerated() {
            let png = folder.appendingPathComponent("f\(index).png")
            try PNGWriter.still(width: 16, height: 16, pixels: PNGWriter.solid(16, 16, colour)).write(to: png)
            arguments += ["--duration", "\(duration)", png.path]
        }
        let avif = folder.appendingPathComponent("in.avif")
        try AnimatedInputTools.run(AnimatedInputTools.find("avifenc")!, arguments + ["-o", avif.path])

        let converter = GifConverter()
        let timeline = try converter.timeline(of: .path(avif.path))
        #expect(timeline.format.rawValue == "avif")
        #expect(timeline.timescale == 600)
        #expect(timeline.frames.map(\.delay) == [24, 42, 600])
        #expect(timeline.duration.units == 666)
        #expect(timeline.loop.plays == nil, "avifenc 0.11 writes no edit list: forever")

        let mp4 = folder.appendingPathComponent("out.mp4").path
        let report = try await converter.convert(
            .path(avif.path), to: [.video(target: .file(mp4), options: VideoSettings(preset: "ultrafast", timing: .vfr))])
        #expect(report.frames == 3)
        let probe = try AnimatedInputTools.ffprobe(mp4)
        #expect(probe.frames == 3)
        #expect(abs(probe.duration - 1.11) < 0.001, "duration \(probe.duration) s")
    }
}
