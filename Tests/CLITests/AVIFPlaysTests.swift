import Foundation
import GifFixtures
import Testing

/// An animated AVIF carries the GIF's plays in its edit list (issue 57; docs/conformance.md, "AVIF plays"):
/// FFmpeg 5.1 wrote no `edts`, which Chromium reads as "loop forever", so a GIF that plays 3 times looped without
/// end. The boxes are read by the walker below (this test's own, not the writer's code), and the expected values
/// come from the encoding the readers agree on (libavif ≥ 1.0, mp4parse, Chromium) and the player table of
/// docs/timeline.md: NETSCAPE count 2 is 2 plays under `flanimated` and 3 under `browser`; no loop extension is
/// forever under `flanimated` and once under `browser`; count 0 is forever under both.
@Suite(.enabled(if: ffprobeAvailable(), "ffprobe/ffmpeg (Debian package ffmpeg), the oracle, is not installed"))
struct AVIFPlaysTests {
    /// The fields of the boxes that carry an AVIF's length and repetition.
    struct Declared: Equatable {
        var mvhdVersion = -1, mvhdTimescale: UInt64 = 0, mvhdDuration: UInt64 = 0
        var tkhdVersion = -1, tkhdDuration: UInt64 = 0
        var mdhdTimescale: UInt64 = 0, mdhdDuration: UInt64 = 0
        var elstFlags = -1
        /// (segment_duration, media_time, media_rate_integer, media_rate_fraction) of each entry.
        var elstEntries: [[Int64]] = []
    }

    /// Walks `data`'s boxes (32-bit sizes; `meta` is a full box, skipped) and reads mvhd, tkhd, mdhd and elst.
    static func declared(_ data: [UInt8]) -> Declared {
        var d = Declared()
        func u(_ at: Int, _ width: Int) -> UInt64 { (0..<width).reduce(UInt64(0)) { $0 << 8 | UInt64(data[at + $1]) } }
        func walk(_ start: Int, _ end: Int) {
            var at = start
            while at + 8 <= end {
                let size = Int(u(at, 4)), kind = String(decoding: data[(at + 4)..<(at + 8)], as: UTF8.self)
                guard size >= 8, at + size <= end else { return }
                let body = at + 8, version = Int(data[body]), wide = version == 1
                switch kind {
                case "moov", "trak", "mdia", "edts": walk(body, at + size)
                case "mvhd":
                    d.mvhdVersion = version
                    d.mvhdTimescale = u(body + (wide ? 20 : 12), 4)
                    d.mvhdDuration = u(body + (wide ? 24 : 16), wide ? 8 : 4)
                case "tkhd":
                    d.tkhdVersion = version
                    d.tkhdDuration = u(body + (wide ? 28 : 20), wide ? 8 : 4)
                case "mdhd":
                    d.mdhdTimescale = u(body + (wide ? 20 : 12), 4)
                    d.mdhdDuration = u(body + (wide ? 24 : 16), wide ? 8 : 4)
                case "elst":
                    d.elstFlags = Int(u(body + 1, 3))
                    var p = body + 8
                    for _ in 0..<Int(u(body + 4, 4)) {
                        let segment = Int64(bitPattern: u(p, wide ? 8 : 4))
                        p += wide ? 8 : 4
                        let time = Int64(bitPattern: u(p, wide ? 8 : 4))
                        p += wide ? 8 : 4
                        d.elstEntries.append([segment, time, Int64(u(p, 2)), Int64(u(p + 2, 2))])
                        p += 4
                    }
                default: break
                }
                at += size
            }
        }
        walk(0, data.count)
        return d
    }

    /// 64×64, 10/20/30/40 cs (one play: 1.0 s), written with `loopCounts` and converted under `policy`.
    @Test(arguments: [
        ([2], "flanimated", 2), ([2], "browser", 3), ([], "flanimated", nil), ([], "browser", 1),
        ([0], "flanimated", nil), ([0], "browser", nil),
    ] as [([Int], String, Int?)])
    func theEditListCarriesThePlays(_ loopCounts: [Int], _ policy: String, _ plays: Int?) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var gif = FixtureGIF.solidFrames(width: 64, height: 64, colorIndices: [1, 2, 3, 4], delays: [10, 20, 30, 40])
        gif.loopCounts = loopCounts
        let input = try writeGIF(gif, to: folder)
        let avif = folder.appendingPathComponent("a.avif").path
        let run = try runGifx(["convert", input, "-o", avif, "--policy", policy, "--preset", "ultrafast", "--quiet"], timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        let d = Self.declared([UInt8](try Data(contentsOf: URL(fileURLWithPath: avif))))
        // One play is the media: 1.0 s in the track's timescale, which the movie's matches.
        #expect(d.mdhdTimescale > 0 && d.mdhdDuration == d.mdhdTimescale, "\(d)")
        #expect(d.mvhdTimescale == d.mdhdTimescale, "\(d)")
        #expect(d.elstEntries == [[Int64(d.mdhdDuration), 0, 1, 0]], "\(d)")
        switch plays {
        case 1:
            #expect(d.elstFlags == 0)
            #expect(d.mvhdDuration == d.mdhdDuration && d.tkhdDuration == d.mdhdDuration, "\(d)")
        case let n?:
            #expect(d.elstFlags == 1)
            #expect(d.mvhdDuration == UInt64(n) * d.mdhdDuration && d.tkhdDuration == d.mvhdDuration, "\(d)")
        case nil:
            #expect(d.elstFlags == 1)
            #expect(d.mvhdVersion == 1 && d.tkhdVersion == 1, "\(d)")
            #expect(d.mvhdDuration == UInt64.max && d.tkhdDuration == UInt64.max, "\(d)")
        }
        // The offsets moved with the boxes: FFmpeg reads every frame and gifx verify passes.
        let frames = try decodeAVIFRGBA(avif, frameBytes: 64 * 64 * 4)
        #expect(frames.count == 4)
        let verify = try runGifx(["verify", input, avif, "--policy", policy, "--quiet"], timeout: 120)
        #expect(verify.status == 0, "\(verify.stderr)")
    }
}

/// `gifx verify` reads an AVIF's plays from its edit list (issue 57 item 4): a file whose `elst` says another count
/// than the schedule's fails, in one line naming both.
@Suite(.enabled(if: ffprobeAvailable(), "ffprobe/ffmpeg (Debian package ffmpeg), the oracle, is not installed"))
struct VerifyAVIFPlaysTests {
    @Test func verifyFailsAnAVIFWhoseEditListSaysAnotherCount() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var gif = FixtureGIF.solidFrames(width: 64, height: 64, colorIndices: [1, 2, 3], delays: [10, 20, 30])
        gif.loopCounts = [3]
        let input = try writeGIF(gif, to: folder)
        let avif = folder.appendingPathComponent("a.avif").path
        let run = try runGifx(["convert", input, "-o", avif, "--preset", "ultrafast", "--quiet"], timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        let good = try runGifx(["verify", input, avif, "--json"], timeout: 120)
        #expect(good.status == 0, "\(good.stderr)")
        #expect(good.stdoutText.contains("\"loopCount\" : 3"), "\(good.stdoutText)")
        // Clear the repeat flag (elst flags 1 -> 0): the file now says "once" for a schedule of 3 plays.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: avif)))
        let elst = try #require((0..<(bytes.count - 8)).first { bytes[$0..<($0 + 4)].elementsEqual("elst".utf8) })
        #expect(bytes[elst + 7] == 1)
        bytes[elst + 7] = 0
        try Data(bytes).write(to: URL(fileURLWithPath: avif))
        let bad = try runGifx(["verify", input, avif], timeout: 120)
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("loop count 1, the schedule's is 3"), "\(bad.stderr)")
    }
}
