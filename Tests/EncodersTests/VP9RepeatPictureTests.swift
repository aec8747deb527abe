import ChildProcesses
import Foundation
import GifFixtures
import GifxEncoders
import GifxPipeline
import Testing

/// VP9 repeat pictures in WebM (`show_existing_frame`, docs/repeats.md) against the old path
/// (`Diagnostics.encodeRepeats`, `GIFX_REPEATS=encode`) on RepeatPictureTests' generated sweep (ticks 1-7 cs,
/// runs of 1 to 500 output frames, key frames inside runs, `--loops`, odd sizes). Judged by FFmpeg
/// (`-err_detect explode`) and libvpx's `vpxdec`:
/// - at `crf` 0 (libvpx's cq-level 0, lossless on these fixtures), both paths decode to the same frames, bit for
///   bit, with the same timestamps and durations;
/// - at the default quality, every output frame of a run that is not a key frame decodes to the frame before it;
/// - ffprobe's frame count and duration are the old path's; key frames by the seconds rule (the default 5 s,
///   each at a GIF frame's first output frame, the copy after it coded); vpxdec decodes the frames FFmpeg does.
/// An alpha WebM keeps the old path (every frame encoded), identical to `GIFX_REPEATS=encode`.
@Suite("VP9 repeat pictures: the old path frame by frame (FFmpeg and vpxdec)",
       .enabled(if: VP9Oracle.available, "ffmpeg/ffprobe or vpxdec (vpx-tools) not installed"))
struct VP9RepeatPictureTests {
    typealias Case = RepeatPictureTests.Case

    static func convert(
        _ c: Case, folder: URL, name: String, crf: Double, encodeRepeats: Bool, timestamps: RepeatTimestamps = .capped,
        gif: FixtureGIF? = nil, container: VideoContainer = .webm
    ) throws -> (path: String, summary: VideoSummary) {
        let input = folder.appendingPathComponent("in.gif")
        if !FileManager.default.fileExists(atPath: input.path) { try (gif ?? RepeatPictureTests.gif(c)).write(to: input) }
        let target = folder.appendingPathComponent("\(name).\(container == .webm ? "webm" : "mp4")").path
        var settings = RunSettings()
        settings.diagnostics.encodeRepeats = encodeRepeats
        settings.diagnostics.repeatTimestamps = timestamps
        var options = VideoSettings(container: container, codec: .vp9, crf: crf)
        options.loops = c.loops
        let report = try Conversion(inputPath: input.path, settings: settings).run([.video(target: .file(target), options: options)])
        guard let video = report.outputs[0] as? VideoResult else { throw MP4OracleError("no video result") }
        return (target, video.summary)
    }

    @Test("lossless: the frames, timestamps, frame count and duration of the old path, bit for bit",
          arguments: RepeatPictureTests.cases)
    func losslessMatchesOldPath(_ c: Case) throws {
        let folder = try mp4Folder("vp9lossless\(c.tick)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let old = try Self.convert(c, folder: folder, name: "old", crf: 0, encodeRepeats: true)
        let oldFrames = try RepeatPictureTests.frames(old.path)
        let outputFrames = c.delays.reduce(0, +) / c.tick * c.loops
        #expect(oldFrames.count == outputFrames)
        #expect(old.summary.repeatPictures == 0 && old.summary.encodedPictures == outputFrames)
        let oldProbe = try MP4Oracle.probe(old.path)
        // the default (durations shown to libvpx capped at 0.1 s), real durations, and VP9 in MP4 (to-mp4 --codec vp9)
        for (timestamps, container) in [(RepeatTimestamps.capped, VideoContainer.webm), (.real, .webm), (.capped, .mp4)] {
            let new = try Self.convert(
                c, folder: folder, name: "new\(timestamps)", crf: 0, encodeRepeats: false, timestamps: timestamps,
                container: container)
            #expect(new.summary.outputFrames == outputFrames)
            // coded skip frames (VP9SkipFrame): about 20 bytes each at these sizes
            #expect(new.summary.repeatPictures > 0 && new.summary.repeatBytes > 8 * new.summary.repeatPictures)
            #expect(new.summary.repeatBytes < 64 * new.summary.repeatPictures)
            #expect(new.summary.encodedPictures + new.summary.repeatPictures == outputFrames)
            // Each GIF frame coded once a play (twice at most: a hold split, VP9's copy after a key frame).
            #expect(new.summary.encodedPictures <= c.delays.count * c.loops * 2, "\(new.summary)")
            let newFrames = try RepeatPictureTests.frames(new.path)
            // pts, duration and hash (the size column is the decoded frame's, equal by construction); the MP4's
            // timestamps are in its own time base, so there the hashes
            if container == .webm {
                #expect(newFrames == oldFrames, "\(c.name) \(timestamps)")
            } else {
                #expect(newFrames.map(\.last) == oldFrames.map(\.last), "\(c.name) in MP4")
            }
            var decodable = new.path  // vpxdec reads WebM and IVF: the MP4's packets copied into an IVF
            if container == .mp4 {
                decodable = folder.appendingPathComponent("mp4.ivf").path
                _ = try RepeatPictureTests.tool(MP4Oracle.ffmpeg!, [
                    "-v", "error", "-nostdin", "-y", "-i", new.path, "-c", "copy", "-f", "ivf", decodable,
                ])
            }
            #expect(try VP9Oracle.frameHashes(decodable, folder: folder) == oldFrames.map { $0.last ?? "" })
            let newProbe = try MP4Oracle.probe(new.path)
            #expect(newProbe.nb_read_frames == oldProbe.nb_read_frames)
            #expect(newProbe.formatDuration == oldProbe.formatDuration)
            if container == .webm {  // the MP4's own fields are MP4TimingTests' business; its frames are checked above
                #expect(newProbe.duration == oldProbe.duration)
                #expect(newProbe.avg_frame_rate == oldProbe.avg_frame_rate && newProbe.r_frame_rate == oldProbe.r_frame_rate)
            }
        }
    }

    @Test("default quality: each repeat decodes to the frame before it; key frames every 5 s at new pictures",
          arguments: RepeatPictureTests.cases)
    func repeatsAreCopies(_ c: Case) throws {
        let folder = try mp4Folder("vp9lossy\(c.tick)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let new = try Self.convert(c, folder: folder, name: "new", crf: 32, encodeRepeats: false)
        let frames = try RepeatPictureTests.frames(new.path)
        let keys = try RepeatPictureTests.keyFrames(new.path)
        let runs = Array(repeating: c.delays.map { $0 / c.tick }, count: c.loops).flatMap { $0 }
        #expect(frames.count == runs.reduce(0, +))
        #expect(keys.count == frames.count)
        #expect(try VP9Oracle.frameHashes(new.path, folder: folder) == frames.map { $0.last ?? "" })
        RepeatPictureTests.expectRepeatsAreCopies(
            c, frames: frames, keys: keys, runs: runs, codedAfterKeyframe: true)
        let old = try Self.convert(c, folder: folder, name: "old", crf: 32, encodeRepeats: true)
        try RepeatPictureTests.expectSameFrameCountAndDuration(new.path, old.path)
    }

    @Test("alpha WebM keeps the old path: every frame encoded, the same file as GIFX_REPEATS=encode")
    func alphaKeepsOldPath() throws {
        let folder = try mp4Folder("vp9alpha")
        defer { try? FileManager.default.removeItem(at: folder) }
        let c = Case(name: "alpha", width: 24, height: 18, delays: [2, 40, 3, 2], tick: 1)
        // a transparent border around a solid block that changes colour
        let frames = c.delays.enumerated().map { k, delay in
            FixtureFrame(width: 24, height: 18, indices: (0..<(24 * 18)).map { i in
                let x = i % 24, y = i / 24
                return x < 4 || y < 4 ? 0 : UInt8(1 + k % 6)
            }, delay: delay, transparentIndex: 0)
        }
        let gif = FixtureGIF(width: 24, height: 18, frames: frames)
        let new = try Self.convert(c, folder: folder, name: "new", crf: 0, encodeRepeats: false, gif: gif)
        let old = try Self.convert(c, folder: folder, name: "old", crf: 0, encodeRepeats: true, gif: gif)
        #expect(new.summary.repeatPictures == 0 && new.summary.encodedPictures == 47)
        let probe = try MP4Oracle.probe(new.path)
        #expect(probe.nb_read_frames == "47")
        let newBytes = try Data(contentsOf: URL(fileURLWithPath: new.path))
        #expect(newBytes == (try Data(contentsOf: URL(fileURLWithPath: old.path))))
        // the alpha plane is there (the Matroska track's AlphaMode, as FFmpeg's demuxer reads it)
        let alpha = try RepeatPictureTests.tool(MP4Oracle.ffprobe!, [
            "-v", "error", "-select_streams", "v:0", "-show_entries", "stream_tags=alpha_mode", "-of", "csv=p=0",
            new.path,
        ])
        #expect(alpha.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
    }
}
