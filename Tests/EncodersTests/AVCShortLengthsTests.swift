import ChildProcesses
import Foundation
import GifFixtures
@testable import GifxEncoders
import GifxFrames
import GifxPipeline
import GifxTimeline
import Testing

/// H.264 samples with 2-byte NAL unit lengths for pictures of up to 64 macroblocks (`AVCShortLengths`, issue 56).
@Suite struct AVCShortLengthsTests {
    /// The `avcC` FFmpeg 5.1's MP4 muxer wrote for an x264 stream of gifx's (a 100×100 B-frame repeat stream: its
    /// SPS, x264's PPS and the repeats' PPS), byte for byte, but for `lengthSizeMinusOne` (0xFF there: 4 bytes).
    @Test func configurationRecordIsFFmpegsWithTwoByteLengths() throws {
        let sps = hex("6764000cacc59c73f9e7c05a808080a0000003002000001901e28510f0")
        let pps = [hex("68e9b0f2c8b0"), hex("68538e20")]
        let extradata = [0, 0, 0, 1] + sps + [0, 0, 1] + pps[0] + [0, 0, 0, 1] + pps[1]
        let ffmpeg = hex(
            "0164000cffe1001d6764000cacc59c73f9e7c05a808080a0000003002000001901e28510f002000668e9b0f2c8b0000468538e20fdf8f800")
        var expected = ffmpeg
        expected[4] = 0xFD
        #expect(try AVCShortLengths().configurationRecord(extradata: extradata) == expected)
        #expect(throws: BitstreamError.self) { try AVCShortLengths().configurationRecord(extradata: [0, 0, 1] + pps[0]) }
    }

    /// Each NAL unit after a 2-byte big-endian length, start codes (3 or 4 bytes) and trailing zeros dropped; a
    /// unit over 65,535 bytes is refused, never cut.
    @Test func samplesAreLengthPrefixed() throws {
        let sei: [UInt8] = [0x06, 5, 1, 0x80]
        let slice: [UInt8] = [0x41] + Array(repeating: 0x9A, count: 300)
        let annexB: [UInt8] = [0, 0, 0, 1] + sei + [0, 0, 1] + slice + [0, 0]
        let sample = try annexB.withUnsafeBufferPointer { try AVCShortLengths().sample($0) }
        #expect(sample == [0, 4] + sei + [1, 45] + slice)
        let huge: [UInt8] = [0, 0, 0, 1, 0x65] + Array(repeating: 0x9A, count: 65_535)
        #expect(throws: BitstreamError.self) { _ = try huge.withUnsafeBufferPointer { try AVCShortLengths().sample($0) } }
        let largest: [UInt8] = [0, 0, 0, 1, 0x65] + Array(repeating: 0x9A, count: 65_534)
        #expect(try largest.withUnsafeBufferPointer { try AVCShortLengths().sample($0) }.prefix(2) == [0xFF, 0xFF])
    }

    @Test(arguments: [(100, 100, true), (128, 128, true), (130, 100, true), (128, 144, false), (144, 144, false)])
    func appliesUpTo64Macroblocks(_ width: Int, _ height: Int, _ applies: Bool) {
        #expect(AVCShortLengths.applies(to: CanvasSize(width: width, height: height)) == applies)
    }

    /// Through the whole conversion: a 64×48 GIF's MP4 (the tick with B-frame repeats, and `--vfr`) has an `avcC`
    /// with 2-byte lengths and every sample ffprobe lists splits exactly into 2-byte-length NAL units; a 160×128
    /// GIF's (80 macroblocks) keeps libavformat's 4 bytes. FFmpeg decodes each with `-err_detect explode` and no
    /// message, every frame.
    @Test(
        .enabled(if: MP4Oracle.available, "ffmpeg/ffprobe not installed"),
        arguments: [(64, 48, false, 2), (64, 48, true, 2), (160, 128, false, 4)])
    func mp4SamplesHaveTheRecordsLengths(_ width: Int, _ height: Int, _ vfr: Bool, _ lengthBytes: Int) throws {
        let gif = FixtureGIF.solidFrames(
            width: width, height: height, colorIndices: (0..<12).map { UInt8(1 + $0 % 7) },
            delays: [3, 3, 4, 2, 5, 3, 3, 4, 2, 5, 3, 7])
        let run = try convertFixture(
            gif, options: VideoSettings(timing: vfr ? .vfr : .tick), name: "avcLengths\(width)\(vfr)")
        let file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: run.path)))
        let avcC = try #require(Self.find("avcC", in: file))
        #expect(Int(file[avcC + 4] & 3) + 1 == lengthBytes)
        let listing = String(decoding: try MP4Oracle.run(MP4Oracle.ffprobe!, [
            "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pos,size", "-of", "compact=p=0", run.path,
        ]), as: UTF8.self)
        // "size=731|pos=1158" a line.
        let packets = listing.split(separator: "\n").compactMap { line -> (Int, Int)? in
            var field: [Substring: Int] = [:]
            for item in line.split(separator: "|") {
                let pair = item.split(separator: "=")
                if pair.count == 2 { field[pair[0]] = Int(pair[1]) }
            }
            guard let position = field["pos"], let size = field["size"] else { return nil }
            return (position, size)
        }
        #expect(packets.count == run.frames.count && !packets.isEmpty)
        for (position, size) in packets {
            var i = position, units = 0
            while i < position + size {
                let length = file[i..<i + lengthBytes].reduce(0) { $0 << 8 | Int($1) }
                #expect(length > 0 && file[i + lengthBytes] & 0x80 == 0)
                i += lengthBytes + length
                units += 1
            }
            #expect(i == position + size && units >= 1, "sample at \(position)")
        }
        let decode = try CapturedRun.run(MP4Oracle.ffmpeg!, [
            "-v", "error", "-nostdin", "-err_detect", "explode", "-xerror", "-i", run.path, "-f", "null", "-",
        ])
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(String(decoding: decode.stderr, as: UTF8.self))")
    }

    /// The offset of the first box of `type`'s body (after its 8-byte header).
    static func find(_ type: String, in bytes: [UInt8]) -> Int? {
        let tag = Array(type.utf8)
        guard bytes.count > 8 else { return nil }
        for i in 4..<(bytes.count - 4) where Array(bytes[i..<i + 4]) == tag { return i + 4 }
        return nil
    }

    private func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }
}
