import ChildProcesses
import Foundation
import GifFixtures
import GifxEncoders
import GifxPipeline
import Testing

/// Repeat pictures (docs/repeats.md) against the old path, which encodes every repeat again
/// (`Diagnostics.encodeRepeats`, `GIFX_REPEATS=encode`), on a generated sweep: ticks 1-7 cs, runs of 1 to 500
/// output frames, key frames falling inside runs, `--loops`, odd sizes, fragmented MP4. Judged by FFmpeg:
/// - lossless (`crf` 0), both paths decode to the same frames, bit for bit, with the same timestamps;
/// - at the default quality, every output frame of a run that is not a key frame decodes to the frame before it
///   (the runs come from the fixture's delays, the key frames from ffprobe);
/// - ffprobe's frame count and duration are the old path's; key frames by the seconds rule (the default 5 s),
///   each at a GIF frame's first output frame.
@Suite("Repeat pictures: the old path frame by frame (FFmpeg decodes with -err_detect explode)",
       .enabled(if: MP4Oracle.available, "ffmpeg/ffprobe not installed"))
struct RepeatPictureTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var width: Int, height: Int
        /// Raw GIF delays (cs), each a multiple of `tick`, none below 2 (so none is raised to 10).
        var delays: [Int]
        var tick: Int
        var loops = 1
        /// The encoder preset (`VideoSettings.preset`).
        var preset = "medium"
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "tick 1, runs of 500 and 260 (key frames inside), odd size", width: 37, height: 29,
             delays: [2, 3, 500, 7, 260, 2, 13], tick: 1),
        Case(name: "tick 2, runs 1-150", width: 48, height: 32, delays: [2, 4, 2, 300, 6, 2], tick: 2),
        Case(name: "tick 3, a run of exactly 250, 3 loops", width: 17, height: 23, delays: [3, 6, 3, 750, 9], tick: 3,
             loops: 3),
        Case(name: "tick 4, a run of 250", width: 64, height: 16, delays: [4, 8, 1000, 4, 12], tick: 4),
        Case(name: "tick 5, a run of 500", width: 35, height: 35, delays: [5, 2500, 5, 10], tick: 5),
        Case(name: "tick 6", width: 30, height: 22, delays: [6, 12, 600, 6], tick: 6),
        Case(name: "tick 7, a run of 300, 2 loops", width: 21, height: 41, delays: [7, 14, 2100, 7, 35], tick: 7, loops: 2),
        // An animation exported at 30 fps on a 1 cs tick: every picture held (a B reference where x264 makes it a
        // B-frame), as in Lottie and After Effects exports.
        Case(name: "tick 1, every picture held 3 or 4", width: 48, height: 40,
             delays: [3, 3, 4, 3, 3, 4, 3, 3, 4, 3, 3, 4, 3, 3, 4, 3, 3, 4], tick: 1),
        // Longer than `H264ReferenceRepeatSplicer.maximumRun` (681 at x264 medium): the picture is coded again.
        Case(name: "tick 1, a run of 1500", width: 32, height: 24, delays: [2, 3, 1500, 2, 4, 3], tick: 1),
    ]

    /// H.264 only: x264 at `slower` (b-adapt 2) makes a mini-GOP of a picture shown once and two held ones, all B:
    /// coded P, the two B references, then the B-frame, 3 pictures shown after it decoded before it where x264's
    /// SPS declares 2 (the splicer raises `max_num_reorder_frames` to the B-frames; before, the output failed:
    /// "output frame 31 would be decoded at 32, after it is shown").
    static let x264Cases: [Case] = cases + [
        Case(name: "tick 2, one picture shown once then two held, x264 slower", width: 64, height: 48,
             delays: Array(repeating: [2, 4, 4, 2], count: 15).flatMap { $0 }, tick: 2, preset: "slower"),
    ]

    /// Frames with texture that moves (so x264 predicts with motion), one per delay.
    static func gif(_ c: Case) -> FixtureGIF {
        var rng = SplitMix64(seed: UInt64(c.width * 1000 + c.height))
        let blocksWide = (c.width + 3) / 4 + 16, blocksHigh = (c.height + 3) / 4
        let texture = (0..<(blocksWide * blocksHigh)).map { _ in UInt8.random(in: 0...7, using: &rng) }
        let frames = c.delays.enumerated().map { k, delay in
            var indices = [UInt8](repeating: 0, count: c.width * c.height)
            for y in 0..<c.height {
                for x in 0..<c.width {
                    let bx = (x + 3 * k) / 4 % blocksWide, by = y / 4
                    indices[y * c.width + x] = texture[by * blocksWide + bx]
                }
            }
            return FixtureFrame(width: c.width, height: c.height, indices: indices, delay: delay)
        }
        return FixtureGIF(width: c.width, height: c.height, frames: frames)
    }

    /// Runs a tool; throws when it fails or writes anything on stderr (run at `-v error`).
    static func tool(_ tool: String, _ arguments: [String]) throws -> String {
        let run = try CapturedRun.run(tool, arguments)
        let errors = String(decoding: run.stderr, as: UTF8.self)
        guard run.status == 0, errors.isEmpty else {
            throw MP4OracleError("\(tool) \(arguments.joined(separator: " ")) exited \(run.status): \(errors)")
        }
        return String(decoding: run.stdout, as: UTF8.self)
    }

    /// framemd5's lines (pts, duration, size and hash of every frame) of a file decoded with -err_detect explode.
    static func frames(_ path: String) throws -> [[String]] {
        try tool(MP4Oracle.ffmpeg!, [
            "-v", "error", "-nostdin", "-err_detect", "explode", "-xerror", "-i", path, "-fps_mode", "passthrough",
            "-f", "framemd5", "-",
        ]).split(separator: "\n").filter { !$0.hasPrefix("#") }.map {
            $0.split(separator: ",").dropFirst(2).map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// ffprobe's key frame flag of every frame.
    static func keyFrames(_ path: String) throws -> [Bool] {
        try tool(MP4Oracle.ffprobe!, [
            "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=key_frame", "-of", "csv=p=0", path,
        ]).split(separator: "\n").compactMap { line in  // "1," on a frame with side data
            line.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) == "1" }
        }
    }

    /// Converts with the library (the path every command takes).
    static func convert(
        _ c: Case, folder: URL, name: String, crf: Double, encodeRepeats: Bool, fragmented: Bool = false,
        timestamps: RepeatTimestamps = .capped, x264Stream: String? = nil
    ) throws -> (path: String, summary: VideoSummary, params: String) {
        let input = folder.appendingPathComponent("in.gif")
        if !FileManager.default.fileExists(atPath: input.path) { try gif(c).write(to: input) }
        let target = folder.appendingPathComponent("\(name).mp4").path
        var settings = RunSettings()
        settings.diagnostics.encodeRepeats = encodeRepeats
        settings.diagnostics.repeatTimestamps = timestamps
        if fragmented { settings.diagnostics.fragmentedMP4Above = 0 }
        settings.diagnostics.x264StreamPath = x264Stream
        var options = VideoSettings(loops: c.loops)
        options.crf = crf
        options.preset = c.preset
        let report = try Conversion(inputPath: input.path, settings: settings).run([.video(target: .file(target), options: options)])
        guard let video = report.outputs[0] as? VideoResult else { throw MP4OracleError("no video result") }
        return (target, video.summary, video.tuning.params)
    }

    @Test("lossless: the frames, timestamps, frame count and duration of the old path, bit for bit",
          arguments: x264Cases)
    func losslessMatchesOldPath(_ c: Case) throws {
        let folder = try mp4Folder("lossless\(c.tick)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let old = try Self.convert(c, folder: folder, name: "old", crf: 0, encodeRepeats: true)
        // the default (durations shown to x264 capped at 0.1 s), fragmented, and real durations
        let variants: [(Bool, RepeatTimestamps)] = [(false, .capped), (true, .capped), (false, .real), (false, .dense)]
        for (fragmented, timestamps) in variants where !fragmented || c.tick <= 3 {
            let new = try Self.convert(
                c, folder: folder, name: "new\(fragmented)\(timestamps)", crf: 0, encodeRepeats: false,
                fragmented: fragmented, timestamps: timestamps)
            let outputFrames = c.delays.reduce(0, +) / c.tick * c.loops
            #expect(new.summary.outputFrames == outputFrames)
            #expect(new.summary.repeatPictures > 0)
            #expect(new.summary.encodedPictures + new.summary.repeatPictures == outputFrames)
            // Each GIF frame coded once a play (twice at most: a hold split, VP9's copy after a key frame).
            #expect(new.summary.encodedPictures <= c.delays.count * c.loops * 2, "\(new.summary)")
            // Lossless x264 has no B-frames: these streams take the path without B-frames and with one reference
            // (docs/repeats.md); B-frame repeats are proven at the default quality below.
            #expect(new.params.contains("bframes=0") && new.params.contains("ref=1"), "\(new.params)")
            #expect(old.summary.repeatPictures == 0 && old.summary.encodedPictures == outputFrames)

            let newFrames = try Self.frames(new.path), oldFrames = try Self.frames(old.path)
            #expect(newFrames.count == outputFrames)
            // pts, duration and hash (the size column is the decoded frame's, equal by construction)
            #expect(newFrames == oldFrames, "\(c.name) fragmented \(fragmented) \(timestamps)")
            let newProbe = try MP4Oracle.probe(new.path), oldProbe = try MP4Oracle.probe(old.path)
            #expect(newProbe.nb_read_frames == oldProbe.nb_read_frames)
            #expect(newProbe.duration == oldProbe.duration)
            #expect(newProbe.formatDuration == oldProbe.formatDuration)
            #expect(newProbe.avg_frame_rate == oldProbe.avg_frame_rate && newProbe.duration_ts == oldProbe.duration_ts)
        }
    }

    @Test("default quality: each repeat decodes to the frame before it; key frames every 5 s at new pictures",
          arguments: x264Cases)
    func repeatsAreCopies(_ c: Case) throws {
        let folder = try mp4Folder("lossy\(c.tick)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let raw = folder.appendingPathComponent("x264.h264").path
        let new = try Self.convert(c, folder: folder, name: "new", crf: 23, encodeRepeats: false, x264Stream: raw)
        let frames = try Self.frames(new.path)
        // B-frame repeats (docs/repeats.md): every output frame is one of x264's own pictures (its stream decoded
        // before the repeats were spliced in), in their order: the rescaled picture order counts and the spliced
        // repeats change no picture.
        #expect(new.params.contains("weightb=0"), "\(new.params)")
        let pictures = try Self.frames(raw).map { $0.last }
        #expect(pictures.count == new.summary.encodedPictures)
        // Runs of equal frames, in order: x264's pictures and the output's frames (a picture x264 is given again
        // after `maximumRun` may decode to the same frame as before).
        func runs(_ hashes: [String?]) -> [String?] { hashes.enumerated().filter { $0.offset == 0 || hashes[$0.offset - 1] != $0.element }.map(\.element) }
        #expect(runs(frames.map { $0.last }) == runs(pictures), "\(c.name)")
        let keys = try Self.keyFrames(new.path)
        let runs = Array(repeating: c.delays.map { $0 / c.tick }, count: c.loops).flatMap { $0 }
        #expect(frames.count == runs.reduce(0, +))
        #expect(keys.count == frames.count)
        Self.expectRepeatsAreCopies(
            c, frames: frames, keys: keys, runs: runs)
        let old = try Self.convert(c, folder: folder, name: "old", crf: 23, encodeRepeats: true)
        try Self.expectSameFrameCountAndDuration(new.path, old.path)
    }

    /// What every codec's default-quality sweep checks of a stream with repeat pictures (`frames` and `keys` per
    /// output frame, `runs` the output frames of each GIF frame): every output frame of a run that is not a key
    /// frame decodes to the frame before it (but the one after a key frame where `codedAfterKeyframe`), the first
    /// frame is a key frame, and key frames follow the picture rule: the next at the latest `keyEveryPictures`
    /// coded pictures (one per run at least) after the last.
    static func expectRepeatsAreCopies(
        _ c: Case, frames: [[String]], keys: [Bool], runs: [Int],
        keyEveryPictures: Int = VideoSettings.keyframePictureLimit, codedAfterKeyframe: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        var index = 0
        for run in runs {
            // VP9 codes the output frame after a key frame (`codedAfterKeyframe`): an inter frame, which may refine
            // the picture as the old path's next copy did; the repeats after it decode to it.
            for k in 1..<run where !keys[index + k] && !(codedAfterKeyframe && keys[index + k - 1]) {
                #expect(
                    frames[index + k].last == frames[index + k - 1].last, "\(c.name): output frame \(index + k)",
                    sourceLocation: sourceLocation)
            }
            index += run
        }
        #expect(keys.first == true, sourceLocation: sourceLocation)
        // The picture rule (docs/repeats.md, "Key frames"): each key frame at a run's first frame, and the next
        // one at the latest at the run `keyEveryPictures` runs later (each run codes one picture or more).
        let runStarts = runs.indices.map { runs[..<$0].reduce(0, +) }
        let keyIndices = keys.indices.filter { keys[$0] }
        for (k, key) in keyIndices.enumerated() {
            #expect(runStarts.contains(key), "\(c.name): key frame \(key) inside a run", sourceLocation: sourceLocation)
            let run = runStarts.firstIndex(of: key) ?? 0
            let latest = run + keyEveryPictures < runStarts.count ? runStarts[run + keyEveryPictures] : nil
            let next = k + 1 < keyIndices.count ? keyIndices[k + 1] : nil
            #expect(
                next.map { next in latest.map { next <= $0 } ?? true } ?? (latest == nil),
                "\(c.name): key frame \(key), next \(next.map(String.init) ?? "none"), due by \(latest.map(String.init) ?? "none")",
                sourceLocation: sourceLocation)
        }
    }

    /// ffprobe reads the same frame count and duration from both files (the new path against the old one).
    static func expectSameFrameCountAndDuration(
        _ new: String, _ old: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let newProbe = try MP4Oracle.probe(new), oldProbe = try MP4Oracle.probe(old)
        #expect(newProbe.nb_read_frames == oldProbe.nb_read_frames, sourceLocation: sourceLocation)
        #expect(newProbe.duration == oldProbe.duration, sourceLocation: sourceLocation)
    }
}
