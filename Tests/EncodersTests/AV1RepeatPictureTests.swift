import ChildProcesses
import Foundation
import GifFixtures
import GifxEncoders
import GifxPipeline
import Testing

/// AV1 repeat pictures (`show_existing_frame`, docs/repeats.md "How (AV1)") on RepeatPictureTests' generated
/// sweep (ticks 1-7 cs, runs of 1 to 500 output frames, key frames inside runs, `--loops`, odd sizes) and a
/// 96x64 case (SVT-AV1's size on the old path), in MP4 and WebM, against the old path (`Diagnostics.encodeRepeats`:
/// every copy encoded). Judged by FFmpeg's libdav1d and libaom decoders (`-err_detect explode`):
/// - at the default quality every output frame of a run decodes to the frame before it, but a key frame and the
///   copy after it (coded: a shown key frame cannot be shown again); key frames by the seconds rule;
/// - the two decoders decode the same frames; ffprobe's frame count and duration are the old path's;
/// - `VideoSummary` counts one encoded picture per GIF frame shown plus one per key frame inside a run, and
///   5 bytes per repeat.
/// libaom real-time is not lossless at `crf` 0 (AV1RepeatSplicerTests), so no bit-exact comparison with the old
/// path is made here: AV1RepeatSplicerTests checks the splice itself bit for bit against the encoder's stream.
@Suite("AV1 repeat pictures: copies and the old path's timing (libdav1d and libaom)",
       .enabled(if: MP4Oracle.available, "ffmpeg/ffprobe not installed"))
struct AV1RepeatPictureTests {
    typealias Case = RepeatPictureTests.Case

    static let cases: [Case] = RepeatPictureTests.cases + [
        Case(name: "96x64, tick 1, runs of 200 and 7", width: 96, height: 64, delays: [2, 3, 200, 7, 2], tick: 1),
    ]

    static func convert(
        _ c: Case, folder: URL, name: String, encodeRepeats: Bool, container: VideoContainer
    ) throws -> (path: String, summary: VideoSummary) {
        let input = folder.appendingPathComponent("in.gif")
        if !FileManager.default.fileExists(atPath: input.path) { try RepeatPictureTests.gif(c).write(to: input) }
        let target = folder.appendingPathComponent("\(name).\(container == .webm ? "webm" : "mp4")").path
        var settings = RunSettings()
        settings.diagnostics.encodeRepeats = encodeRepeats
        var options = VideoSettings(container: container, codec: .av1)
        options.loops = c.loops
        let report = try Conversion(inputPath: input.path, settings: settings).run([.video(target: .file(target), options: options)])
        guard let video = report.outputs[0] as? VideoResult else { throw MP4OracleError("no video result") }
        return (target, video.summary)
    }

    @Test("default quality: each repeat decodes to the frame before it, in MP4 and WebM; the old path's timing",
          arguments: cases)
    func repeatsAreCopies(_ c: Case) throws {
        let folder = try mp4Folder("av1lossy\(c.tick)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let runs = Array(repeating: c.delays.map { $0 / c.tick }, count: c.loops).flatMap { $0 }
        let outputFrames = runs.reduce(0, +)
        for container in [VideoContainer.mp4, .webm] {
            let new = try Self.convert(c, folder: folder, name: "new", encodeRepeats: false, container: container)
            let frames = try RepeatPictureTests.frames(new.path)
            let keys = try RepeatPictureTests.keyFrames(new.path)
            #expect(frames.count == outputFrames)
            #expect(keys.count == frames.count)
            #expect(try AV1Oracle.framemd5(new.path, decoder: "libaom-av1") == frames.map { $0.last ?? "" }, "\(c.name) \(container)")
            #expect(try AV1Oracle.framemd5(new.path, decoder: "libdav1d") == frames.map { $0.last ?? "" }, "\(c.name) \(container)")
            RepeatPictureTests.expectRepeatsAreCopies(
                c, frames: frames, keys: keys, runs: runs, codedAfterKeyframe: true)
            // one picture per run, plus the coded copy after each key frame in a run longer than one frame
            var keyInRuns = 0, index = 0
            for run in runs {
                if keys[index] && run > 1 { keyInRuns += 1 }
                index += run
            }
            #expect(new.summary.outputFrames == outputFrames)
            #expect(new.summary.encodedPictures == runs.count + keyInRuns, "\(c.name) \(container)")
            #expect(new.summary.repeatPictures == outputFrames - runs.count - keyInRuns)
            #expect(new.summary.repeatBytes == 5 * new.summary.repeatPictures)
            let old = try Self.convert(c, folder: folder, name: "old", encodeRepeats: true, container: container)
            #expect(old.summary.repeatPictures == 0 && old.summary.encodedPictures == outputFrames)
            try RepeatPictureTests.expectSameFrameCountAndDuration(new.path, old.path)
        }
    }
}
