import ChildProcesses
import Foundation
import Testing

@testable import GifxEncoders

/// libvpx's decoder CLI (Debian's vpx-tools), the second oracle for VP9 (`nil` when not installed).
enum VP9Oracle {
    static let vpxdec: String? = ["/usr/bin/vpxdec", "/usr/local/bin/vpxdec"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }
    static var available: Bool { MP4Oracle.available && vpxdec != nil }

    /// The MD5 of every frame libvpx decodes from `path` (IVF or WebM), in order: `vpxdec --md5` of each frame
    /// written as I420 (the same hash as ffmpeg's framemd5 for yuv420p). Throws when vpxdec fails or complains.
    static func frameHashes(_ path: String, folder: URL) throws -> [String] {
        let pattern = folder.appendingPathComponent("vpxdec-%6.i420").path
        let run = try CapturedRun.run(vpxdec!, ["--md5", "--i420", "-o", pattern, path])
        let errors = String(decoding: run.stderr, as: UTF8.self)
        guard run.status == 0, errors.isEmpty else {
            throw MP4OracleError("vpxdec \(path) exited \(run.status): \(errors)")
        }
        return String(decoding: run.stdout, as: UTF8.self).split(separator: "\n").compactMap {
            $0.split(separator: " ").first.map(String.init)
        }
    }
}

/// The VP9 splicer on streams made by the ffmpeg CLI's libvpx-vp9, judged by FFmpeg's `trace_headers` (every
/// header field as FFmpeg's own parser reads it), FFmpeg's VP9 decoder (`-err_detect explode`) and libvpx's
/// (`vpxdec`): after any number of repeats spliced in after each packet, every repeat decodes to the picture
/// before it and every picture of libvpx's to what it decoded to without repeats.
@Suite("VP9 repeat splicer (libvpx streams, FFmpeg's parser and decoder, vpxdec)",
       .enabled(if: VP9Oracle.available, "ffmpeg/ffprobe or vpxdec (vpx-tools) not installed"))
struct VP9RepeatSplicerTests {
    @Test("show_existing_frame headers, bit by bit (VP9 §6.2): one byte, two for profile 3")
    func headers() throws {
        // frame_marker 10, profile_low_bit, profile_high_bit, [reserved_zero], show_existing_frame 1, 3-bit index
        for slot in 0..<8 {
            #expect(VP9RepeatSplicer.showExisting(slot: slot, profile: 0) == [0x88 | UInt8(slot)])
        }
        #expect(VP9RepeatSplicer.showExisting(slot: 5, profile: 1) == [0b1010_1101])
        #expect(VP9RepeatSplicer.showExisting(slot: 5, profile: 2) == [0b1001_1101])
        #expect(VP9RepeatSplicer.showExisting(slot: 2, profile: 3) == [0b1011_0101, 0b0000_0000])
        for profile in 0..<4 {
            let header = try VP9FrameHeader(VP9RepeatSplicer.showExisting(slot: 6, profile: profile))
            #expect(header.profile == profile && header.existingSlot == 6)
        }
        let splicer = VP9RepeatSplicer()
        #expect(throws: BitstreamError.self) { try splicer.repeatPicture() }  // nothing shown yet
    }

    /// A non-key frame's uncompressed header as far as the frame size: shown, not error resilient, refreshing
    /// `refresh`, the references all slot 0, and `size` written out (`found_ref` 0 three times).
    static func interHeader(refresh: Int, size: (Int, Int)) -> [UInt8] {
        var w = RBSPWriter()
        w.bits(0b1000_0110, 8)  // frame_marker, profile 0, show_existing_frame 0, non-key, shown, not resilient
        w.bits(0, 2)  // reset_frame_context
        w.bits(refresh, 8)
        w.bits(0, 12)  // ref_frame_idx and sign bias, three times
        w.bits(0, 3)  // found_ref
        w.bits(size.0 - 1, 16)
        w.bits(size.1 - 1, 16)
        return w.bytes
    }

    @Test("a shown inter frame that lands in no slot cannot be repeated: refused, never a wrong picture")
    func shownFrameInNoSlot() throws {
        let splicer = VP9RepeatSplicer()
        _ = try Self.interHeader(refresh: 0b0000_0100, size: (96, 64)).withUnsafeBufferPointer { try splicer.rewrite($0) }
        #expect(splicer.slotSizes[2] == VP9FrameHeader.Size(width: 96, height: 64))
        #expect(try splicer.repeatPicture() == VP9SkipFrame.make(width: 96, height: 64, slot: 2))
        _ = try Self.interHeader(refresh: 0, size: (96, 64)).withUnsafeBufferPointer { try splicer.rewrite($0) }
        #expect(throws: BitstreamError.self) { try splicer.repeatPicture() }
        // a show_existing_frame packet of libvpx's own: its repeats show the same slot
        _ = try [UInt8]([0x8A]).withUnsafeBufferPointer { try splicer.rewrite($0) }
        #expect(try splicer.repeatPicture() == VP9SkipFrame.make(width: 96, height: 64, slot: 2))
        // a slot no frame has landed in yet: no size to cover, refused
        _ = try [UInt8]([0x8D]).withUnsafeBufferPointer { try splicer.rewrite($0) }
        #expect(throws: BitstreamError.self) { try splicer.repeatPicture() }
    }

    /// An IVF file (the container vpxdec and FFmpeg read raw VP9 from): a 32-byte header, then each frame as
    /// a 4-byte size, an 8-byte timestamp and its bytes.
    static func ivf(_ frames: [[UInt8]], width: Int, height: Int) -> Data {
        var data = Data()
        func le(_ value: Int, _ bytes: Int) { for k in 0..<bytes { data.append(UInt8((value >> (8 * k)) & 0xFF)) } }
        data.append(contentsOf: Array("DKIF".utf8)); le(0, 2); le(32, 2); data.append(contentsOf: Array("VP90".utf8))
        le(width, 2); le(height, 2); le(25, 4); le(1, 4); le(frames.count, 4); le(0, 4)
        for (k, frame) in frames.enumerated() {
            le(frame.count, 4); le(k, 8); data.append(contentsOf: frame)
        }
        return data
    }

    /// The packets of an IVF file.
    static func ivfPackets(_ data: Data) -> [[UInt8]] {
        let bytes = [UInt8](data)
        var packets: [[UInt8]] = [], p = 32
        while p + 12 <= bytes.count {
            let size = (0..<4).reduce(0) { $0 | Int(bytes[p + $1]) << (8 * $1) }
            packets.append(Array(bytes[(p + 12)..<(p + 12 + size)]))
            p += 12 + size
        }
        return packets
    }

    static func tool(_ tool: String, _ arguments: [String]) throws -> String {
        String(decoding: try H264RepeatSplicerTests.tool(tool, arguments), as: UTF8.self)
    }

    static func framemd5(_ path: String) throws -> [String] {
        try tool(MP4Oracle.ffmpeg!, [
            "-v", "error", "-nostdin", "-err_detect", "explode", "-xerror", "-i", path, "-fps_mode", "passthrough",
            "-f", "framemd5", "-",
        ]).split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
            $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// libvpx at gifx's settings (one pass, `deadline` good, `crf`), and in two passes, where libvpx codes
    /// hidden alt-ref frames, packed with the next shown frame in a superframe.
    static let streams: [(name: String, passes: Int)] = [("one pass", 1), ("two passes, superframes", 2)]

    @Test("libvpx streams: the headers as FFmpeg reads them; repeats after every packet decode as copies",
          arguments: [1, 2])
    func splicesLibvpxStreams(passes: Int) throws {
        let folder = try mp4Folder("vp9splice\(passes)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("in.ivf").path
        let source = ["-f", "lavfi", "-i", "testsrc2=s=96x64:r=25,trim=end_frame=70,format=yuv420p"]
        // error resilient, as gifx's libvpx is with repeats (EncoderTuning.forRepeatPictures)
        let codec = ["-c:v", "libvpx-vp9", "-deadline", "good", "-cpu-used", "4", "-crf", "32", "-b:v", "0",
                     "-g", "40", "-error-resilient", "default"]
        let log = folder.appendingPathComponent("pass").path
        if passes == 2 {
            _ = try Self.tool(MP4Oracle.ffmpeg!, ["-v", "error", "-y"] + source + codec
                + ["-pass", "1", "-passlogfile", log, "-f", "null", "-"])
            _ = try Self.tool(MP4Oracle.ffmpeg!, ["-v", "error", "-y"] + source + codec
                + ["-pass", "2", "-passlogfile", log, "-f", "ivf", path])
        } else {
            _ = try Self.tool(MP4Oracle.ffmpeg!, ["-v", "error", "-y"] + source + codec + ["-f", "ivf", path])
        }
        let packets = Self.ivfPackets(try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(packets.count == 70)

        // Every frame's header against trace_headers (which prints each frame of a superframe).
        let trace = try CapturedRun.run(MP4Oracle.ffmpeg!, [
            "-v", "trace", "-nostdin", "-i", path, "-c", "copy", "-bsf:v", "trace_headers", "-f", "null", "-",
        ])
        let traced = String(decoding: trace.stderr, as: UTF8.self).split(separator: "\n").compactMap { line -> (String, Int)? in
            guard line.contains("[trace_headers"), let last = line.split(separator: "=").last,
                  let value = Int(last.trimmingCharacters(in: .whitespaces)) else { return nil }
            for field in ["show_existing_frame", "frame_type", "show_frame", "error_resilient_mode", "refresh_frame_flags"]
            where line.contains(" \(field) ") { return (field, value) }
            return nil
        }
        var parsed: [(String, Int)] = [], superframes = 0
        for packet in packets {
            let frames = try packet.withUnsafeBufferPointer { try VP9RepeatSplicer.frames(in: $0) }
            if frames.count > 1 { superframes += 1 }
            for range in frames {
                let header = try VP9FrameHeader(Array(packet[range]))
                parsed.append(("show_existing_frame", header.existingSlot == nil ? 0 : 1))
                if header.existingSlot != nil { continue }
                parsed.append(("frame_type", header.keyFrame ? 0 : 1))
                parsed.append(("show_frame", header.showFrame ? 1 : 0))
                parsed.append(("error_resilient_mode", header.errorResilient ? 1 : 0))
                if !header.keyFrame { parsed.append(("refresh_frame_flags", header.refreshFrameFlags)) }
            }
        }
        #expect(parsed.map(\.0) == traced.map(\.0))
        #expect(parsed.map(\.1) == traced.map(\.1))
        if passes == 2 { #expect(superframes > 0, "libvpx wrote no hidden alt-ref frame: the case tests nothing") }

        // 0-5 repeats after each packet, decoded by FFmpeg and by libvpx.
        let original = try Self.framemd5(path)
        #expect(original.count == 70)
        let splicer = VP9RepeatSplicer()
        var spliced: [[UInt8]] = [], expected: [String] = []
        for (k, packet) in packets.enumerated() {
            #expect(try packet.withUnsafeBufferPointer { try splicer.rewrite($0) } == nil)
            spliced.append(packet)
            expected.append(original[k])
            for _ in 0..<(k * 7 % 6) {
                spliced.append(try splicer.repeatPicture())
                expected.append(original[k])
            }
        }
        #expect(splicer.repeatsWritten == spliced.count - packets.count)
        #expect(splicer.repeatBytes == splicer.repeatsWritten * VP9SkipFrame.make(width: 96, height: 64, slot: 0).count)
        let output = folder.appendingPathComponent("spliced.ivf").path
        try Self.ivf(spliced, width: 96, height: 64).write(to: URL(fileURLWithPath: output))
        #expect(try Self.framemd5(output) == expected)
        #expect(try VP9Oracle.frameHashes(output, folder: folder) == expected)
    }
}
