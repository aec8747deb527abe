import ChildProcesses
import Foundation
import GifFixtures
import Testing

/// Edits on the command line (issue 26, docs/edits.md), end to end: EGif fixtures whose frames each have a
/// distinct solid colour and known delays, every output read back by an independent reader (ffprobe/ffmpeg
/// for MP4, Pillow for WebP and PNG) and compared with schedules computed by hand.
@Suite struct EditCommandTests {
    /// Five full-canvas 16x16 frames coloured primaries 1...5 (red, green, blue, yellow, magenta), delays
    /// 20 30 10 40 25 cs: starts 0 20 50 60 100, end 125.
    static let fiveColours = FixtureGIF.solidFrames(
        width: 16, height: 16, colorIndices: [1, 2, 3, 4, 5], delays: [20, 30, 10, 40, 25])

    /// The colour GIF frame `source` of `fiveColours` shows.
    static func colour(ofSource source: Int) -> [Int] {
        let c = FixtureGIF.primaries[source + 1]
        return [Int(c.r), Int(c.g), Int(c.b)]
    }

    static func near(_ actual: [Int], _ expected: [Int], tolerance: Int = 12) -> Bool {
        actual.count >= 3 && zip(actual.prefix(3), expected).allSatisfy { abs($0 - $1) <= tolerance }
    }

    // MARK: MP4 (ffprobe and ffmpeg as the oracle)

    /// Sorted packet pts in cs, the presentation's duration in cs, and each decoded frame's centre colour.
    static func readMP4(_ path: String, side: Int = 16) throws -> (starts: [Double], duration: Double, centres: [[Int]]) {
        struct Probe: Decodable {
            struct Stream: Decodable { var time_base: String }
            struct Packet: Decodable { var pts: Int }
            struct Format: Decodable { var duration: String }
            var streams: [Stream]
            var packets: [Packet]
            var format: Format
        }
        let data = try runTool(Oracle.tool("ffprobe"), [
            "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=time_base:packet=pts:format=duration",
            "-of", "json", path,
        ])
        let probe = try JSONDecoder().decode(Probe.self, from: data)
        let base = probe.streams[0].time_base.split(separator: "/").compactMap { Double($0) }
        // Rounded to the microsecond: 205 cs is 2.05 s, which a time base of 1/12800 s holds exactly but
        // floating point does not.
        let starts = probe.packets.map { (Double($0.pts) * base[0] * 100 / base[1] * 1e4).rounded() / 1e4 }.sorted()
        let frameBytes = side * side * 3
        let raw = [UInt8](try runTool(Oracle.tool("ffmpeg"), [
            "-v", "error", "-nostdin", "-i", path, "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "rgb24", "-",
        ]))
        let centre = ((side / 2) * side + side / 2) * 3
        let centres = stride(from: 0, to: raw.count, by: frameBytes).map { start in
            (0..<3).map { Int(raw[start + centre + $0]) }
        }
        return (starts, (Double(probe.format.duration) ?? -1) * 100, centres)
    }

    @Test(.enabled(if: ffprobeAvailable(), "ffprobe/ffmpeg (Debian package ffmpeg), the oracle, is not installed"))
    func vfrMP4WithACutInsideDelays() throws {
        let folder = try temporaryFolder()
        let input = try writeGIF(Self.fiveColours, to: folder)
        let out = folder.appendingPathComponent("cut.mp4").path
        // [25, 110): frame 0 (0..20) is left out, frame 1 keeps 25..50 (25 cs), frames 2 and 3 whole (10, 40),
        // frame 4 keeps 100..110 (10 cs). Starts 0 25 35 75, end 85.
        let run = try runGifx(["to-mp4", input, "-o", out, "--vfr", "--from", "0.25", "--to", "1.1"])
        #expect(run.status == 0, "\(run.stderr)")
        let mp4 = try Self.readMP4(out)
        #expect(mp4.starts == [0, 25, 35, 75])
        #expect(abs(mp4.duration - 85) < 1e-6)
        #expect(mp4.centres.count == 4)
        for (k, source) in [1, 2, 3, 4].enumerated() where k < mp4.centres.count {
            #expect(Self.near(mp4.centres[k], Self.colour(ofSource: source)), "frame \(k): \(mp4.centres[k])")
        }
    }

    @Test(.enabled(if: ffprobeAvailable(), "ffprobe/ffmpeg (Debian package ffmpeg), the oracle, is not installed"))
    func vfrMP4WithACutAtSpeedTwo() throws {
        let folder = try temporaryFolder()
        let input = try writeGIF(Self.fiveColours, to: folder)
        let out = folder.appendingPathComponent("fast.mp4").path
        // The cut above (starts 0 25 35 75, end 85) halved, rounded half up: 0, 12.5→13, 17.5→18, 37.5→38, end 43.
        let run = try runGifx(["to-mp4", input, "-o", out, "--vfr", "--from", "0.25", "--to", "1.10", "--speed", "2"])
        #expect(run.status == 0, "\(run.stderr)")
        let mp4 = try Self.readMP4(out)
        #expect(mp4.starts == [0, 13, 18, 38])
        #expect(abs(mp4.duration - 43) < 1e-6)
        #expect(mp4.centres.count == 4)
    }

    @Test(.enabled(if: ffprobeAvailable(), "ffprobe/ffmpeg (Debian package ffmpeg), the oracle, is not installed"))
    func boomerangMP4PlaysTwiceThroughTheSpool() throws {
        let folder = try temporaryFolder()
        let input = try writeGIF(Self.fiveColours, to: folder)
        let out = folder.appendingPathComponent("loop.mp4").path
        // Sources 0 1 2 3 4 3 2 1, delays 20 30 10 40 25 40 10 30: starts 0 20 50 60 100 125 165 175, end 205;
        // the second play starts at 205.
        let run = try runGifx(["to-mp4", input, "-o", out, "--vfr", "--boomerang", "--loops", "2"])
        #expect(run.status == 0, "\(run.stderr)")
        let mp4 = try Self.readMP4(out)
        let play: [Double] = [0, 20, 50, 60, 100, 125, 165, 175]
        #expect(mp4.starts == play + play.map { $0 + 205 })
        #expect(abs(mp4.duration - 410) < 1e-6)
        let sources = [0, 1, 2, 3, 4, 3, 2, 1]
        #expect(mp4.centres.count == 16)
        for (k, centre) in mp4.centres.enumerated() {
            #expect(Self.near(centre, Self.colour(ofSource: sources[k % 8])), "frame \(k): \(centre)")
        }
    }

    // MARK: WebP and sprite sheets (Pillow as the reader)

    /// Pillow's reading of an image: per frame the duration (ms, animated only) and RGBA bytes.
    struct Reading: Decodable {
        var width: Int
        var height: Int
        var durations: [Int]
        var frames: [[UInt8]]

        func pixel(_ frame: Int, x: Int, y: Int) -> [Int] {
            let at = (y * width + x) * 4
            return frames[frame][at..<at + 4].map(Int.init)
        }
    }

    static func read(_ path: String) throws -> Reading {
        let script = """
            import json, sys
            from PIL import Image
            im = Image.open(sys.argv[1])
            durations, frames = [], []
            for i in range(getattr(im, "n_frames", 1)):
                im.seek(i)
                im.load()
                durations.append(im.info.get("duration", 0))
                frames.append(list(im.convert("RGBA").tobytes()))
            print(json.dumps({"width": im.width, "height": im.height, "durations": durations, "frames": frames}))
            """
        let run = try CapturedRun.run("/usr/bin/env", ["python3", "-c", script, path])
        return try JSONDecoder().decode(Reading.self, from: run.stdout)
    }

    @Test(.enabled(if: pillowReadsWebP(), "Pillow with WebP support (make deps installs it), the reader, is missing"))
    func boomerangWebPAndSheetFromOneConvert() throws {
        let folder = try temporaryFolder()
        let input = try writeGIF(Self.fiveColours, to: folder)
        let webp = folder.appendingPathComponent("loop.webp").path
        let sheet = folder.appendingPathComponent("loop.png").path
        let json = folder.appendingPathComponent("loop.json").path
        let run = try runGifx(["convert", input, "-o", webp, "--sheet", sheet, "--json", json, "--boomerang"])
        #expect(run.status == 0, "\(run.stderr)")
        let sources = [0, 1, 2, 3, 4, 3, 2, 1]
        let delays = [20, 30, 10, 40, 25, 40, 10, 30]

        let animation = try Self.read(webp)
        #expect(animation.durations == delays.map { $0 * 10 })
        #expect(animation.frames.count == 8)
        for (k, source) in sources.enumerated() where k < animation.frames.count {
            #expect(animation.pixel(k, x: 8, y: 8) == Self.colour(ofSource: source) + [255], "webp frame \(k)")
        }

        struct Sheet: Decodable {
            struct Frame: Decodable {
                struct Rect: Decodable { var x: Int; var y: Int; var width: Int; var height: Int }
                var index: Int; var rect: Rect; var delay: Int
            }
            var frames: [Frame]
            var duration: Double
        }
        let description = try JSONDecoder().decode(Sheet.self, from: Data(contentsOf: URL(fileURLWithPath: json)))
        #expect(description.frames.map(\.index) == Array(0..<8))
        #expect(description.frames.map(\.delay) == delays)
        #expect(description.duration == 2.05)
        let page = try Self.read(sheet)
        for (k, frame) in description.frames.enumerated() {
            let r = frame.rect
            #expect(r.width == 16 && r.height == 16)
            #expect(page.pixel(0, x: r.x + 8, y: r.y + 8) == Self.colour(ofSource: sources[k]) + [255], "cell \(k)")
        }
    }

    @Test(.enabled(if: pillowReadsWebP(), "Pillow with WebP support (make deps installs it), the reader, is missing"))
    func webPAtSpeedThreeHalvesRoundsCumulativeStarts() throws {
        let folder = try temporaryFolder()
        let input = try writeGIF(Self.fiveColours, to: folder)
        let webp = folder.appendingPathComponent("fast.webp").path
        let run = try runGifx(["convert", input, "-o", webp, "--speed", "1.5"])
        #expect(run.status == 0, "\(run.stderr)")
        // Starts 0 20 50 60 100, end 125, times 2/3: 0, 13.3, 33.3, 40, 66.7, end 83.3; rounded 0 13 33 40 67 83:
        // delays 13 20 7 27 16 cs (the sum is 83, not the 84 of rounding each delay on its own).
        let animation = try Self.read(webp)
        #expect(animation.durations == [130, 200, 70, 270, 160])
        for source in 0..<5 where source < animation.frames.count {
            #expect(animation.pixel(source, x: 3, y: 12) == Self.colour(ofSource: source) + [255])
        }
    }

    /// A 12x10 canvas: frame 0 paints index (x + 2y) % 8 everywhere; frame 1 paints a 5x4 rect at (5, 4) with
    /// index 7 except its transparent index 0 on the rect's first column; frame 2 (disposal "background"
    /// on frame 1) paints a 3x2 rect at (1, 1) with index 2. Delays 10 20 30.
    static let patterned: FixtureGIF = {
        let w = 12, h = 10
        let first = FixtureFrame(
            width: w, height: h, indices: (0..<(w * h)).map { UInt8(($0 % w + 2 * ($0 / w)) % 8) }, delay: 10)
        let second = FixtureFrame(
            left: 5, top: 4, width: 5, height: 4, indices: (0..<20).map { $0 % 5 == 0 ? 0 : 7 }, delay: 20,
            disposal: 2, transparentIndex: 0)
        let third = FixtureFrame.solid(2, left: 1, top: 1, width: 3, height: 2, delay: 30)
        return FixtureGIF(width: w, height: h, frames: [first, second, third])
    }()

    /// `patterned`'s composited canvases, worked out here from the fixture's definition (not by gifx): RGBA.
    static func patternedCanvas(_ frame: Int, x: Int, y: Int) -> [Int] {
        func rgba(_ index: Int) -> [Int] {
            let c = FixtureGIF.primaries[index]
            return [Int(c.r), Int(c.g), Int(c.b), 255]
        }
        let inSecond = (5..<10).contains(x) && (4..<8).contains(y)
        let inThird = (1..<4).contains(x) && (1..<3).contains(y)
        switch frame {
        case 0: return rgba((x + 2 * y) % 8)
        case 1: return inSecond && x != 5 ? rgba(7) : rgba((x + 2 * y) % 8)
        default:
            // Frame 1's rect is cleared to transparent (disposal 2), then frame 2 is drawn.
            if inThird { return rgba(2) }
            return inSecond ? [0, 0, 0, 0] : rgba((x + 2 * y) % 8)
        }
    }

    @Test(.enabled(if: pillowReadsWebP(), "Pillow (make deps installs it), the PNG reader, is missing"),
          arguments: [false, true])
    func cropIsPixelExactOnSpriteCells(reverse: Bool) throws {
        let folder = try temporaryFolder()
        let input = try writeGIF(Self.patterned, to: folder)
        let sheet = folder.appendingPathComponent("crop.png").path
        let json = folder.appendingPathComponent("crop.json").path
        // 7x5 at (4, 2): reaches frame 1's rect (and its transparent column) and frame 2's.
        let run = try runGifx(
            ["to-sprite", input, "-o", sheet, "--json", json, "--crop", "7x5+4+2"] + (reverse ? ["--reverse"] : []))
        #expect(run.status == 0, "\(run.stderr)")
        struct Sheet: Decodable {
            struct Frame: Decodable {
                struct Rect: Decodable { var x: Int; var y: Int; var width: Int; var height: Int }
                var rect: Rect; var delay: Int
            }
            var frames: [Frame]
            var sourceSize: [String: Int]
        }
        let description = try JSONDecoder().decode(Sheet.self, from: Data(contentsOf: URL(fileURLWithPath: json)))
        #expect(description.sourceSize == ["width": 7, "height": 5])
        let sources = reverse ? [2, 1, 0] : [0, 1, 2]
        #expect(description.frames.map(\.delay) == sources.map { [10, 20, 30][$0] })
        let page = try Self.read(sheet)
        var mismatches = 0
        for (k, frame) in description.frames.enumerated() {
            #expect(frame.rect.width == 7 && frame.rect.height == 5)
            for y in 0..<5 {
                for x in 0..<7 {
                    let expected = Self.patternedCanvas(sources[k], x: 4 + x, y: 2 + y)
                    var got = page.pixel(0, x: frame.rect.x + x, y: frame.rect.y + y)
                    if got[3] == 0 { got = [0, 0, 0, 0] }  // transparent is transparent, whatever its colour
                    if got != expected { mismatches += 1 }
                }
            }
        }
        #expect(mismatches == 0)
    }

    /// A reversed WebM keeps an alpha plane exactly when the GIF can show a transparent pixel: the spool
    /// tells whether the earliest canvas shown is opaque, though it is encoded last.
    @Test(arguments: [false, true])
    func reversedWebMKeepsAlphaOnlyWhenTheGIFCanShowIt(transparent: Bool) throws {
        let folder = try temporaryFolder()
        var gif = Self.fiveColours
        if transparent {
            // Frame 0 leaves its left column transparent; later frames cover it.
            gif.frames[0] = FixtureFrame(
                width: 16, height: 16, indices: (0..<256).map { $0 % 16 == 0 ? 0 : 1 }, delay: 20, transparentIndex: 0)
        }
        let input = try writeGIF(gif, to: folder)
        let out = folder.appendingPathComponent("r.webm").path
        let run = try runGifx(["convert", input, "-o", out, "--reverse", "--stats"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdoutText.contains("\"alpha\":\(transparent)"), "\(run.stdoutText)")
    }

    // MARK: timeline --json and errors

    @Test func timelineJSONShowsTheEditedSchedule() throws {
        let folder = try temporaryFolder()
        let input = try writeGIF(Self.fiveColours, to: folder)
        let plain = try runGifx(["timeline", input, "--json"])
        #expect(!plain.stdoutText.contains("\"edit\""))
        let run = try runGifx(["timeline", input, "--json", "--from", "0.25", "--to", "1.1", "--boomerang", "--speed", "1/2",
                               "--crop", "8x4+1+2"])
        #expect(run.status == 0, "\(run.stderr)")
        struct Output: Decodable {
            struct Edit: Decodable {
                var from: Int?; var to: Int?; var speed: [String: Int]; var reverse: Bool; var boomerang: Bool
                var crop: [String: Int]?; var framesDroppedBySpeed: Int; var source: [Int]
            }
            struct Frame: Decodable { var index: Int; var delay: Int; var start: Int }
            var edit: Edit
            var frames: [Frame]
            var canvas: [String: Int]
            var duration: [String: Double]
        }
        let output = try JSONDecoder().decode(Output.self, from: run.stdout)
        // Cut [25, 110): sources 1 2 3 4, delays 25 10 40 10; boomerang: 1 2 3 4 3 2, delays 25 10 40 10 40 10;
        // at half speed every delay doubles: 50 20 80 20 80 20, starts 0 50 70 150 170 250, end 270.
        #expect(output.edit.source == [1, 2, 3, 4, 3, 2])
        #expect(output.frames.map(\.delay) == [50, 20, 80, 20, 80, 20])
        #expect(output.frames.map(\.start) == [0, 50, 70, 150, 170, 250])
        #expect(output.frames.map(\.index) == Array(0..<6))
        #expect(output.duration["centiseconds"] == 270)
        #expect(output.canvas == ["width": 8, "height": 4])
        #expect(output.edit.from == 25 && output.edit.to == 110)
        #expect(output.edit.speed == ["num": 1, "den": 2])
        #expect(output.edit.boomerang && !output.edit.reverse)
        #expect(output.edit.crop == ["x": 1, "y": 2, "width": 8, "height": 4])
        #expect(output.edit.framesDroppedBySpeed == 0)
        // convert's .timeline.json output of the same edit is the same bytes.
        let json = folder.appendingPathComponent("edited.timeline.json")
        let converted = try runGifx(["convert", input, "-o", json.path, "--from", "0.25", "--to", "1.1", "--boomerang",
                                     "--speed", "1/2", "--crop", "8x4+1+2"])
        #expect(converted.status == 0, "\(converted.stderr)")
        #expect(try Data(contentsOf: json) == run.stdout)
    }

    @Test func badEditsAreOneLineUsageErrorsAndWriteNothing() throws {
        let folder = try temporaryFolder()
        let input = try writeGIF(Self.fiveColours, to: folder)
        let out = folder.appendingPathComponent("x.mp4").path
        let cases: [(arguments: [String], message: String)] = [
            (["--from", "0.125"], "at most 2 decimals"),
            (["--from", "-1"], "--from"),
            (["--from", "1", "--to", "0.5"], "--to 0.50 must be after --from 1.00"),
            (["--from", "1.25"], "--from 1.25 is at or after the end of the GIF (1.25 s)"),
            (["--speed", "0"], "--speed 0"),
            (["--speed", "fast"], "--speed fast"),
            (["--speed", "300"], "--speed 300 leaves less than 1 cs"),
            (["--crop", "16x16+1+0"], "--crop 16x16+1+0 reaches outside the 16x16 canvas"),
            (["--crop", "16x16"], "--crop 16x16: give WxH+X+Y"),
            (["--crop", "0x4+0+0"], "--crop 0x4+0+0"),
            (["--reverse", "--verify"], "--verify"),
        ]
        for (arguments, message) in cases {
            let run = try runGifx(["to-mp4", input, "-o", out] + arguments)
            #expect(run.status == 64, "\(arguments): \(run.status) \(run.stderr)")
            #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out), "\(arguments)")
        }
    }
}
