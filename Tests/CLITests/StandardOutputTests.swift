import ChildProcesses
import Foundation
import GifFixtures
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `-o -` (issue 26): every output kind to standard output, read from a real pipe by an independent reader
/// (ffprobe, webpmux, Pillow's PNG reading through our PNGReader), a reader that goes away, and the rules
/// (format named, one output, no --stats, nothing left behind, no file named `-`).
@Suite struct StandardOutputTests {
    /// 21 frames of cycling colours and delays of 2 cs or more: 255 cs in all, known without gifx. Longer than
    /// two seconds, so a piped MP4 has several fragments (a colour change is a scene cut, so a keyframe) and
    /// its container duration cannot come from the first alone (gifx before filling in the moov: 1.15 s).
    static let delays = Array(repeating: [10, 20, 5, 7, 30, 10, 3], count: 3).flatMap { $0 }
    static let fixture = FixtureGIF.solidFrames(
        width: 32, height: 32, colorIndices: (0..<21).map { UInt8(1 + $0 % 7) }, delays: delays)
    static let totalCentiseconds = delays.reduce(0, +)

    /// Runs `script` in bash in `folder` with `GIFX` and `IN` set, TMPDIR private to the run.
    static func bash(_ script: String, in folder: URL, input: String) throws -> CapturedRun {
        let tmp = folder.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["GIFX"] = gifxExecutable().path
        environment["IN"] = input
        environment["TMPDIR"] = tmp.path
        return try CapturedRun.run(
            "/bin/bash", ["-c", "cd '\(folder.path)' && " + script], environment: environment, timeout: 60 * testTimeScale)
    }

    /// ffprobe's packet count and every duration it reports (the stream's and the container's; "N/A" where it
    /// has none: a piped WebM's stream) of a video read from its standard input.
    static func probeCountAndDurations(_ text: String) -> (count: Int, seconds: [Double]) {
        var count = 0
        var durations: [Double] = []
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            if parts[0] == "nb_read_packets" { count = Int(parts[1]) ?? 0 }
            if parts[0] == "duration", let seconds = Double(parts[1]) { durations.append(seconds) }
        }
        return (count, durations)
    }

    @Test(.enabled(if: ffprobeAvailable(), "ffprobe (Debian package ffmpeg), the oracle, is not installed"), arguments: [
        ("to-mp4 - -o -", [String]()), ("to-mp4 - -o mp4:-", ["--vfr"]), ("convert - -o webm:-", []),
        ("convert - -o webm:-", ["--vfr"]), ("to-mp4 - -o -", ["--codec", "hevc", "--vfr"]),
    ])
    func videoThroughAPipeHasTheGIFsFramesAndDuration(_ command: String, _ extra: [String]) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.fixture, to: folder)
        let vfr = extra.contains("--vfr")
        let run = try Self.bash(
            "\"$GIFX\" \(command) --quiet \(extra.joined(separator: " ")) < \"$IN\" | "
                + "ffprobe -v error -select_streams v -count_packets -show_entries stream=nb_read_packets,duration:format=duration "
                + "-of default=nw=1 - ; "
                + "echo \"status ${PIPESTATUS[0]} ${PIPESTATUS[1]}\" >&2",
            in: folder, input: input)
        #expect(run.stderrText.contains("status 0 0"), "\(run.stderrText)")
        let (count, durations) = Self.probeCountAndDurations(run.stdoutText)
        // Tick 1 cs (GCD of the delays): one frame per cs in CFR, one per GIF frame in VFR.
        #expect(count == (vfr ? Self.delays.count : Self.totalCentiseconds))
        // The container's duration too: a piped MP4's moov carries it (filled in as it goes out), a WebM's header.
        #expect(!durations.isEmpty && durations.allSatisfy { abs($0 - Double(Self.totalCentiseconds) / 100) < 0.0005 },
                "\(durations)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("tmp").path).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("-").path))
    }

    @Test func aPipedMP4IsFragmentedWithItsMoovFirst() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.fixture, to: folder)
        let run = try runGifx(["to-mp4", input, "-o", "-", "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        let boxes = topLevelBoxes(run.stdout)
        #expect(boxes.first == "ftyp")
        #expect(boxes.dropFirst().first == "moov", "\(boxes)")
        #expect(boxes.contains("moof") && boxes.contains("mdat"), "\(boxes)")
    }

    @Test(.enabled(if: oracleAvailable("webpmux"), "webpmux (Debian package webp), the oracle, is not installed"))
    func stillsWebPTimelineAndSheetGoOutWhole() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.fixture, to: folder)
        // PNG poster: the first frame, 16x12, read by our PNG reader.
        let png = try runGifx(["convert", input, "-o", "png:-", "--quiet"])
        #expect(png.status == 0, "\(png.stderr)")
        let posterPath = folder.appendingPathComponent("piped.png").path
        try png.stdout.write(to: URL(fileURLWithPath: posterPath))
        let image = try readPNGAsRGBA(posterPath)
        #expect(image.width == 32 && image.height == 32)
        // WebP: webpmux reads the frames and their durations.
        let webpPath = folder.appendingPathComponent("piped.webp").path
        let webp = try runGifx(["convert", input, "-o", "webp:-", "--quiet"])
        #expect(webp.status == 0, "\(webp.stderr)")
        try webp.stdout.write(to: URL(fileURLWithPath: webpPath))
        let info = try CapturedRun.run(Oracle.tool("webpmux"), ["-info", webpPath]).stdoutText
        #expect(info.contains("Number of frames: \(Self.delays.count)"), "\(info)")
        // The timeline JSON: the same bytes as `timeline --json`.
        let timeline = try runGifx(["convert", input, "-o", "timeline:-", "--quiet"])
        let reference = try runGifx(["timeline", input, "--json"])
        #expect(timeline.status == 0 && timeline.stdout == reference.stdout)
        // The sheet: PNG on standard output, JSON in a file naming the image after itself.
        let json = folder.appendingPathComponent("sheet.json").path
        let sheet = try runGifx(["to-sprite", input, "-o", "-", "--json", json, "--quiet"])
        #expect(sheet.status == 0, "\(sheet.stderr)")
        let sheetPath = folder.appendingPathComponent("sheet.png").path
        try sheet.stdout.write(to: URL(fileURLWithPath: sheetPath))
        let sheetImage = try readPNGAsRGBA(sheetPath)
        #expect(sheetImage.width % 32 == 0 && sheetImage.height % 32 == 0)
        #expect(sheetImage.width * sheetImage.height >= 32 * 32 * Self.delays.count)
        let description = try String(contentsOfFile: json, encoding: .utf8)
        #expect(description.contains("\"sheet.png\""), "\(description)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("-").path))
    }

    @Test func aReaderThatGoesAwayEndsTheRunQuietlyWith141() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Noise, so the MP4 is far larger than a pipe's 64 KiB buffer: gifx must meet EPIPE.
        var rng = SplitMix64(seed: 26)
        let frames = (0..<60).map { _ in
            FixtureFrame(width: 160, height: 120, indices: (0..<(160 * 120)).map { _ in UInt8(rng.next() & 7) }, delay: 4)
        }
        let input = try writeGIF(FixtureGIF(width: 160, height: 120, frames: frames), to: folder)
        for output in ["-o -", "-o webp:-"] {
            let command = output.contains("webp") ? "convert" : "to-mp4"
            let run = try Self.bash(
                "\"$GIFX\" \(command) \"$IN\" \(output) | head -c 100 > /dev/null; echo \"status ${PIPESTATUS[0]}\"",
                in: folder, input: input)
            #expect(run.stdoutText.contains("status 141"), "\(output): \(run.stdoutText) \(run.stderrText)")
            #expect(!run.stderrText.contains("gifx:"), "quiet: \(run.stderrText)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("tmp").path).isEmpty)
            #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder.path)) == ["in.gif", "tmp"])
        }
    }

    @Test func theRulesAreOneLineEach() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.fixture, to: folder)
        let cases: [([String], String)] = [
            (["convert", input, "-o", "-"], "name the format"),
            (["convert", input, "-o", "mp4:-", "-o", "webm:-"], "only one output"),
            (["to-mp4", input, "-o", "-", "--stats"], "--stats"),
            (["to-mp4", input, "-o", "webm:-"], "to-mp4 writes MP4"),
            (["to-sprite", input, "-o", "-"], "--json FILE"),
        ]
        for (arguments, words) in cases {
            let run = try runGifx(arguments)
            #expect(run.status == 64, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains(words), "\(arguments): \(run.stderr)")
        }
        // A stale file named `-` is neither read nor replaced, and no error names <stdin> for an output.
        let stale = folder.appendingPathComponent("-")
        try Data("stale".utf8).write(to: stale)
        let run = try Self.bash("\"$GIFX\" to-mp4 - -o - --quiet < \"$IN\" | wc -c", in: folder, input: input)
        #expect((Int(run.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 1000, "\(run.stderrText)")
        #expect(try Data(contentsOf: stale) == Data("stale".utf8))
    }

    // script(1) gives gifx a pseudo-terminal as standard output.
    @Test(.enabled(if: oracleAvailable("script"), "script(1) (Debian package bsdutils) is not installed"))
    func binaryOutputToATerminalIsRefused() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.fixture, to: folder)
        let run = try Self.bash(
            "script -qec \"\\\"$GIFX\\\" to-mp4 \\\"$IN\\\" -o -; echo status \\$?\" /dev/null", in: folder, input: input)
        #expect(run.stdoutText.contains("is a terminal"), "\(run.stdoutText)")
        #expect(run.stdoutText.contains("status 64"), "\(run.stdoutText)")
    }
}

/// The four-character types of an ISO BMFF file's top-level boxes, in order.
func topLevelBoxes(_ data: Data) -> [String] {
    var boxes: [String] = []
    var offset = 0
    let bytes = [UInt8](data)
    while offset + 8 <= bytes.count {
        var size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
        if size == 1, offset + 16 <= bytes.count { size = bytes[offset + 8..<offset + 16].reduce(0) { $0 << 8 | Int($1) } }
        guard size >= 8 else { break }
        boxes.append(type)
        offset += size
    }
    return boxes
}
