import ChildProcesses
import Foundation
import Testing

@testable import GifxEncoders

/// The spec's boolean decoder (VP9 §9.2: `init_bool`, `read_bool`, `exit_bool`), the oracle of the encoder.
struct VP9BoolDecoder {
    let bytes: [UInt8]
    var position = 0  // bits read
    var value = 0
    var range = 255
    var maxBits: Int
    /// Whether a doubling needed a bit past the data (the spec reads it as 0; libvpx's reader fails the tile or
    /// compressed header: `vpx_reader_has_error`).
    var readPastEnd = false

    init(_ bytes: [UInt8]) throws {
        self.bytes = bytes
        maxBits = 8 * bytes.count - 8
        value = try Self.bits(bytes, &position, 8)
        guard try !read(128) else { throw BitstreamError("the bool decoder's marker bit is 1") }
    }

    static func bits(_ bytes: [UInt8], _ position: inout Int, _ count: Int) throws -> Int {
        var v = 0
        for _ in 0..<count {
            guard position < bytes.count * 8 else { throw BitstreamError("past the end") }
            v = v << 1 | Int(bytes[position >> 3] >> (7 - UInt8(position & 7))) & 1
            position += 1
        }
        return v
    }

    mutating func read(_ probability: Int) throws -> Bool {
        let split = 1 + (((range - 1) * probability) >> 8)
        let bit: Bool
        if value < split {
            range = split
            bit = false
        } else {
            range -= split
            value -= split
            bit = true
        }
        while range < 128 {
            var next = 0
            if maxBits > 0 {
                next = try Self.bits(bytes, &position, 1)
                maxBits -= 1
            } else {
                readPastEnd = true
            }
            range *= 2
            value = value << 1 | next
        }
        return bit
    }

    /// `exit_bool`'s padding: whether every bit not read is zero.
    func paddingIsZero() throws -> Bool {
        var p = position
        for _ in 0..<maxBits where try Self.bits(bytes, &p, 1) != 0 { return false }
        return true
    }
}

/// The coded skip frames of VP9 repeat pictures (`VP9SkipFrame`, `VP9BoolEncoder`): the bool encoder against
/// the spec's decoder; the headers as FFmpeg's own parser reads them (`trace_headers`); and whole frames decoded
/// by FFmpeg (`-err_detect explode`) and libvpx (`vpxdec`) after libvpx's error-resilient frames, at sizes
/// that take every partition path at the frame's edges and two tile columns.
@Suite("VP9 skip frames (bool encoder, headers, FFmpeg and vpxdec)",
       .enabled(if: VP9Oracle.available, "ffmpeg/ffprobe or vpxdec (vpx-tools) not installed"))
struct VP9SkipFrameTests {
    @Test("bool encoder: random symbols at random probabilities read back by the spec's decoder, zero padding, nothing read past the end, no byte more than the decoder reads")
    func boolRoundTrip() throws {
        var generator = SystemRandomNumberGenerator()
        for length in [0, 1, 7, 100, 5000] {
            for skew in [false, true] {
                // skewed: mostly the unlikely symbol at extreme probabilities, which carries into 0xFF runs
                var symbols: [(Bool, Int)] = []
                for _ in 0..<length {
                    if skew {
                        let p = Bool.random(using: &generator) ? 255 : 1
                        let likely = Int.random(in: 0..<10, using: &generator) > 0
                        symbols.append((likely == (p == 255), p))
                    } else {
                        symbols.append((Bool.random(using: &generator), Int.random(in: 1...255, using: &generator)))
                    }
                }
                var encoder = VP9BoolEncoder()
                for (bit, p) in symbols { encoder.put(bit, p) }
                let bytes = encoder.finish()
                var decoder = try VP9BoolDecoder(bytes)
                for (k, (bit, p)) in symbols.enumerated() {
                    let read = try decoder.read(p)
                    guard read == bit else {
                        Issue.record("symbol \(k) of \(length): \(read) for \(bit) at \(p)")
                        break
                    }
                }
                #expect(try decoder.paddingIsZero())
                #expect(!decoder.readPastEnd, "\(length) symbols")
                // The shortest stream: the bits read and at most 7 zero bits, and a zero byte after a marker byte.
                #expect(decoder.maxBits < 8 || (decoder.maxBits < 16 && bytes.last == 0), "\(length): \(decoder.maxBits) bits unread")
                #expect(bytes.last.map { $0 & 0xE0 != 0xC0 } ?? false)
            }
        }
        var literal = VP9BoolEncoder()
        literal.literal(0b1011_0010_1, 9)
        var decoder = try VP9BoolDecoder(literal.finish())
        var value = 0
        for _ in 0..<9 { value = value << 1 | (try decoder.read(128) ? 1 : 0) }
        #expect(value == 0b1011_0010_1)
    }

    @Test("compressed header: tx_mode ONLY_4X4, then 'no update' for each of the 188 probability flags")
    func compressedHeader() throws {
        let bytes = VP9SkipFrame.compressedHeader()
        var decoder = try VP9BoolDecoder(bytes)
        #expect(try !decoder.read(128) && !decoder.read(128))  // tx_mode 0
        #expect(try !decoder.read(128))  // no 4×4 coefficient update
        for _ in 0..<187 { #expect(try !decoder.read(252)) }
        #expect(try decoder.paddingIsZero())
        #expect(!decoder.readPastEnd)
    }

    static func trace(_ path: String) throws -> [(String, Int)] {
        let run = try CapturedRun.run(MP4Oracle.ffmpeg!, [
            "-v", "trace", "-nostdin", "-i", path, "-c", "copy", "-bsf:v", "trace_headers", "-f", "null", "-",
        ])
        // "[trace_headers @ 0x…] 28          found_ref[0]          1 = 1": position, name, bits, "=", value
        return String(decoding: run.stderr, as: UTF8.self).split(separator: "\n").compactMap { line -> (String, Int)? in
            guard line.contains("[trace_headers"), let end = line.range(of: "] ") else { return nil }
            let parts = line[end.upperBound...].split(separator: " ")
            guard parts.count >= 4, Int(parts[0]) != nil, parts[parts.count - 2] == "=",
                  let value = Int(parts[parts.count - 1]) else { return nil }
            return (String(parts[1]), value)
        }
    }

    /// libvpx at gifx's settings, `error-resilient` as with repeats, on FFmpeg's test pattern.
    static func libvpx(_ path: String, width: Int, height: Int, frames: Int, errorResilient: Bool = true) throws {
        _ = try VP9RepeatSplicerTests.tool(MP4Oracle.ffmpeg!, [
            "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=\(width)x\(height):r=25,format=yuv420p",
            "-frames:v", "\(frames)", "-c:v", "libvpx-vp9", "-deadline", "good", "-cpu-used", "4", "-row-mt", "1",
            "-crf", "32", "-b:v", "0",
        ] + (errorResilient ? ["-error-resilient", "default"] : []) + ["-f", "ivf", path])
    }

    @Test("the uncompressed header as FFmpeg's parser reads it: error resilient, no refresh, LAST = the slot")
    func uncompressedHeader() throws {
        let folder = try mp4Folder("vp9skipheader")
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("in.ivf").path
        try Self.libvpx(source, width: 8200, height: 16, frames: 1)
        let key = VP9RepeatSplicerTests.ivfPackets(try Data(contentsOf: URL(fileURLWithPath: source)))[0]
        let skip = VP9SkipFrame.make(width: 8200, height: 16, slot: 3)
        let path = folder.appendingPathComponent("skip.ivf").path
        try VP9RepeatSplicerTests.ivf([key, skip], width: 8200, height: 16).write(to: URL(fileURLWithPath: path))
        let fields = try Self.trace(path)
        // the skip frame's fields: those after the key frame's second frame_marker
        let start = try #require(fields.indices.filter { fields[$0].0 == "frame_marker" }.dropFirst().first)
        var skipFields: [String: Int] = [:]
        var references: [Int] = []
        for (name, value) in fields[start...] {
            if skipFields[name] == nil { skipFields[name] = value }
            if name.hasPrefix("ref_frame_idx") { references.append(value) }
        }
        let expected: [String: Int] = [
            "show_existing_frame": 0, "frame_type": 1, "show_frame": 1, "error_resilient_mode": 1,
            "refresh_frame_flags": 0, "found_ref[0]": 1, "render_and_frame_size_different": 0,
            "allow_high_precision_mv": 0, "is_filter_switchable": 0, "raw_interpolation_filter_type": 1,
            "frame_context_idx": 0, "loop_filter_level": 0, "loop_filter_delta_enabled": 0, "base_q_idx": 60,
            "segmentation_enabled": 1, "segmentation_update_map": 1, "segmentation_temporal_update": 0,
            "segmentation_update_data": 1, "tile_rows_log2": 0, "header_size_in_bytes": VP9SkipFrame.compressedHeader().count,
        ]
        for (name, value) in expected { #expect(skipFields[name] == value, "\(name)") }
        #expect(references == [3, 3, 3])
        // tiles are at most 64 superblocks (4096 pixels) wide: 8200 pixels, 129 superblocks, take four columns
        #expect(VP9SkipFrame.Geometry(width: 8200, height: 16).log2TileCols == 2)
        #expect(VP9SkipFrame.Geometry(width: 4160, height: 16).log2TileCols == 1)
        #expect(VP9SkipFrame.Geometry(width: 4096, height: 16).log2TileCols == 0)
    }

    /// Decodes `packets` (IVF) with FFmpeg and vpxdec: the frame hashes, the same from both (throws on any
    /// message).
    static func decode(_ packets: [[UInt8]], width: Int, height: Int, folder: URL) throws -> [String] {
        let path = folder.appendingPathComponent("spliced.ivf").path
        try VP9RepeatSplicerTests.ivf(packets, width: width, height: height).write(to: URL(fileURLWithPath: path))
        let ffmpeg = try VP9RepeatSplicerTests.framemd5(path)
        let libvpx = try VP9Oracle.frameHashes(path, folder: folder)
        #expect(ffmpeg == libvpx)
        return ffmpeg
    }

    /// Sizes that take every partition path at the edges (none, one or both halves inside), 8×8 blocks only,
    /// and one, two and four tile columns.
    static let sizes: [(Int, Int)] = [
        (8, 8), (2, 2), (64, 64), (72, 8), (130, 66), (200, 136), (800, 600), (1000, 70), (16, 4200), (4160, 16),
        (8200, 16),
    ]

    @Test("key frame + skip frames decode to the key frame's picture, bit for bit (FFmpeg, vpxdec)",
          arguments: Self.sizes)
    func skipFramesCopyTheKeyFrame(width: Int, height: Int) throws {
        let folder = try mp4Folder("vp9skipkey\(width)x\(height)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("in.ivf").path
        try Self.libvpx(source, width: width, height: height, frames: 1)
        let key = VP9RepeatSplicerTests.ivfPackets(try Data(contentsOf: URL(fileURLWithPath: source)))[0]
        let original = try Self.decode([key], width: width, height: height, folder: folder)
        #expect(original.count == 1)
        // a key frame lands in every slot: each slot's copy is the key frame's picture
        let skips = (0..<8).map { VP9SkipFrame.make(width: width, height: height, slot: $0) }
        #expect(try Self.decode([key] + skips, width: width, height: height, folder: folder)
            == Array(repeating: original[0], count: 9))
    }

    @Test("libvpx's error-resilient frames decode as encoded after skip frames; without error resilience they break")
    func libvpxFramesAfterSkipFrames() throws {
        let folder = try mp4Folder("vp9skipafter")
        defer { try? FileManager.default.removeItem(at: folder) }
        for (width, height) in [(200, 136), (130, 66)] {
            let source = folder.appendingPathComponent("in.ivf").path
            try Self.libvpx(source, width: width, height: height, frames: 30)
            let packets = VP9RepeatSplicerTests.ivfPackets(try Data(contentsOf: URL(fileURLWithPath: source)))
            let original = try Self.decode(packets, width: width, height: height, folder: folder)
            let splicer = VP9RepeatSplicer()
            var spliced: [[UInt8]] = [], expected: [String] = []
            for (k, packet) in packets.enumerated() {
                _ = try packet.withUnsafeBufferPointer { try splicer.rewrite($0) }
                spliced.append(packet)
                expected.append(original[k])
                for _ in 0..<(k % 3) {
                    spliced.append(try splicer.repeatPicture())
                    expected.append(original[k])
                }
            }
            #expect(try Self.decode(spliced, width: width, height: height, folder: folder) == expected)
        }
        // The same without libvpx's error resilience: the frames after skip frames predict from probabilities
        // and motion vectors the skip frames reset, and do not decode as encoded (wrong pictures or errors).
        let source = folder.appendingPathComponent("plain.ivf").path
        try Self.libvpx(source, width: 200, height: 136, frames: 30, errorResilient: false)
        let packets = VP9RepeatSplicerTests.ivfPackets(try Data(contentsOf: URL(fileURLWithPath: source)))
        let original = try VP9RepeatSplicerTests.framemd5(source)
        let splicer = VP9RepeatSplicer()
        var spliced: [[UInt8]] = [], expected: [String] = []
        for (k, packet) in packets.enumerated() {
            _ = try packet.withUnsafeBufferPointer { try splicer.rewrite($0) }
            spliced += [packet, try splicer.repeatPicture()]
            expected += [original[k], original[k]]
        }
        let path = folder.appendingPathComponent("plain-spliced.ivf").path
        try VP9RepeatSplicerTests.ivf(spliced, width: 200, height: 136).write(to: URL(fileURLWithPath: path))
        let ffmpeg: [String]? = try? VP9RepeatSplicerTests.framemd5(path)
        let libvpx: [String]? = try? VP9Oracle.frameHashes(path, folder: folder)
        #expect(ffmpeg != expected)
        #expect(libvpx != expected)
    }
}
