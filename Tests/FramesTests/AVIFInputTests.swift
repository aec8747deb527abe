import ChildProcesses
import Foundation
@testable import GifxFrames
import GifxTimeline
import Testing

/// AVIF input (issue 59): the probe (`ftyp` brands past the major one), the loop read from the colour track's
/// edit list (boxes built here byte by byte, from ISO/IEC 14496-12's layouts of `tkhd` and `elst`; the expected
/// plays are the rules of libavif's `avifParseEditListBox` and mp4parse's `read_elst` as docs/conformance.md
/// states them), and the metadata of files avifenc writes (their `--duration` values are the oracle).
@Suite struct AVIFInputTests {
    // MARK: Boxes built by hand.

    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let size = UInt32(8 + payload.count)
        return withUnsafeBytes(of: size.bigEndian, Array.init) + Array(type.utf8) + payload
    }

    static func be32(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.bigEndian, Array.init) }
    static func be64(_ v: UInt64) -> [UInt8] { withUnsafeBytes(of: v.bigEndian, Array.init) }

    static func ftyp(major: String, compatible: [String]) -> [UInt8] {
        box("ftyp", Array(major.utf8) + [0, 0, 0, 0] + compatible.flatMap { Array($0.utf8) })
    }

    /// A `tkhd` of `version` with `duration` (all other fields zero).
    static func tkhd(version: UInt8, duration: UInt64) -> [UInt8] {
        var p: [UInt8] = [version, 0, 0, 3]
        if version == 1 {
            p += [UInt8](repeating: 0, count: 16) + be32(1) + be32(0) + be64(duration)
        } else {
            p += [UInt8](repeating: 0, count: 8) + be32(1) + be32(0) + be32(UInt32(truncatingIfNeeded: duration))
        }
        return box("tkhd", p + [UInt8](repeating: 0, count: 60))
    }

    static func elst(version: UInt8, flags: UInt32, segments: [UInt64]) -> [UInt8] {
        var p: [UInt8] = [version] + Array(be32(flags).suffix(3)) + be32(UInt32(segments.count))
        for segment in segments {
            p += version == 1 ? be64(segment) + be64(0) : be32(UInt32(truncatingIfNeeded: segment)) + be32(0)
            p += [0, 1, 0, 0]
        }
        return box("elst", p)
    }

    static func pictureTrack(_ inner: [UInt8], auxiliary: Bool = false) -> [UInt8] {
        let hdlr = box("hdlr", [0, 0, 0, 0] + be32(0) + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
        return box("trak", inner + (auxiliary ? box("tref", box("auxl", be32(1))) : []) + box("mdia", hdlr))
    }

    static func loop(_ moov: [UInt8]) -> AVIFBoxes.Loop {
        let file = ftyp(major: "avis", compatible: ["avis", "msf1"]) + box("moov", moov)
        return file.withUnsafeBytes { AVIFBoxes.loop(in: $0).loop }
    }

    @Test func probeReadsPastTheMajorBrand() {
        #expect(AVIFBoxes.probe(Self.ftyp(major: "avif", compatible: ["mif1"])))
        #expect(AVIFBoxes.probe(Self.ftyp(major: "avis", compatible: [])))
        #expect(AVIFBoxes.probe(Self.ftyp(major: "mif1", compatible: ["miaf", "avis"])))
        #expect(AVIFBoxes.probe(Self.ftyp(major: "msf1", compatible: ["iso8", "mif1", "avif"])))
        #expect(!AVIFBoxes.probe(Self.ftyp(major: "isom", compatible: ["iso2", "mp41"])))
        #expect(!AVIFBoxes.probe(Self.ftyp(major: "heic", compatible: ["mif1", "heic"])))
        // A brand beyond the box's own size is not the box's.
        var cut = Self.ftyp(major: "mif1", compatible: ["miaf"]) + Array("avis".utf8)
        cut[3] = 20
        #expect(!AVIFBoxes.probe(cut))
        #expect(InputFormat.sniff(Self.ftyp(major: "mif1", compatible: ["miaf", "avis"])) == .avif)
    }

    @Test func noEditListLoopsForeverAndNoTrackIsAStill() {
        #expect(Self.loop(Self.pictureTrack(Self.tkhd(version: 0, duration: 100))) == .forever)
        #expect(Self.loop([]) == .still)
        let still = Self.ftyp(major: "avif", compatible: ["mif1"]) + Self.box("meta", [0, 0, 0, 0])
        #expect(still.withUnsafeBytes { AVIFBoxes.loop(in: $0).loop } == .still)
    }

    /// gifx's own writer: once is flags 0; N plays is flags 1 with a track N segments long; forever is flags 1 with
    /// a version-1 all-ones track duration.
    @Test(arguments: [
        (UInt8(0), UInt32(0), UInt64(300), [UInt64(100)], AVIFBoxes.Loop.plays(1)),
        (0, 1, 300, [100], .plays(3)),
        (1, 1, 300, [100], .plays(3)),
        (0, 1, 250, [100], .plays(3)),  // rounded up, as libavif and mp4parse do
        (1, 1, UInt64.max, [100], .forever),
        (0, 1, 0xFFFF_FFFF, [100], .forever),  // libavif reads version 0's all ones as indefinite
        (0, 3, 300, [100], .plays(1)),  // flags exactly 1 (mp4parse); libavif would repeat
        (0, 1, 300, [0], .forever),  // mp4parse: no count from a zero segment
        (0, 1, 0, [100], .plays(1)),
        (1, 1, UInt64(1) << 40, [1], .forever),  // beyond Int32.max plays (libavif: infinite)
    ] as [(UInt8, UInt32, UInt64, [UInt64], AVIFBoxes.Loop)])
    func theEditListGivesThePlays(_ version: UInt8, _ flags: UInt32, _ duration: UInt64, _ segments: [UInt64], _ want: AVIFBoxes.Loop) {
        let track = Self.tkhd(version: version, duration: duration)
            + Self.box("edts", Self.elst(version: version, flags: flags, segments: segments))
        #expect(Self.loop(Self.pictureTrack(track)) == want)
    }

    @Test func theAlphaTrackIsNotTheColourTrack() {
        let alpha = Self.pictureTrack(
            Self.tkhd(version: 0, duration: 300) + Self.box("edts", Self.elst(version: 0, flags: 0, segments: [100])),
            auxiliary: true)
        let colour = Self.pictureTrack(
            Self.tkhd(version: 0, duration: 300) + Self.box("edts", Self.elst(version: 0, flags: 1, segments: [100])))
        #expect(Self.loop(alpha + colour) == .plays(3))
    }

    @Test func aListOfTwoEntriesIsReadByItsFirstWithAWarning() {
        let track = Self.tkhd(version: 0, duration: 400)
            + Self.box("edts", Self.elst(version: 0, flags: 1, segments: [100, 50]))
        let file = Self.ftyp(major: "avis", compatible: []) + Self.box("moov", Self.pictureTrack(track))
        let (loop, warning) = file.withUnsafeBytes { AVIFBoxes.loop(in: $0) }
        #expect(loop == .plays(4))
        #expect(warning == "the edit list has 2 entries; the loop is read from the first")
    }

    // MARK: Files avifenc writes.

    @Test(.enabled(if: AVIFFixtures.available, "avifenc (Debian package libavif-bin) and Pillow are not installed"))
    func metadataOfAnAvifencSequenceIsItsDurations() throws {
        let folder = try AVIFFixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try AVIFFixtures.sequence(in: folder, durations: [40, 70, 100, 1000], timescale: 1000)
        let metadata = try readAnimationMetadata(path: path)
        #expect(metadata.format == .avif)
        #expect(metadata.canvas == CanvasSize(width: 33, height: 17))
        #expect(metadata.sourceTimescale == 1000)
        #expect(metadata.frames.map(\.rawDelay) == [40, 70, 100, 1000])
        #expect(metadata.loopCount == 0)  // avifenc 0.11 writes no edts: forever
        #expect(metadata.decoderWorkingBytes > 0)
        let timeline = Timeline(metadata.timelineInput, policy: .browser)
        #expect(timeline.timescale == 1000)
        #expect(timeline.frames.map(\.delay) == [40, 70, 100, 1000])
        #expect(timeline.playDuration == MediaTime(1210, timescale: 1000))
        #expect(timeline.loop.plays == nil)
    }
}

/// AVIF fixtures written by avifenc from RGBA PNGs drawn by Pillow.
enum AVIFFixtures {
    static let available: Bool = {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
        guard paths.contains(where: { FileManager.default.isExecutableFile(atPath: "\($0)/avifenc") }) else { return false }
        return (try? CapturedRun.run("/usr/bin/env", ["python3", "-c", "import PIL"]).status) == 0
    }()

    static func folder(_ name: String = #function) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gifx-avif-\(getpid())-\(name.filter(\.isLetter))")
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A 33×17 RGBA sequence of `durations.count` frames (random pixels and alpha), each lasting its duration in
    /// `1 / timescale` s.
    static func sequence(in folder: URL, durations: [Int], timescale: Int) throws -> String {
        let script = """
            import random, sys
            from PIL import Image
            random.seed(7)
            for i in range(int(sys.argv[1])):
                im = Image.new('RGBA', (33, 17), (60 * i % 256, 90, 200, 255))
                for k in range(60):
                    im.putpixel((random.randrange(33), random.randrange(17)), tuple(random.randrange(256) for _ in range(4)))
                im.save(f'{sys.argv[2]}/f{i}.png')
            """
        let draw = try CapturedRun.run("/usr/bin/env", ["python3", "-c", script, "\(durations.count)", folder.path])
        guard draw.status == 0 else { throw CocoaError(.fileWriteUnknown) }
        var arguments = ["-s", "10", "-j", "1", "--timescale", "\(timescale)"]
        for (index, duration) in durations.enumerated() {
            arguments += ["--duration", "\(duration)", folder.appendingPathComponent("f\(index).png").path]
        }
        let out = folder.appendingPathComponent("seq.avif").path
        let run = try CapturedRun.run("/usr/bin/env", ["avifenc"] + arguments + ["-o", out])
        guard run.status == 0 else { throw CocoaError(.fileWriteUnknown) }
        return out
    }
}
