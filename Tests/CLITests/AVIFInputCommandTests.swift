import ChildProcesses
import Foundation
import GifFixtures
import Testing

/// Every path reads AVIF (issue 59), judged by independent oracles: avifenc's own `--timescale`/`--duration`
/// values (the schedule), `avifdec --index i -d 8` (each frame, compared pixel for pixel by Pillow), gifx's AVIF
/// writer's edit list (the plays: 1, 3, forever) read back, and `gifx verify` of a video made from an AVIF.
@Suite(.enabled(if: AVIFCLIFixtures.available, "avifenc/avifdec (libavif-bin), Pillow, ffprobe or webpmux (webp) is not installed (make deps)"))
struct AVIFInputCommandTests {
    func timelineJSON(_ arguments: [String]) throws -> [String: Any] {
        let run = try runGifx(["timeline"] + arguments + ["--json"], timeout: 60)
        #expect(run.status == 0, "\(run.stderr)")
        return try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any] ?? [:]
    }

    func delays(_ json: [String: Any]) -> [Int] { (json["frames"] as? [[String: Any]] ?? []).compactMap { $0["delay"] as? Int } }
    func rules(_ json: [String: Any]) -> [String] { (json["frames"] as? [[String: Any]] ?? []).compactMap { $0["rule"] as? String } }
    func plays(_ json: [String: Any]) -> Int?? {
        guard let loop = json["loop"] as? [String: Any] else { return .none }
        return .some(loop["plays"] as? Int)
    }

    /// 40/70/100/1000 ms at 1/1000 s: the issue's file; the schedule is exact in the file's timescale, under both
    /// policies (no frame at or below 10 ms); avifenc 0.11 writes no edit list, which browsers loop forever.
    @Test func timelineIsTheFilesDurationsInItsTimescale() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let avif = try AVIFCLIFixtures.sequence(in: folder, durations: [40, 70, 100, 1000], timescale: 1000)
        for policy in ["flanimated", "browser"] {
            let t = try timelineJSON([avif, "--policy", policy])
            #expect(t["format"] as? String == "avif")
            #expect(t["timescale"] as? Int == 1000)
            #expect(delays(t) == [40, 70, 100, 1000])
            #expect((t["duration"] as? [String: Any])?["units"] as? Int == 1210)
            #expect((t["tick"] as? [String: Any])?["units"] as? Int == 10)
            #expect(plays(t) == .some(nil), "forever")
            #expect((t["canvas"] as? [String: Int]) == ["width": 33, "height": 17])
        }
        // A timescale of 30 (avifenc's --fps default) is kept: 1, 2 and 3 thirtieths of a second.
        let thirty = try AVIFCLIFixtures.sequence(in: folder, durations: [1, 2, 3], timescale: 30, name: "thirty")
        let t = try timelineJSON([thirty])
        #expect(t["timescale"] as? Int == 30)
        #expect(delays(t) == [1, 2, 3])
        #expect((t["duration"] as? [String: Any])?["units"] as? Int == 6)
    }

    /// A cut is given in cs: at 1/30 s (avifenc's default), 0.15 s is 4.5 units, so the schedule is restated in
    /// 1/300 s first, exactly; frames of 0.1, 0.2 and 0.3 s cut to [0.15, 0.45) keep 0.15 s of the second and of
    /// the third (before, the cut read the units as cs: one frame of 0.1 s).
    @Test func aCutOnAThirtiethOfASecondTimescaleIsExact() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let avif = try AVIFCLIFixtures.sequence(in: folder, durations: [3, 6, 9], timescale: 30)
        let t = try timelineJSON([avif, "--from", "0.15", "--to", "0.45"])
        #expect(t["timescale"] as? Int == 300)
        #expect(delays(t) == [45, 45])
        #expect((t["duration"] as? [String: Any])?["units"] as? Int == 90)
    }

    /// Frames of 10 ms or less play 100 ms in browsers (in every image format); under `flanimated`, below 11 ms.
    /// At 1/1001 s, 10/1001 s (9.99 ms) is raised: the schedule's timescale becomes 10010 so 100 ms is whole.
    @Test func shortFramesAreRaisedTo100msAsForWebPAndAPNG() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let avif = try AVIFCLIFixtures.sequence(in: folder, durations: [5, 10, 11, 40], timescale: 1000)
        let browser = try timelineJSON([avif, "--policy", "browser"])
        #expect(delays(browser) == [100, 100, 11, 40])
        #expect(rules(browser) == ["rounded-up", "rounded-up", "raw", "raw"])
        let flanimated = try timelineJSON([avif, "--policy", "flanimated"])
        #expect(delays(flanimated) == [100, 100, 11, 40])

        let ntsc = try AVIFCLIFixtures.sequence(in: folder, durations: [10, 1001, 2002], timescale: 1001, name: "ntsc")
        let n = try timelineJSON([ntsc, "--policy", "browser"])
        #expect(n["timescale"] as? Int == 10010)
        #expect(delays(n) == [1001, 10010, 20020])
        #expect(rules(n) == ["rounded-up", "raw", "raw"])
    }

    /// Each frame as `gifx frames` writes it equals `avifdec --index i -d 8`'s PNG, pixel for pixel (RGBA; an
    /// opaque file's PNG is RGB, read as alpha 255): 8-bit 4:4:4 with alpha at an odd size, 10-bit 4:2:0, 12-bit
    /// 4:2:2 and limited-range 10-bit 4:2:0 without alpha (converted as RGB, as avifdec does: libavif's RGBA path
    /// through libyuv rounds differently, by up to 3 levels on AOMediaCodec/av1-avif's Link-U fox), and a still image.
    @Test(arguments: [
        ["-y", "444"], ["-d", "10", "-y", "420"], ["-d", "12", "-y", "422", "opaque"],
        ["-d", "10", "-y", "420", "-r", "limited", "opaque"], ["--still"],
    ])
    func framesEqualAvifdecPixelForPixel(_ options: [String]) throws {
        let folder = try temporaryFolder("frames\(options.joined())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let still = options == ["--still"]
        let avif = try AVIFCLIFixtures.sequence(
            in: folder, durations: still ? [1] : [3, 5, 7], timescale: 100, extra: still ? [] : options.filter { $0 != "opaque" },
            still: still, opaque: options.contains("opaque"))
        let out = folder.appendingPathComponent("frames")
        let run = try runGifx(["frames", avif, "--out", out.path, "--quiet"], timeout: 60)
        #expect(run.status == 0, "\(run.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasSuffix(".png") }.sorted()
        #expect(written.count == (still ? 1 : 3))
        for (index, name) in written.enumerated() {
            let reference = folder.appendingPathComponent("ref-\(index).png").path
            let decode = try CapturedRun.run(
                Oracle.tool("avifdec"), ["--index", "\(index)", "-d", "8", avif, reference], timeout: 60)
            #expect(decode.status == 0, "\(String(decoding: decode.stderr, as: UTF8.self))")
            let verdict = try AVIFCLIFixtures.compare(out.appendingPathComponent(name).path, reference)
            #expect(verdict == "equal", "frame \(index): \(verdict)")
        }
    }

    /// GIF → gifx's AVIF → gifx reads back the GIF's schedule and its plays (the edit list gifx's writer makes):
    /// 10/20/30/40 cs; once, 3 times, forever.
    @Test(arguments: [([Int](), "browser", 1 as Int?), ([2], "browser", 3), ([0], "browser", nil), ([2], "flanimated", 2)])
    func roundTripThroughGifxsAVIFKeepsScheduleAndPlays(_ loopCounts: [Int], _ policy: String, _ wanted: Int?) throws {
        let folder = try temporaryFolder("roundTrip\(loopCounts)\(policy)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var gif = FixtureGIF.solidFrames(width: 64, height: 64, colorIndices: [1, 2, 3, 4], delays: [10, 20, 30, 40])
        gif.loopCounts = loopCounts
        let input = try writeGIF(gif, to: folder)
        let avif = folder.appendingPathComponent("a.avif").path
        let run = try runGifx(["convert", input, "-o", avif, "--policy", policy, "--preset", "ultrafast", "--quiet"], timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        let t = try timelineJSON([avif, "--policy", policy])
        let scale = t["timescale"] as? Int ?? 1
        // The same delays in seconds: d / timescale == cs / 100.
        #expect(delays(t).map { $0 * 100 } == [10, 20, 30, 40].map { $0 * scale }, "\(delays(t)) at 1/\(scale) s")
        #expect(plays(t) == .some(wanted), "\(String(describing: t["loop"]))")
    }

    /// `gifx to-mp4 in.avif` is exact: `gifx verify` with the AVIF as the source finds every frame on time (0 ms).
    @Test func toMP4FromAnAVIFVerifiesExactly() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let avif = try AVIFCLIFixtures.sequence(in: folder, durations: [40, 70, 100, 1000], timescale: 1000, opaque: true)
        let mp4 = folder.appendingPathComponent("o.mp4").path
        let run = try runGifx(["to-mp4", avif, "-o", mp4, "--vfr", "--preset", "ultrafast", "--quiet"], timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        let verify = try runGifx(["verify", avif, mp4, "--min-psnr", "20"], timeout: 120)
        #expect(verify.status == 0, "\(verify.stderr) \(verify.stdoutText)")
        let times = try CapturedRun.run(
            Oracle.tool("ffprobe"),
            ["-v", "error", "-select_streams", "v", "-show_entries", "packet=pts_time,duration_time", "-of", "csv=p=0", mp4])
        let lines = String(decoding: times.stdout, as: UTF8.self).split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
        #expect(lines.map { $0.first ?? "" } == ["0.000000", "0.040000", "0.110000", "0.210000"], "\(lines)")
        #expect(lines.last?.last == "1.000000", "\(lines)")
    }

    /// A cut file, a frame-count bomb, a PQ (HDR) file: one line, exit 65, nothing written.
    @Test func badFilesAreRefusedInOneLineAndNothingIsWritten() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let avif = try AVIFCLIFixtures.sequence(in: folder, durations: [40, 70, 100, 1000], timescale: 1000)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: avif)))
        var cases: [(String, [UInt8])] = [("cut-header", Array(bytes.prefix(40))), ("cut-half", Array(bytes.prefix(bytes.count / 2))),
            ("cut-last", Array(bytes.dropLast(10)))]
        // The bomb: a chunk of a million one-byte samples (stsz sample_size 1, sample_count 1,000,000; stsc's first
        // samples_per_chunk 1,000,000), more frames than the file has bytes.
        var bomb = bytes
        func put(_ value: UInt32, at offset: Int) {
            for k in 0..<4 { bomb[offset + k] = UInt8(truncatingIfNeeded: value >> (8 * (3 - k))) }
        }
        let stsz = try #require(AVIFCLIFixtures.find("stsz", in: bytes))
        let stsc = try #require(AVIFCLIFixtures.find("stsc", in: bytes))
        put(1, at: stsz + 12)
        put(1_000_000, at: stsz + 16)
        put(1_000_000, at: stsc + 20)
        cases.append(("bomb", bomb))
        cases.append(("pq", [UInt8](try Data(contentsOf: URL(fileURLWithPath: try AVIFCLIFixtures.sequence(
            in: folder, durations: [1, 1], timescale: 10, extra: ["--cicp", "9/16/9"], name: "pq"))))))
        for (name, data) in cases {
            let path = folder.appendingPathComponent("\(name).avif").path
            try Data(data).write(to: URL(fileURLWithPath: path))
            let out = folder.appendingPathComponent("\(name).mp4").path
            let run = try runGifx(["to-mp4", path, "-o", out, "--preset", "ultrafast"], timeout: 60)
            #expect(run.status == 65, "\(name): \(run.stderr)")
            #expect(run.stderrLines.count == 1, "\(name): \(run.stderr)")
            #expect(run.stderr.contains("AVIF"), "\(name): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out), "\(name)")
            if name == "bomb" { #expect(run.stderr.contains("imageCountLimit"), "\(run.stderr)") }
            if name == "pq" { #expect(run.stderr.contains("HDR (PQ"), "\(run.stderr)") }
        }
    }

    /// dav1d's pictures are in the memory plan: a 1920×1080 4:4:4 sequence with alpha (the AV1 decoder holds about
    /// 10 colour and 10 alpha pictures: 83 MiB), converted just above the smallest budget gifx accepts, peaks within
    /// the budget + 10 % (GNU time's `%M`, as MemoryBudgetTests measure it).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "GNU time (Debian package time) is not installed"),
        arguments: [["convert", "-o", "o.webp"], ["to-mp4", "-o", "o.mp4", "--preset", "ultrafast"]])
    func dav1dsPicturesStayInsideTheMemoryBudget(_ words: [String]) throws {
        let folder = try temporaryFolder("memory\(words[0])")
        defer { try? FileManager.default.removeItem(at: folder) }
        let frames = folder.appendingPathComponent("frames")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        let draw = try CapturedRun.run(Oracle.tool("ffmpeg"), [
            "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=25", "-frames:v", "6",
            "-vf", "format=rgba,geq=r='r(X,Y)':g='g(X,Y)':b='b(X,Y)':a='128+127*sin(X/20)'", frames.path + "/%d.png",
        ], timeout: 120)
        #expect(draw.status == 0)
        let avif = folder.appendingPathComponent("big.avif").path
        let encode = try CapturedRun.run(
            Oracle.tool("avifenc"),
            ["-s", "10", "-j", "2", "--fps", "25", "-y", "444", "-a", "end-usage=q", "-a", "cq-level=40"]
                + (1...6).map { frames.path + "/\($0).png" } + ["-o", avif], timeout: 300)
        #expect(encode.status == 0, "\(String(decoding: encode.stderr, as: UTF8.self))")
        let arguments = [words[0], avif] + words.dropFirst().map { $0.hasPrefix("o.") ? folder.appendingPathComponent($0).path : $0 }
            + ["--threads", "2", "--quiet"]
        let refused = try runGifx(arguments + ["--memory-budget", "1M"], timeout: 60)
        #expect(refused.status == 78, "\(refused.stderr)")
        let smallest = try #require(refused.stderrLines.first?.split(separator: " ").dropLast().last.flatMap { Int($0) })
        #expect(smallest >= 83 + 24, "the plan counts dav1d's pictures: \(refused.stderr)")
        let budget = (smallest + 24) << 20
        let report = folder.appendingPathComponent("time.txt").path
        let run = try CapturedRun.run(
            "/usr/bin/time", ["-f", "%M", "-o", report, gifxExecutable().path] + arguments + ["--memory-budget", "\(budget)"],
            timeout: 300 * testTimeScale)
        #expect(run.status == 0, "\(String(decoding: run.stderr, as: UTF8.self))")
        let kibibytes = try #require(Int(String(contentsOfFile: report, encoding: .utf8).split(separator: "\n").last ?? ""))
        #expect(Double(kibibytes << 10) <= Double(budget) * 1.10, "peak \(kibibytes >> 10) MiB over a budget of \(budget >> 20) MiB")
    }

    /// A `mif1` major brand with `avis` compatible is an AVIF (the old 12-byte sniff missed it); an MP4 is not.
    @Test func theProbeReadsTheCompatibleBrands() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let avif = try AVIFCLIFixtures.sequence(in: folder, durations: [3, 4], timescale: 100)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: avif)))
        #expect(Array(bytes[8..<12]) == Array("avis".utf8))
        bytes.replaceSubrange(8..<12, with: Array("mif1".utf8))
        let path = folder.appendingPathComponent("mif1.avif").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(delays(try timelineJSON([path])) == [3, 4])
    }

    /// to-sprite, convert (WebP: exact ms, webpmux reads the durations), batch from a folder (*.avif).
    @Test func spriteConvertAndBatchReadAVIF() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let library = folder.appendingPathComponent("lib")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        let made = try AVIFCLIFixtures.sequence(in: folder, durations: [40, 70, 100], timescale: 1000, name: "anim")
        let avif = library.appendingPathComponent("anim.avif").path
        try FileManager.default.moveItem(atPath: made, toPath: avif)
        let sheet = folder.appendingPathComponent("s.png").path
        let sprite = try runGifx(["to-sprite", avif, "-o", sheet, "--quiet"], timeout: 120)
        #expect(sprite.status == 0, "\(sprite.stderr)")
        let description = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: folder.appendingPathComponent("s.json").path))) as? [String: Any]
        #expect((description?["frames"] as? [Any])?.count == 3)

        let webp = folder.appendingPathComponent("c.webp").path
        let convert = try runGifx(["convert", avif, "-o", webp, "--quiet"], timeout: 120)
        #expect(convert.status == 0, "\(convert.stderr)")
        #expect(try AVIFCLIFixtures.webpmuxDurations(webp) == [40, 70, 100])

        let out = folder.appendingPathComponent("out")
        let batch = try runGifx(["batch", "timeline", library.path, "--out-dir", out.path, "--quiet"], timeout: 120)
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == ["anim.timeline.json"])
    }
}

/// AVIF fixtures written by avifenc from RGBA PNGs drawn by Pillow, and Pillow's readings.
enum AVIFCLIFixtures {
    static let available: Bool = {
        guard oracleAvailable("avifenc", "avifdec", "ffprobe", "webpmux", "python3") else { return false }
        return (try? CapturedRun.run(Oracle.tool("python3"), ["-c", "import PIL"]).status) == 0
    }()

    /// A 33×17 RGBA sequence (random pixels and alpha) of `durations.count` frames lasting `durations` in
    /// `1 / timescale` s; `still`: one still image (no track); `opaque`: RGB frames (no alpha plane).
    static func sequence(
        in folder: URL, durations: [Int], timescale: Int, extra: [String] = [], still: Bool = false, name: String = "seq",
        opaque: Bool = false
    ) throws -> String {
        let script = """
            import random, sys
            from PIL import Image
            random.seed(7)
            for i in range(int(sys.argv[1])):
                im = Image.new('RGBA', (33, 17), (60 * i % 256, 90, 200, 255))
                for k in range(60):
                    im.putpixel((random.randrange(33), random.randrange(17)), tuple(random.randrange(256) for _ in range(4)))
                (im.convert('RGB') if sys.argv[3] == 'opaque' else im).save(f'{sys.argv[2]}-{i}.png')
            """
        let stem = folder.appendingPathComponent(name).path
        let draw = try CapturedRun.run(
            Oracle.tool("python3"), ["-c", script, "\(durations.count)", stem, opaque ? "opaque" : "alpha"])
        guard draw.status == 0 else { throw CocoaError(.fileWriteUnknown) }
        var arguments = ["-s", "10", "-j", "1"] + extra
        if !still { arguments += ["--timescale", "\(timescale)"] }
        for (index, duration) in durations.enumerated() {
            if !still { arguments += ["--duration", "\(duration)"] }
            arguments.append("\(stem)-\(index).png")
        }
        let out = stem + ".avif"
        let run = try CapturedRun.run(Oracle.tool("avifenc"), arguments + ["-o", out])
        guard run.status == 0 else {
            Issue.record("avifenc \(arguments): \(String(decoding: run.stderr, as: UTF8.self))")
            throw CocoaError(.fileWriteUnknown)
        }
        return out
    }

    /// "equal" when both PNGs hold the same RGBA pixels (a PNG without alpha read as alpha 255), else the first
    /// difference.
    static func compare(_ a: String, _ b: String) throws -> String {
        let script = """
            import sys
            from PIL import Image
            a = Image.open(sys.argv[1]).convert('RGBA'); b = Image.open(sys.argv[2]).convert('RGBA')
            if a.size != b.size: print('sizes', a.size, b.size); sys.exit()
            x, y = a.tobytes(), b.tobytes()
            if x == y: print('equal'); sys.exit()
            i = next(k for k in range(len(x)) if x[k] != y[k]) // 4
            print('pixel', i, tuple(x[4 * i:4 * i + 4]), tuple(y[4 * i:4 * i + 4]))
            """
        let run = try CapturedRun.run(Oracle.tool("python3"), ["-c", script, a, b])
        return String(decoding: run.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            + String(decoding: run.stderr, as: UTF8.self)
    }

    /// Each frame's duration (ms) as `webpmux -info` lists them.
    static func webpmuxDurations(_ path: String) throws -> [Int] {
        let run = try CapturedRun.run(Oracle.tool("webpmux"), ["-info", path])
        return String(decoding: run.stdout, as: UTF8.self).split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count > 6, fields[0].hasSuffix(":"), Int(fields[0].dropLast()) != nil else { return nil }
            return Int(fields[6])
        }
    }

    /// The offset of the first box of `type` (its size field), searched as bytes.
    static func find(_ type: String, in bytes: [UInt8]) -> Int? {
        let pattern = Array(type.utf8)
        guard bytes.count >= 8 else { return nil }
        for at in 4..<(bytes.count - 4) where Array(bytes[at..<(at + 4)]) == pattern { return at - 4 }
        return nil
    }
}
