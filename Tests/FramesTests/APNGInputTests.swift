import ChildProcesses
import Foundation
import GifFixtures
import GifxFrames
import GifxTimeline
import Testing

/// APNG input (issue 35): gifx's own chunk reader and compositor against FFmpeg's apng decoder (composited
/// canvases, exact where a pixel is visible) and Pillow (frame count, durations, pixels within 1 level: its
/// OVER rounds differently), over APNGs written here by a small independent writer in Python (zlib + struct,
/// the chunk layout of the APNG spec): every dispose × blend op, sub-frames at the edges, alpha, RGB, palette
/// with tRNS, 16-bit, grey + alpha, interlaced, a hidden default image, and truncation at every chunk.
@Suite(.enabled(if: APNGOracles.available, "needs python3 with Pillow and ffmpeg (make deps)"))
struct APNGInputTests {
    /// Which oracle judges which pixels, per fixture (each exception names the tool that cannot):
    /// FFmpeg 5.1 cannot blend 16-bit alpha ("Blending with pixel format rgba64be is not implemented"), rounds
    /// 16-bit samples to 8 where gifx (like Chromium and Pillow) keeps the high byte (so ±1 there), and
    /// misplaces 4-bit palette rows of a frame at an odd x offset (checked by hand: frame 1's pixel (15, 0) is
    /// index 4 = (64, 95, 127) in the file; FFmpeg shows another colour). Pillow 13 cannot load interlaced
    /// APNG frames nor blend 16-bit grey, clears RGB and palette images to opaque black (not transparent), and
    /// its OVER is a masked paste, not Porter-Duff, and its PREVIOUS restores another canvas than FFmpeg's and
    /// the spec's; so its pixels judge binary-alpha or SOURCE-only fixtures without PREVIOUS. FFmpeg clears an
    /// image without alpha channel (grey, RGB without tRNS) to opaque black where the spec says transparent.
    static let cases: [APNGSpec] = [
        APNGSpec(name: "rgba8", colorType: 6, depth: 8, ffmpegTolerance: 0),
        APNGSpec(name: "rgba8-interlaced", colorType: 6, depth: 8, interlace: true, ffmpegTolerance: 0, pillow: false),
        APNGSpec(
            name: "rgba8-binary", colorType: 6, depth: 8, binaryAlpha: true, noPrevious: true, ffmpegTolerance: 0,
            pillowPixels: true),
        APNGSpec(
            name: "rgba16-source", colorType: 6, depth: 16, sourceOnly: true, noPrevious: true, ffmpegTolerance: 1,
            pillowPixels: true),
        APNGSpec(name: "rgb8-trns", colorType: 2, depth: 8, transparency: true, ffmpegTolerance: 0),
        APNGSpec(name: "palette8-trns", colorType: 3, depth: 8, transparency: true, ffmpegTolerance: 0),
        APNGSpec(
            name: "palette4-binary", colorType: 3, depth: 4, transparency: true, binaryAlpha: true, noPrevious: true,
            ffmpegTolerance: nil, pillowPixels: true),
        APNGSpec(name: "palette2-interlaced", colorType: 3, depth: 2, interlace: true, ffmpegTolerance: nil, pillow: false),
        APNGSpec(name: "grey16-interlaced", colorType: 0, depth: 16, interlace: true, ffmpegTolerance: 1, pillow: false),
        APNGSpec(name: "grey-alpha8", colorType: 4, depth: 8, ffmpegTolerance: 0),
        APNGSpec(name: "hidden-default", colorType: 6, depth: 8, hiddenDefault: true, ffmpegTolerance: 0),
        APNGSpec(name: "first-previous", colorType: 6, depth: 8, firstDisposePrevious: true, ffmpegTolerance: 0),
    ]

    @Test(arguments: cases)
    func canvasesMatchFFmpegAndPillow(_ spec: APNGSpec) throws {
        let path = try spec.write()
        let metadata = try readAnimationMetadata(path: path)
        #expect(metadata.format == .apng)
        let got = try collectCanvases(FrameStream(path: path))
        let inline = try collectCanvases(FrameStream(path: path, producerThread: false))
        #expect(got == inline)
        let size = metadata.canvasBytes

        // FFmpeg's apng decoder: composited canvases. A pixel FFmpeg leaves fully transparent compares by
        // its alpha only (FFmpeg keeps the colour a frame stored under alpha 0; gifx, like browsers, shows
        // nothing there).
        var ffmpeg = try APNGOracles.ffmpegCanvases(path, bytes: size)
        if spec.colorType == 0 || (spec.colorType == 2 && !spec.transparency) {
            // No alpha channel: FFmpeg's cleared pixels are opaque black; compare gifx's transparent ones so.
            for f in ffmpeg.indices where f < got.count {
                for p in stride(from: 0, to: size, by: 4) where got[f][p + 3] == 0 && ffmpeg[f][p..<p + 4].elementsEqual([0, 0, 0, 255]) {
                    ffmpeg[f][p + 3] = 0
                }
            }
        }
        #expect(ffmpeg.count == got.count, "\(spec.name): ffmpeg \(ffmpeg.count) frames, gifx \(got.count)")
        for (index, (a, b)) in zip(got, ffmpeg).enumerated() {
            guard let tolerance = spec.ffmpegTolerance else { break }
            if let pixel = firstDifference(a, b, tolerance: tolerance) {
                Issue.record("\(spec.name) frame \(index) pixel \(pixel): gifx \(a[4 * pixel..<4 * pixel + 4].map { $0 }) ffmpeg \(b[4 * pixel..<4 * pixel + 4].map { $0 })")
                break
            }
        }

        // Pillow: frame count and durations (ms), pixels within 1. Pillow shows a hidden default image as
        // its frame 0; gifx does not (it is not part of the animation).
        guard spec.pillow else { return }
        var pillow = try APNGOracles.pillowFrames(path, bytes: size)
        if spec.hiddenDefault {
            #expect(pillow.frames.count == got.count + 1)
            pillow.frames.removeFirst()
            pillow.durations.removeFirst()
        }
        #expect(pillow.frames.count == got.count)
        for (index, (a, b)) in zip(got, pillow.frames).enumerated() where spec.pillowPixels {
            if let pixel = firstDifference(a, b, tolerance: 0) {
                Issue.record("\(spec.name) frame \(index) pixel \(pixel): gifx \(a[4 * pixel..<4 * pixel + 4].map { $0 }) Pillow \(b[4 * pixel..<4 * pixel + 4].map { $0 })")
                break
            }
        }
        let timeline = Timeline(metadata.timelineInput, policy: .flanimated)
        let milliseconds = timeline.frames.map { Double($0.delay) * 1000 / Double(timeline.timescale) }
        // Pillow reports the stored delay (no clamp); gifx's flanimated delay equals it when it is 11 ms or more.
        for (index, (ours, theirs)) in zip(milliseconds, pillow.durations).enumerated() where theirs >= 11 {
            #expect(abs(ours - theirs) < 1e-9, "\(spec.name) frame \(index): \(ours) ms, Pillow \(theirs) ms")
        }
        #expect(timeline.loop.count == pillow.loop)
    }

    @Test func truncationAtEveryChunkKeepsWholeFramesOrFailsInOneLine() throws {
        let spec = APNGSpec(name: "cut", colorType: 6, depth: 8, frames: 5)
        let path = try spec.write()
        let full = try collectCanvases(FrameStream(path: path))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        // Every chunk boundary, and the middle of every chunk.
        var cuts: [Int] = []
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            cuts += [offset, offset + 6 + length / 2]
            offset += 12 + length
        }
        for cut in cuts where cut < bytes.count {
            let piece = try temporaryFile(Data(bytes.prefix(cut)), name: "cut\(cut).png")
            do {
                let metadata = try readAnimationMetadata(path: piece)
                let canvases = try collectCanvases(FrameStream(path: piece))
                #expect(canvases.count == metadata.images.count)
                #expect(canvases == Array(full.prefix(canvases.count)), "cut at \(cut)")
                #expect(metadata.warnings.count == 1, "cut at \(cut)")
                #expect(throws: GifDecodeError.self) { try readAnimationMetadata(path: piece, limits: DecodeLimits(strict: true)) }
            } catch let error as GifDecodeError {
                #expect(error.failureClass == .malformedData || error.failureClass == .cannotOpenInput, "cut at \(cut): \(error)")
                #expect(!error.description.contains("\n"))
            }
        }
    }

    @Test func damagedCRCAndSequenceAreFound() throws {
        let path = try APNGSpec(name: "damage", colorType: 6, depth: 8, frames: 4).write()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        // The third fcTL's sequence number (fcTL, fdAT share one sequence: frame 2's fcTL is number 3).
        let fcTL = Data("fcTL".utf8)
        var found: [Int] = []
        var from = bytes.startIndex
        while let range = bytes.range(of: fcTL, in: from..<bytes.endIndex) {
            found.append(range.lowerBound)
            from = range.upperBound
        }
        #expect(found.count == 4)
        var crcDamaged = bytes
        crcDamaged[found[2] + 10] ^= 0x40  // inside frame 2's fcTL data: its CRC no longer matches
        let crcPath = try temporaryFile(crcDamaged, name: "crc.png")
        let kept = try readAnimationMetadata(path: crcPath)
        #expect(kept.images.count == 2)
        #expect(kept.warnings.first?.contains("malformed PNG at byte \(found[2] - 4): chunk fcTL: CRC mismatch") == true)
        // A sequence number out of order, CRC recomputed so only the number is wrong.
        bytes[found[2] + 7] &+= 1
        let crcStart = found[2], length = 26
        let crc = APNGOracles.crc32(bytes[crcStart..<(crcStart + 4 + length)])
        for k in 0..<4 { bytes[crcStart + 4 + length + k] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * k)) }
        let sequencePath = try temporaryFile(bytes, name: "sequence.png")
        let sequence = try readAnimationMetadata(path: sequencePath)
        #expect(sequence.images.count == 2)
        #expect(sequence.warnings.first?.contains("malformed PNG at byte \(found[2] - 4): sequence number ") == true)
        #expect(sequence.warnings.first?.contains(" was expected; keeping the 2 frames read before it") == true)
        #expect(throws: GifDecodeError.self) { try readAnimationMetadata(path: sequencePath, limits: DecodeLimits(strict: true)) }
    }

    /// fuzz-apng's first finding: a chunk whose type bytes are not letters (here "I", a newline, two NULs)
    /// was named raw in the error, which then spanned two lines with NULs in it. The type is now printed with
    /// every byte that is not an ASCII letter as \xNN.
    @Test func aDamagedChunkTypeIsNamedOnOnePrintableLine() throws {
        var bytes = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        bytes += [0, 0, 0, 13] + Array("I\n\u{0}\u{0}".utf8) + [UInt8](repeating: 1, count: 13) + [0, 0, 0, 0]
        let path = try temporaryFile(bytes, name: "chunktype.png")
        do {
            _ = try readAnimationMetadata(path: path)
            Issue.record("a PNG whose first chunk is damaged was read")
        } catch let error as GifDecodeError {
            #expect(error.failureClass == .malformedData)
            #expect(error.description.contains("chunk I\\x0A\\x00\\x00: CRC mismatch"), "\(error)")
            #expect(!error.description.contains("\n") && !error.description.contains("\u{0}"), "\(error)")
        }
    }

    @Test func stillPNGIsOneFrame() throws {
        let path = try APNGSpec(name: "still", colorType: 2, depth: 8, still: true).write()
        let metadata = try readAnimationMetadata(path: path)
        #expect(metadata.images.count == 1 && metadata.loopCount == nil)
        let pillow = try APNGOracles.pillowFrames(path, bytes: metadata.canvasBytes)
        #expect(try collectCanvases(FrameStream(path: path)) == pillow.frames)
        #expect(Timeline(metadata.timelineInput).loop.plays == 1)
    }

    /// Index of the first pixel whose channels differ by more than `tolerance` (a pixel transparent in both
    /// compares equal, whatever colour either stores under alpha 0).
    func firstDifference(_ a: [UInt8], _ b: [UInt8], tolerance: Int) -> Int? {
        guard a.count == b.count else { return 0 }
        for pixel in 0..<(a.count / 4) {
            let i = 4 * pixel
            if a[i + 3] == 0 && b[i + 3] == 0 { continue }
            for c in 0..<4 where abs(Int(a[i + c]) - Int(b[i + c])) > tolerance { return pixel }
        }
        return nil
    }
}

/// What the Python writer makes: one APNG of random content (seeded by the name) in one PNG colour type.
struct APNGSpec: Sendable, CustomTestStringConvertible {
    var name: String
    var colorType: Int
    var depth: Int
    var interlace = false
    var transparency = false
    var hiddenDefault = false
    var firstDisposePrevious = false
    var still = false
    var frames = 14
    /// Alpha only 0 or 255 (OVER is then the same in every formula).
    var binaryAlpha = false
    /// Every frame blends SOURCE.
    var sourceOnly = false
    /// No frame disposes PREVIOUS (NONE instead).
    var noPrevious = false
    /// FFmpeg's canvases judge the pixels within this many levels; `nil`: its frame count only.
    var ffmpegTolerance: Int? = 0
    /// Pillow judges frame count, durations and loop count.
    var pillow = true
    /// Pillow judges the pixels too (exactly).
    var pillowPixels = false

    init(
        name: String, colorType: Int, depth: Int, interlace: Bool = false, transparency: Bool = false,
        hiddenDefault: Bool = false, firstDisposePrevious: Bool = false, still: Bool = false, frames: Int = 14,
        binaryAlpha: Bool = false, sourceOnly: Bool = false, noPrevious: Bool = false, ffmpegTolerance: Int? = 0,
        pillow: Bool = true,
        pillowPixels: Bool = false
    ) {
        self.name = name; self.colorType = colorType; self.depth = depth; self.interlace = interlace
        self.transparency = transparency; self.hiddenDefault = hiddenDefault
        self.firstDisposePrevious = firstDisposePrevious; self.still = still; self.frames = frames
        self.binaryAlpha = binaryAlpha; self.sourceOnly = sourceOnly; self.noPrevious = noPrevious; self.ffmpegTolerance = ffmpegTolerance
        self.pillow = pillow; self.pillowPixels = pillowPixels
    }

    var testDescription: String { name }

    /// Writes the file and returns its path.
    func write() throws -> String {
        let path = TestScratch.path("apng", name: name, suffix: ".png").path
        let arguments = [
            path, name, "\(colorType)", "\(depth)", interlace ? "1" : "0", transparency ? "1" : "0",
            hiddenDefault ? "1" : "0", firstDisposePrevious ? "1" : "0", still ? "1" : "0", "\(frames)",
            binaryAlpha ? "1" : "0", sourceOnly ? "1" : "0", noPrevious ? "1" : "0",
        ]
        let run = try CapturedRun.python(APNGOracles.writer, arguments: arguments)
        guard run.status == 0 else { throw APNGOracles.Failure(text: "writer: \(run.stderrText)") }
        return path
    }
}

extension CapturedRun {
    /// `python3 -c script arguments…` (the python3 on PATH, as `make deps` sets it up).
    static func python(_ script: String, arguments: [String]) throws -> CapturedRun {
        try run("/usr/bin/env", ["python3", "-c", script] + arguments)
    }
}

enum APNGOracles {
    struct Failure: Error, CustomStringConvertible { var text: String; var description: String { text } }

    static let available: Bool = {
        guard let run = try? CapturedRun.python("import PIL", arguments: []), run.status == 0 else { return false }
        return onPath("ffmpeg") != nil
    }()

    /// A tool found on PATH as a shell finds it (the oracles `make deps` installs).
    static func onPath(_ name: String) -> String? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return folders.lazy.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static func ffmpegCanvases(_ path: String, bytes: Int) throws -> [[UInt8]] {
        let run = try CapturedRun.run(
            onPath("ffmpeg") ?? "ffmpeg", ["-v", "error", "-nostdin", "-i", path, "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "rgba", "-"])
        guard run.status == 0 else { throw Failure(text: "ffmpeg: \(run.stderrText)") }
        return stride(from: 0, to: run.stdout.count, by: bytes).map { Array(run.stdout[$0..<min($0 + bytes, run.stdout.count)]) }
    }

    static func pillowFrames(_ path: String, bytes: Int) throws -> (frames: [[UInt8]], durations: [Double], loop: Int?) {
        let script = """
            import sys
            from PIL import Image
            im = Image.open(sys.argv[1])
            n = getattr(im, "n_frames", 1)
            durations = []
            for i in range(n):
                im.seek(i)
                sys.stdout.buffer.write(im.convert("RGBA").tobytes())
                durations.append(str(float(im.info.get("duration", 0))))
            sys.stderr.write(" ".join(durations) + "\\n" + str(im.info.get("loop", "none")) + "\\n")
            """
        let run = try CapturedRun.python(script, arguments: [path])
        guard run.status == 0 else { throw Failure(text: "Pillow: \(run.stderrText)") }
        let lines = run.stderrText.split(separator: "\n")
        let frames = stride(from: 0, to: run.stdout.count, by: bytes).map { Array(run.stdout[$0..<($0 + bytes)]) }
        return (frames, lines[0].split(separator: " ").compactMap { Double($0) }, Int(lines[1]))
    }

    static func crc32(_ bytes: Data) -> UInt32 {
        var table = [UInt32](repeating: 0, count: 256)
        for n in 0..<256 {
            var c = UInt32(n)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            table[n] = c
        }
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }

    /// The fixture writer: the APNG chunk layout written with zlib and struct only (no PNG library), random
    /// content from a seed; frames cycle through every dispose × blend pair with rects at the edges.
    static let writer = #"""
        import random, struct, sys, zlib
        path, name, ct, depth, interlace, trns, hidden, firstprev, still, nframes, binary, sourceonly, noprev = sys.argv[1:14]
        ct, depth, interlace, trns, hidden, firstprev, still, nframes, binary, sourceonly, noprev = map(
            int, (ct, depth, interlace, trns, hidden, firstprev, still, nframes, binary, sourceonly, noprev))
        rnd = random.Random(name)
        W, H = 29, 19
        channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ct]
        maxv = (1 << depth) - 1
        palette = [(rnd.randrange(256), rnd.randrange(256), rnd.randrange(256)) for _ in range(1 << min(depth, 8))]
        def chunk(t, data):
            return struct.pack(">I", len(data)) + t + data + struct.pack(">I", zlib.crc32(t + data) & 0xffffffff)
        def sample(kind):
            # kind: 0 opaque-ish, 1 clear, 2 partial
            if ct == 3:
                return [rnd.randrange(len(palette))]
            v = [rnd.randrange(maxv + 1) for _ in range(channels)]
            if ct in (4, 6):
                v[-1] = maxv if kind == 0 else (0 if kind == 1 else rnd.randrange(1, maxv))
            return v
        def image(w, h):
            kinds = (0, 0, 0, 1) if binary else (0, 0, 0, 1, 2)
            return [[sample(rnd.choice(kinds)) for _ in range(w)] for _ in range(h)]
        def pack_row(row):
            if depth >= 8:
                out = bytearray()
                for px in row:
                    for v in px:
                        out += v.to_bytes(depth // 8, "big")
                return bytes(out)
            bits = 0; n = 0; out = bytearray()
            for px in row:
                for v in px:
                    bits = (bits << depth) | v; n += depth
                    if n == 8:
                        out.append(bits); bits = 0; n = 0
            if n:
                out.append(bits << (8 - n))
            return bytes(out)
        PASSES = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        def encode(pixels, w, h):
            raw = bytearray()
            if interlace:
                for (x0, y0, dx, dy) in PASSES:
                    xs = list(range(x0, w, dx)); ys = list(range(y0, h, dy))
                    if not xs or not ys:
                        continue
                    for y in ys:
                        raw += b"\0" + pack_row([pixels[y][x] for x in xs])
            else:
                for y in range(h):
                    raw += b"\0" + pack_row(pixels[y])
            data = zlib.compress(bytes(raw), 9)
            # Split in pieces so frames span several IDAT / fdAT chunks.
            return [data[i:i + 97] for i in range(0, len(data), 97)] or [b""]
        out = bytearray(b"\x89PNG\r\n\x1a\n")
        out += chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, depth, ct, 0, 0, interlace))
        if ct == 3:
            out += chunk(b"PLTE", b"".join(bytes(c) for c in palette))
            if trns:
                alphas = (0, 255, 255) if binary else (0, 255, 255, 128, rnd.randrange(256))
                out += chunk(b"tRNS", bytes(rnd.choice(alphas) for _ in palette))
        elif ct == 2 and trns:
            key = sample(0)
            out += chunk(b"tRNS", b"".join(struct.pack(">H", v) for v in key))
        if still:
            for piece in encode(image(W, H), W, H):
                out += chunk(b"IDAT", piece)
            out += chunk(b"IEND", b"")
            open(path, "wb").write(out)
            sys.exit(0)
        out += chunk(b"acTL", struct.pack(">II", nframes, 3))
        seq = 0
        ops = [(d, b) for d in (0, 1, 2) for b in (0, 1)]
        if hidden:
            for piece in encode(image(W, H), W, H):
                out += chunk(b"IDAT", piece)
        for i in range(nframes):
            if i == 0:
                x, y, w, h = 0, 0, W, H
            else:
                w = rnd.randrange(1, W + 1); h = rnd.randrange(1, H + 1)
                x, y = [(0, 0), (W - w, 0), (0, H - h), (W - w, H - h), (rnd.randrange(W - w + 1), rnd.randrange(H - h + 1))][i % 5]
            dispose, blend = ops[i % len(ops)]
            if sourceonly:
                blend = 0
            if noprev and dispose == 2:
                dispose = 0
            if i == 0 and firstprev:
                dispose = 2
            num, den = [(1, 30), (7, 100), (33, 1000), (0, 0), (3, 0), (1, 1), (5, 200)][i % 7]
            out += chunk(b"fcTL", struct.pack(">IIIIIHHBB", seq, w, h, x, y, num, den, dispose, blend)); seq += 1
            pieces = encode(image(w, h), w, h)
            for piece in pieces:
                if i == 0 and not hidden:
                    out += chunk(b"IDAT", piece)
                else:
                    out += chunk(b"fdAT", struct.pack(">I", seq) + piece); seq += 1
        out += chunk(b"IEND", b"")
        open(path, "wb").write(out)
        """#
}
