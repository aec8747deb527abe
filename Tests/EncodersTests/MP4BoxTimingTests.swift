import GifxEncoders
import Foundation
import GifFixtures
import Testing

/// The timing boxes of an MP4, read here byte by byte (not through ffprobe or libavformat).
private struct MP4Boxes {
    var movieScale: Int64 = 0, movieDuration: Int64 = 0
    var trackHeaderDuration: Int64 = 0
    var mediaScale: Int64 = 0, mediaDuration: Int64 = 0
    var edits: [(duration: Int64, mediaTime: Int64)] = []
    var stts: [(count: Int64, delta: Int64)] = []
    var ctts: [(count: Int64, offset: Int64)] = []

    init(path: String) throws {
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func int(_ at: Int, _ bytes: Int, signed: Bool = false) -> Int64 {
            var value: UInt64 = 0
            for i in 0..<bytes { value = value << 8 | UInt64(data[at + i]) }
            if signed && bytes == 4 { return Int64(Int32(bitPattern: UInt32(value))) }
            return Int64(bitPattern: value)
        }
        func walk(_ start: Int, _ end: Int) {
            var pos = start
            while pos + 8 <= end {
                var size = Int(int(pos, 4)), header = 8
                if size == 1 { size = Int(int(pos + 8, 8)); header = 16 }
                if size == 0 { size = end - pos }
                guard size >= header else { return }
                let kind = String(decoding: data[pos + 4..<pos + 8], as: UTF8.self)
                let body = pos + header, v1 = data[body] == 1
                switch kind {
                case "moov", "trak", "mdia", "minf", "stbl", "edts": walk(body, pos + size)
                case "mvhd":
                    movieScale = int(body + (v1 ? 20 : 12), 4)
                    movieDuration = int(body + (v1 ? 24 : 16), v1 ? 8 : 4)
                case "tkhd": trackHeaderDuration = int(body + (v1 ? 28 : 20), v1 ? 8 : 4)
                case "mdhd":
                    mediaScale = int(body + (v1 ? 20 : 12), 4)
                    mediaDuration = int(body + (v1 ? 24 : 16), v1 ? 8 : 4)
                case "elst":
                    for i in 0..<Int(int(body + 4, 4)) {
                        let entry = body + 8 + i * (v1 ? 20 : 12)
                        edits.append((int(entry, v1 ? 8 : 4), int(entry + (v1 ? 8 : 4), v1 ? 8 : 4, signed: true)))
                    }
                case "stts", "ctts":
                    for i in 0..<Int(int(body + 4, 4)) {
                        let pair = (int(body + 8 + 8 * i, 4), int(body + 12 + 8 * i, 4, signed: kind == "ctts"))
                        if kind == "stts" { stts.append(pair) } else { ctts.append(pair) }
                    }
                default: break
                }
                pos += size
            }
        }
        walk(0, data.count)
    }

    var sttsSum: Int64 { stts.reduce(0) { $0 + $1.count * $1.delta } }

    /// Each sample's composition time (dts + ctts), in decode order.
    var compositionTimes: [Int64] {
        let deltas = stts.flatMap { [Int64](repeating: $0.delta, count: Int($0.count)) }
        let offsets = ctts.flatMap { [Int64](repeating: $0.offset, count: Int($0.count)) }
        var dts: Int64 = 0
        return deltas.enumerated().map { i, delta in
            defer { dts += delta }
            return dts + (offsets.isEmpty ? 0 : offsets[i])
        }
    }
}

/// GIFs whose last frame is short (30 ms), so x264's B-frames put the last decoded sample well before the
/// presentation end (issue 30: Chromium played these --vfr files short).
private let fixtures: [(name: String, delays: [Int])] = [
    ("tick3", [Int](repeating: 3, count: 8)),
    ("timing-mix", [7, 3, 12, 5, 25, 4, 3]),
    ("screen", [8, 9, 7, 150, 8, 9, 3]),
]

@Suite("MP4 boxes: stts, mdhd and the edit list agree (read back byte by byte)",
       .enabled(if: MP4Oracle.available, "ffmpeg/ffprobe not installed"))
struct MP4BoxTimingTests {
    @Test("--vfr: samples cover the edit, mdhd = stts sum; both modes: durations = the GIF's, samples at its starts",
          arguments: [0, 1, 2], [true, false])
    func durationsAgree(_ row: Int, _ vfr: Bool) throws {
        let (name, delays) = fixtures[row]
        let colours = (0..<delays.count).map { UInt8(1 + $0 % 7) }
        let gif = FixtureGIF.solidFrames(width: 16, height: 16, colorIndices: colours, delays: delays)
        // The tick through the old path (repeats encoded again), which keeps x264's B-frames: a stream with
        // repeat pictures has none (RepeatPictureTests checks its boxes).
        let run = try convertFixture(
            gif, options: VideoSettings(timing: vfr ? .vfr : .tick), encodeRepeats: true, name: "box\(row)\(vfr)")
        let boxes = try MP4Boxes(path: run.path)
        let label = "\(name) \(vfr ? "vfr" : "tick")"
        let totalCs = Int64(delays.reduce(0, +))

        // B-frames really are there: composition offsets and a media start past 0 (the reorder delay)
        #expect(boxes.ctts.contains { $0.offset != 0 }, "\(label): no B-frames, the test would prove nothing")
        let edit = try #require(boxes.edits.last, "\(label): no edit list")
        #expect(edit.mediaTime > 0, "\(label)")
        // the presentation is the GIF's duration, in the edit, tkhd and mvhd (movie time scale)
        #expect(edit.duration * 100 == totalCs * boxes.movieScale, "\(label): edit \(edit.duration)/\(boxes.movieScale)")
        #expect(boxes.movieDuration == edit.duration, "\(label)")
        #expect(boxes.trackHeaderDuration == edit.duration, "\(label)")
        // --vfr: the samples cover the edit exactly: stts sum = mdhd = media start + the GIF's duration. (A CFR
        // file keeps libavformat's mdhd, from which ffprobe derives avg_frame_rate: samples / mdhd duration.)
        if vfr {
        #expect(boxes.mdhdMatches, "\(label): mdhd \(boxes.mediaDuration), stts \(boxes.sttsSum)")
        #expect(boxes.sttsSum * 100 == edit.mediaTime * 100 + totalCs * boxes.mediaScale,
                "\(label): stts \(boxes.sttsSum), media start \(edit.mediaTime), scale \(boxes.mediaScale)")
        } else {
            #expect(boxes.mediaDuration * 100 == totalCs * boxes.mediaScale, "\(label): mdhd \(boxes.mediaDuration)")
        }
        // and every sample is presented where it belongs
        let presented = boxes.compositionTimes.map { $0 - edit.mediaTime }.sorted()
        if vfr {
            var start: Int64 = 0
            let starts = delays.map { d -> Int64 in defer { start += Int64(d) }; return start }
            #expect(presented.map { $0 * 100 } == starts.map { $0 * boxes.mediaScale }, "\(label)")
        } else {
            let tick = Int64(delays.reduce(0) { gcd($0, $1) })
            #expect(presented.count == Int(totalCs / tick), "\(label)")
            #expect(presented.enumerated().allSatisfy { Int64($0) * tick * boxes.mediaScale == $1 * 100 }, "\(label)")
        }
    }
}

private extension MP4Boxes {
    var mdhdMatches: Bool { mediaDuration == sttsSum }
}

private func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
