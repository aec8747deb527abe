import ChildProcesses
import Foundation
import Testing

/// Every subcommand reads animated WebP and APNG, told by content (issue 35). The inputs are written by
/// Pillow (the WebP, through libwebp's WebPAnimEncoder) and by a small chunk writer in Python (the APNG, with
/// delays as num/den); the outputs are judged by ffprobe (frames, durations), Pillow (the WebP output's
/// durations, the composited frames) and the delay rules of the issue's player table, worked out by hand:
///
/// - WebP 40, 70, 30, 100 ms: both policies keep them (nothing at or below 10 ms); tick 10 ms, 240 ms.
/// - APNG 1/30 s, 7/100 s, 0/0 (den 0 means 100: 0 s), 1/20 s:
///   `flanimated` (YYImage): 33⅓, 70, 100 (below 11 ms), 50 ms, exact in 1/3000 s units (100, 210, 300,
///   150; tick 10 units = 300 fps; 760 units = 253⅓ ms); `browser` (Chromium, Firefox): 33 (truncated),
///   70, 100, 50 ms, tick 1 ms, 253 ms.
@Suite(.enabled(if: AnimatedInputFixtures.available, "needs python3 with Pillow, ffprobe (make deps)"))
struct AnimatedInputTests {
    @Test func timelineReadsWebPAndAPNGUnderBothPolicies() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (webp, apng) = try AnimatedInputFixtures.write(into: folder)

        let w = try timelineJSON([webp])
        #expect(w["format"] as? String == "webp")
        #expect(w["timescale"] as? Int == 1000)
        #expect(delays(w) == [40, 70, 30, 100])
        #expect((w["tick"] as? [String: Any])?["units"] as? Int == 10)
        #expect((w["duration"] as? [String: Any])?["units"] as? Int == 240)
        #expect((w["loop"] as? [String: Any])?["plays"] as? Int == 2)
        #expect(try timelineJSON([webp, "--policy", "browser"])["loop"] as? [String: Int] == ["count": 2, "plays": 2])

        let f = try timelineJSON([apng])
        #expect(f["format"] as? String == "apng")
        #expect(f["timescale"] as? Int == 3000)
        #expect(delays(f) == [100, 210, 300, 150])
        #expect(rules(f) == ["raw", "raw", "rounded-up", "raw"])
        #expect((f["tick"] as? [String: Any])?["units"] as? Int == 10)
        #expect(((f["tick"] as? [String: Any])?["fps"] as? [String: Int]) == ["num": 300, "den": 1])
        #expect((f["duration"] as? [String: Any])?["units"] as? Int == 760)
        #expect((f["loop"] as? [String: Any])?["plays"] is NSNull)

        let b = try timelineJSON([apng, "--policy", "browser"])
        #expect(b["timescale"] as? Int == 1000)
        #expect(delays(b) == [33, 70, 100, 50])
        #expect(rules(b) == ["truncated", "raw", "rounded-up", "raw"])
        #expect((b["duration"] as? [String: Any])?["units"] as? Int == 253)

        // Standard input, told by content too.
        let piped = try runGifx(["timeline", "-", "--json"], stdin: Data(contentsOf: URL(fileURLWithPath: apng)))
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect((try JSONSerialization.jsonObject(with: piped.stdout) as? [String: Any])?["format"] as? String == "apng")
    }

    @Test func anythingElseIsRefusedInOneLine() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("x.webp").path
        try Data("BM not an image at all".utf8).write(to: URL(fileURLWithPath: path))
        for command in [["timeline"], ["to-mp4", "-o", folder.appendingPathComponent("o.mp4").path]] {
            let run = try runGifx(command + [path])
            #expect(run.status == 65)
            #expect(run.stderrLines == ["gifx: \(path): malformed GIF at byte 0: not a GIF, WebP, PNG or AVIF file (it starts with 42 4d 20 6e 6f 74 20 61)"])
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["x.webp"])
    }

    @Test func toMP4FromWebPAtTheTickAndFromAPNGAsVFR() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (webp, apng) = try AnimatedInputFixtures.write(into: folder)
        let mp4 = folder.appendingPathComponent("w.mp4").path
        let run = try runGifx(["to-mp4", webp, "-o", mp4, "--preset", "ultrafast"], timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        let w = try AnimatedInputFixtures.probe(mp4)
        #expect(w["nb_read_frames"] == "24")  // 240 ms at the 10 ms tick
        #expect(w["r_frame_rate"] == "100/1")
        #expect(abs((Double(w["duration"] ?? "") ?? 0) - 0.24) < 1e-6)

        let vfr = folder.appendingPathComponent("a.mp4").path
        let second = try runGifx(["to-mp4", apng, "-o", vfr, "--vfr", "--preset", "ultrafast"], timeout: 120)
        #expect(second.status == 0, "\(second.stderr)")
        let a = try AnimatedInputFixtures.probe(vfr)
        #expect(a["nb_read_frames"] == "4")
        // Frames 1-3 start at 33⅓, 103⅓, 203⅓ ms (ffprobe prints no time for frame 0 of this track; the
        // MP4's time base may round to its own unit: within 0.5 ms).
        let times = try AnimatedInputFixtures.frameTimes(vfr).suffix(3)
        #expect(times.count == 3)
        for (got, want) in zip(times, [1.0 / 30, 1.0 / 30 + 0.07, 1.0 / 30 + 0.17]) {
            #expect(abs(got - want) < 0.0005, "\(times)")
        }
        // Timing and frame identity (the 12×10 test pattern with half-transparent pixels loses a few dB in
        // 4:2:0 at ultrafast, hence the lower pixel bound).
        let verify = try runGifx(["verify", apng, vfr, "--quiet", "--min-psnr", "20"], timeout: 120)
        #expect(verify.status == 0, "\(verify.stderr)")
    }

    @Test func convertSpriteAndFramesFromAPNGAndWebP() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (webp, apng) = try AnimatedInputFixtures.write(into: folder)
        let out = folder.appendingPathComponent("c")
        let run = try runGifx([
            "convert", apng, "-o", out.path + ".webp", "-o", out.path + ".webm", "-o", out.path + ".timeline.json",
            "-o", out.path + ".png", "--quiet",
        ], timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        // The WebP output's schedule (read by Pillow): 33⅓ ms starts rounded to whole ms: 33, 70, 100, 50.
        let reading = try AnimatedInputFixtures.pillow(out.path + ".webp")
        #expect(reading.durations == [33, 70, 100, 50])
        #expect(reading.loop == 0)
        let inputFrames = try AnimatedInputFixtures.pillow(apng)
        #expect(reading.frames == inputFrames.frames, "lossless WebP output shows the APNG's composited frames")
        #expect(try AnimatedInputFixtures.probe(out.path + ".webm")["nb_read_frames"] != nil)

        let sheet = folder.appendingPathComponent("s.png").path
        let sprite = try runGifx(["to-sprite", webp, "-o", sheet, "--quiet"], timeout: 120)
        #expect(sprite.status == 0, "\(sprite.stderr)")
        let description = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: folder.appendingPathComponent("s.json").path))) as? [String: Any]
        #expect((description?["frames"] as? [Any])?.count == 4)

        let framesFolder = folder.appendingPathComponent("frames")
        let frames = try runGifx(["frames", webp, "--out", framesFolder.path], timeout: 120)
        #expect(frames.status == 0, "\(frames.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: framesFolder.path).sorted()
        #expect(written.count == 4)
        let webpFrames = try AnimatedInputFixtures.pillow(webp)
        for (name, want) in zip(written, webpFrames.frames) {
            #expect(try AnimatedInputFixtures.pillow(framesFolder.appendingPathComponent(name).path).frames.first == want)
        }
    }

    @Test func batchTakesWebPAndPNGFromAFolder() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let library = folder.appendingPathComponent("lib")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        _ = try AnimatedInputFixtures.write(into: library)
        try Data("not a png".utf8).write(to: library.appendingPathComponent("broken.png"))
        try Data("notes".utf8).write(to: library.appendingPathComponent("notes.txt"))
        let out = folder.appendingPathComponent("out")
        let run = try runGifx(["batch", "timeline", library.path, "--out-dir", out.path, "--quiet"], timeout: 120)
        #expect(run.status == 1)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: out.path)) == ["anim.timeline.json", "anim-apng.timeline.json"])
    }

    /// A streamed video (`-o mp4:-`, `-o webm:-`) declares its duration in the header before any packet. From a
    /// WebP (ms) or an APNG (1/3000 s units) that header said 10× the schedule (the plan's units read as cs:
    /// 2.400 s for the WebP's 240 ms, issue 57); a file said the right length. ffprobe reads the container's
    /// and the stream's durations from the pipe; the expected lengths are the fixture's own delays (above).
    @Test(arguments: [
        ("webp", "to-mp4 IN -o mp4:-", [String](), 0.240), ("webp", "convert IN -o webm:-", [], 0.240),
        ("webp", "to-mp4 IN -o mp4:-", ["--vfr"], 0.240),
        ("apng", "to-mp4 IN -o mp4:-", [], 0.760 / 3), ("apng", "convert IN -o webm:-", ["--vfr"], 0.760 / 3),
    ])
    func streamedVideoDeclaresTheScheduleDuration(_ input: String, _ command: String, _ extra: [String], _ seconds: Double) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (webp, apng) = try AnimatedInputFixtures.write(into: folder)
        let path = input == "webp" ? webp : apng
        let run = try StandardOutputTests.bash(
            "\"$GIFX\" \(command.replacingOccurrences(of: "IN", with: "\"$IN\"")) --quiet --preset ultrafast "
                + "\(extra.joined(separator: " ")) | ffprobe -v error -select_streams v -show_entries "
                + "stream=duration:format=duration -of default=nw=1 - ; echo \"status ${PIPESTATUS[0]} ${PIPESTATUS[1]}\" >&2",
            in: folder, input: path)
        #expect(run.stderrText.contains("status 0 0"), "\(run.stderrText)")
        let durations = StandardOutputTests.probeCountAndDurations(run.stdoutText).seconds
        // Within a millisecond: Matroska counts whole ms (253⅓ ms is written 253).
        #expect(!durations.isEmpty && durations.allSatisfy { abs($0 - seconds) < 0.001 }, "\(input) \(command) \(extra): \(durations)")
    }

    /// `gifx verify` checks what a video declares against the schedule (issue 57): the WebP's piped MP4 with its
    /// `mvhd`, `tkhd` and `mdhd` durations multiplied by 10 (what ec802e3 wrote) fails with the declared and the
    /// scheduled length, and counts its frames as one play (before, it read the header as 10 plays and reported 36
    /// GIF frames missing); the file as written verifies.
    @Test func verifyFailsADeclaredDurationThatIsNotTheSchedules() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (webp, _) = try AnimatedInputFixtures.write(into: folder)
        let good = folder.appendingPathComponent("good.mp4").path
        let run = try StandardOutputTests.bash(
            "\"$GIFX\" convert \"$IN\" -o mp4:- --quiet --preset ultrafast > good.mp4", in: folder, input: webp)
        #expect(run.status == 0, "\(run.stderrText)")
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: good)))
        func scale(_ start: Int, _ end: Int) {
            var at = start
            while at + 8 <= end {
                let size = (0..<4).reduce(0) { $0 << 8 | Int(bytes[at + $1]) }
                let kind = String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self)
                guard size >= 8, at + size <= end else { return }
                let field: Int? = kind == "mvhd" || kind == "mdhd" ? at + 24 : kind == "tkhd" ? at + 28
                    : kind == "mehd" ? at + 12 : nil
                if ["moov", "trak", "mvex", "mdia"].contains(kind) { scale(at + 8, at + size) }
                if let field, bytes[at + 8] == 0 {  // version 0: a 32-bit duration
                    let value = (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[field + $1]) } * 10
                    for k in 0..<4 { bytes[field + k] = UInt8(truncatingIfNeeded: value >> (8 * (3 - k))) }
                }
                at += size
            }
        }
        scale(0, bytes.count)
        let bad = folder.appendingPathComponent("bad.mp4").path
        try Data(bytes).write(to: URL(fileURLWithPath: bad))
        // (the 12×10 pattern with half-transparent pixels loses a few dB in 4:2:0 at ultrafast)
        let failed = try runGifx(["verify", webp, bad, "--min-psnr", "20"], timeout: 120)
        #expect(failed.status == 1, "\(failed.stdoutText) \(failed.stderr)")
        #expect(failed.stdoutText.contains("declares 2.400 s, the schedule is 0.240 s"), "\(failed.stdoutText)")
        #expect(failed.stdoutText.contains("(1 play); missing 0"), "\(failed.stdoutText)")
        let passed = try runGifx(["verify", webp, good, "--quiet", "--min-psnr", "20"], timeout: 120)
        #expect(passed.status == 0, "\(passed.stdoutText) \(passed.stderr)")
    }

    /// Memory flat in frame count: 2,000 and 20,000 frames of 64×64 through `frames --null`, peak RSS of the
    /// gifx process as GNU time reads it (a child spawned straight from the test process would report the test
    /// process's own peak: Linux keeps the larger of the spawner's and the program's high-water mark across
    /// exec). The difference is what is kept per frame (metadata, schedule, libwebp's demuxer index, the
    /// mapped file's pages: a few hundred bytes a frame), never a canvas per frame (16 KiB each).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "/usr/bin/time (Debian package time) is absent"))
    func memoryStaysFlatInFrameCount() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var peaks: [String: [Int]] = [:]
        for count in [2_000, 20_000] {
            let (webp, apng) = try AnimatedInputFixtures.writeMany(count, into: folder)
            for (kind, path) in [("webp", webp), ("apng", apng)] {
                let report = folder.appendingPathComponent("time-\(kind)-\(count).txt")
                let run = try runGifx(["frames", path, "--null"], timeout: 300, through: ["/usr/bin/time", "-f", "%M", "-o", report.path])
                #expect(run.status == 0, "\(kind) \(count): \(run.stderr)")
                #expect(run.stdoutText.hasPrefix("\(count) frames 64x64"), "\(run.stdoutText)")
                let kilobytes = try String(contentsOf: report, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
                peaks[kind, default: []].append(try #require(Int(kilobytes)) * 1024)
            }
        }
        for (kind, pair) in peaks {
            // 18,000 more frames: under 10 MiB more (about 580 bytes a frame at most; a canvas is 16 KiB).
            #expect(pair[1] - pair[0] < 10 << 20, "\(kind): \(pair[0]) → \(pair[1]) bytes")
            #expect(pair[1] < 200 << 20)
        }
    }

    private func timelineJSON(_ arguments: [String]) throws -> [String: Any] {
        let run = try runGifx(["timeline", "--json"] + arguments)
        #expect(run.status == 0, "\(run.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
    }

    private func delays(_ json: [String: Any]) -> [Int] {
        ((json["frames"] as? [[String: Any]]) ?? []).compactMap { $0["delay"] as? Int }
    }

    private func rules(_ json: [String: Any]) -> [String] {
        ((json["frames"] as? [[String: Any]]) ?? []).compactMap { $0["rule"] as? String }
    }
}

enum AnimatedInputFixtures {
    static let available: Bool = {
        guard let run = try? CapturedRun.run("/usr/bin/env", ["python3", "-c", "import PIL"]), run.status == 0 else {
            return false
        }
        return onPath("ffprobe") != nil
    }()

    /// A tool found on PATH as a shell finds it (the oracles `make deps` installs).
    static func onPath(_ name: String) -> String? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return folders.lazy.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// `anim.webp` (Pillow, lossless, 40/70/30/100 ms, loop 2) and `anim-apng.png` (1/30, 7/100, 0/0, 1/20 s,
    /// plays forever): four 12×10 frames with transparency.
    static func write(into folder: URL) throws -> (webp: String, apng: String) {
        let script = #"""
            import struct, sys, zlib
            from PIL import Image
            folder = sys.argv[1]
            frames = []
            for k in range(4):
                im = Image.new("RGBA", (12, 10), (0, 0, 0, 0))
                for y in range(10):
                    for x in range(12):
                        if (x + y + k) % 3:
                            im.putpixel((x, y), (40 * k + 20, 200 - 30 * k, (x * 20) % 256, 255 if (x + k) % 4 else 128))
                frames.append(im)
            frames[0].save(folder + "/anim.webp", save_all=True, append_images=frames[1:], duration=[40, 70, 30, 100],
                           loop=2, lossless=True)
            def chunk(t, data):
                return struct.pack(">I", len(data)) + t + data + struct.pack(">I", zlib.crc32(t + data) & 0xffffffff)
            out = bytearray(b"\x89PNG\r\n\x1a\n")
            out += chunk(b"IHDR", struct.pack(">IIBBBBB", 12, 10, 8, 6, 0, 0, 0))
            out += chunk(b"acTL", struct.pack(">II", 4, 0))
            seq = 0
            for k, (num, den) in enumerate([(1, 30), (7, 100), (0, 0), (1, 20)]):
                out += chunk(b"fcTL", struct.pack(">IIIIIHHBB", seq, 12, 10, 0, 0, num, den, 0, 0)); seq += 1
                raw = b"".join(b"\0" + frames[k].tobytes()[y * 48:(y + 1) * 48] for y in range(10))
                data = zlib.compress(raw)
                if k == 0:
                    out += chunk(b"IDAT", data)
                else:
                    out += chunk(b"fdAT", struct.pack(">I", seq) + data); seq += 1
            out += chunk(b"IEND", b"")
            open(folder + "/anim-apng.png", "wb").write(out)
            """#
        let run = try CapturedRun.run("/usr/bin/env", ["python3", "-c", script, folder.path])
        guard run.status == 0 else { throw ToolRunError(description: "fixture writer: \(run.stderrText)") }
        return (folder.appendingPathComponent("anim.webp").path, folder.appendingPathComponent("anim-apng.png").path)
    }

    /// `many-N.webp` and `many-N.png`: `count` frames of 64×64, 16×16 sub-frames moving about (WebP: one
    /// lossless bitstream repeated in ANMF chunks, blend/dispose varying; APNG: its own data per frame,
    /// every dispose and blend op), 20 ms each.
    static func writeMany(_ count: Int, into folder: URL) throws -> (webp: String, apng: String) {
        let script = #"""
            import io, struct, sys, zlib
            from PIL import Image
            N = int(sys.argv[1]); base = sys.argv[2]; W = H = 64
            def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
            with open(base + ".png", "wb") as f:
                f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 6, 0, 0, 0))
                        + chunk(b"acTL", struct.pack(">II", N, 0)))
                seq = 0
                for k in range(N):
                    x, y = (0, 0) if k == 0 else ((k * 3) % (W - 16), (k * 7) % (H - 16))
                    w = h = W if k == 0 else 16
                    f.write(chunk(b"fcTL", struct.pack(">IIIIIHHBB", seq, w, h, x, y, 2, 100, k % 3, k % 2))); seq += 1
                    raw = b"".join(b"\0" + bytes([(k + r) & 255, 80, 200, 255 if r % 3 else 120] * w) for r in range(h))
                    d = zlib.compress(raw)
                    if k == 0:
                        f.write(chunk(b"IDAT", d))
                    else:
                        f.write(chunk(b"fdAT", struct.pack(">I", seq) + d)); seq += 1
                f.write(chunk(b"IEND", b""))
            b = io.BytesIO(); Image.new("RGBA", (16, 16), (200, 30, 90, 160)).save(b, "WEBP", lossless=True)
            vp8l = b.getvalue()[12:]
            def riff(t, d): return t + struct.pack("<I", len(d)) + d + (b"\0" if len(d) % 2 else b"")
            def u24(v): return struct.pack("<I", v)[:3]
            body = riff(b"VP8X", bytes([0x12, 0, 0, 0]) + u24(W - 1) + u24(H - 1)) + riff(b"ANIM", struct.pack("<IH", 0, 0))
            frames = [riff(b"ANMF", u24(((k * 4) % (W - 16)) // 2) + u24(((k * 6) % (H - 16)) // 2) + u24(15) + u24(15)
                           + u24(20) + bytes([(k % 2) | ((k % 3 == 0) << 1)]) + vp8l) for k in range(N)]
            data = b"WEBP" + body + b"".join(frames)
            open(base + ".webp", "wb").write(b"RIFF" + struct.pack("<I", len(data)) + data)
            """#
        let base = folder.appendingPathComponent("many-\(count)").path
        let run = try CapturedRun.run("/usr/bin/env", ["python3", "-c", script, "\(count)", base], timeout: 300)
        guard run.status == 0 else { throw ToolRunError(description: "writer: \(run.stderrText)") }
        return (base + ".webp", base + ".png")
    }

    struct Reading: Decodable {
        var loop: Int
        var durations: [Double]
        var frames: [[UInt8]]
    }

    /// Pillow's reading of an image: loop, per-frame durations (ms) and composited RGBA frames.
    static func pillow(_ path: String) throws -> Reading {
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
            print(json.dumps({"loop": im.info.get("loop", -1), "durations": durations, "frames": frames}))
            """
        let run = try CapturedRun.run("/usr/bin/env", ["python3", "-c", script, path])
        return try JSONDecoder().decode(Reading.self, from: run.stdout)
    }

    /// ffprobe's counted frames, rate and duration of the first video stream.
    static func probe(_ path: String) throws -> [String: String] {
        let data = try runTool(onPath("ffprobe") ?? "ffprobe", [
            "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
            "stream=nb_read_frames,r_frame_rate,duration", "-of", "default=nw=1", path,
        ])
        var fields: [String: String] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return fields
    }

    /// Each video frame's presentation time in seconds, as ffprobe reads it.
    static func frameTimes(_ path: String) throws -> [Double] {
        let data = try runTool(onPath("ffprobe") ?? "ffprobe", [
            "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time", "-of", "csv=p=0", path,
        ])
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    }
}
