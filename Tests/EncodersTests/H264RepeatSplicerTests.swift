import ChildProcesses
import Foundation
import GifFixtures
import Testing

@testable import GifxEncoders

/// The splicer on streams made by the ffmpeg CLI's libx264, judged by ffmpeg's decoder (`-err_detect explode`:
/// any syntax or reference error fails) and its `trace_headers` bitstream filter (every syntax element as FFmpeg's
/// own parser reads it). A repeat must decode to the picture before it, and every picture of x264's to what it
/// decoded to without repeats.
@Suite("H.264 repeat splicer (x264 streams, FFmpeg's decoder and header parser)",
       .enabled(if: MP4Oracle.available, "ffmpeg/ffprobe not installed"))
struct H264RepeatSplicerTests {
    /// Runs a tool; throws when it fails or writes anything on stderr (run at `-v error`).
    static func tool(_ tool: String, _ arguments: [String]) throws -> Data {
        let run = try CapturedRun.run(tool, arguments)
        let errors = String(decoding: run.stderr, as: UTF8.self)
        guard run.status == 0, errors.isEmpty else {
            throw MP4OracleError("\(tool) \(arguments.joined(separator: " ")) exited \(run.status): \(errors)")
        }
        return run.stdout
    }

    /// The frame hashes ffmpeg decodes from a raw H.264 (or `format`) file, in order.
    static func hashes(_ path: String, format: String = "h264") throws -> [String] {
        let text = String(decoding: try tool(MP4Oracle.ffmpeg!, [
            "-v", "error", "-nostdin", "-err_detect", "explode", "-xerror", "-f", format, "-i", path,
            "-fps_mode", "passthrough", "-f", "framemd5", "-",
        ]), as: UTF8.self)
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
            $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// Each syntax element `name` as trace_headers prints it, in stream order.
    static func traced(_ path: String, _ name: String, format: String = "h264") throws -> [Int] {
        let run = try CapturedRun.run(MP4Oracle.ffmpeg!, [
            "-v", "trace", "-nostdin", "-f", format, "-i", path, "-c", "copy", "-bsf:v", "trace_headers", "-f", "null", "-",
        ])
        let text = String(decoding: run.stderr, as: UTF8.self)
        return text.split(separator: "\n").compactMap { line -> Int? in
            guard line.contains("trace_headers"), let range = line.range(of: " \(name) ") else { return nil }
            return line[range.upperBound...].split(separator: "=").last
                .flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        }
    }

    /// The access units of an x264 Annex B stream with its parameter sets in band: the SPS and PPS of the first
    /// IDR as extradata, then each picture's NAL units (a picture starts at a slice with first_mb_in_slice 0).
    static func split(_ stream: [UInt8]) -> (extradata: [UInt8], pictures: [[UInt8]]) {
        var extradata: [UInt8] = []
        var pictures: [[UInt8]] = []
        stream.withUnsafeBufferPointer { bytes in
            for unit in annexBUnits(bytes) {
                let type = bytes[unit.lowerBound] & 0x1F
                let nal = [0, 0, 0, 1] + Array(bytes[unit])
                if type == 7 || type == 8 {
                    if pictures.isEmpty { extradata += nal }
                    continue  // in band again at each IDR: the same bytes, left out
                }
                if type == 1 || type == 5 {
                    // first_mb_in_slice ue(v) = 0 is a single 1 bit
                    if bytes[unit.lowerBound + 1] & 0x80 != 0 || pictures.isEmpty { pictures.append([]) }
                }
                if !pictures.isEmpty { pictures[pictures.count - 1] += nal }
            }
        }
        return (extradata, pictures)
    }

    /// x264 without B-frames and with several references (`ref=3`, weighted prediction at `medium`), key frames
    /// every 8 pictures: the repeats after each picture (none, one, long runs across key frames) decode to the
    /// picture they repeat, and every picture of x264's to what it decoded to without repeats (a repeat that
    /// disturbed x264's references would change them). trace_headers reads what the splicer wrote: picture order
    /// type 0 with a 16-bit lsb in the SPS, twice the output frames since the IDR as each picture's order count,
    /// x264's `frame_num`s as x264 wrote them, the repeats as non-reference slices numbered after the held picture.
    @Test("repeats are non-reference pictures: x264's references and frame_num stay, picture order counts on",
          arguments: ["medium", "ultrafast"])
    func spliceKeepsReferences(_ preset: String) throws {
        let folder = try mp4Folder("splice\(preset)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("x264.h264").path
        _ = try Self.tool(MP4Oracle.ffmpeg!, [
            "-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc2=size=50x36:rate=25", "-frames:v", "24",
            "-c:v", "libx264", "-preset", preset, "-x264-params", "keyint=8:min-keyint=8:bframes=0:ref=3:scenecut=0",
            "-pix_fmt", "yuv420p", "-f", "h264", source,
        ])
        #expect(try Self.traced(source, "max_num_ref_frames").allSatisfy { $0 == 3 }, "the test needs 3 references")
        let original = try Self.hashes(source)
        let originalFrameNums = try Self.traced(source, "frame_num")
        let (extradata, pictures) = Self.split([UInt8](try Data(contentsOf: URL(fileURLWithPath: source))))
        #expect(pictures.count == 24)

        let splicer = try H264RepeatSplicer(extradata: extradata)
        #expect(splicer.sps.macroblocksPerFrame == 4 * 3)
        let repeats = (0..<24).map { [0, 1, 20, 3, 0, 37, 2, 15][$0 % 8] }
        var spliced = splicer.extradata
        var expectedHashes: [String] = [], expectedOrder: [Int] = [], expectedFrameNums: [Int] = []
        var sinceIDR = 0
        for (k, picture) in pictures.enumerated() {
            spliced += try #require(try picture.withUnsafeBufferPointer { try splicer.rewrite($0) })
            if k % 8 == 0 { sinceIDR = 0 }  // keyint 8, no scene cuts: an IDR every 8 pictures
            expectedOrder.append(2 * sinceIDR)
            expectedFrameNums.append(originalFrameNums[k])
            sinceIDR += 1
            expectedHashes.append(original[k])
            for _ in 0..<repeats[k] {
                spliced += try splicer.repeatPicture()
                expectedOrder.append(2 * sinceIDR)
                expectedFrameNums.append((originalFrameNums[k] + 1) % splicer.sps.maxFrameNum)
                sinceIDR += 1
                expectedHashes.append(original[k])
            }
        }
        let output = folder.appendingPathComponent("spliced.h264").path
        try Data(spliced).write(to: URL(fileURLWithPath: output))
        #expect(splicer.repeatsWritten == repeats.reduce(0, +))

        let decoded = try Self.hashes(output)
        #expect(decoded.count == expectedHashes.count)
        #expect(decoded == expectedHashes)
        // (the parameter sets are traced twice: as extradata and with the first picture)
        func all(_ name: String, _ value: Int) throws -> Bool {
            let values = try Self.traced(output, name)
            return !values.isEmpty && values.allSatisfy { $0 == value }
        }
        #expect(try all("pic_order_cnt_type", 0))
        #expect(try all("log2_max_pic_order_cnt_lsb_minus4", 12))
        #expect(try all("max_num_ref_frames", 3))
        #expect(try Self.traced(output, "pic_order_cnt_lsb") == expectedOrder)
        #expect(try Self.traced(output, "frame_num") == expectedFrameNums)
        // x264's pictures are references, the repeats are not
        let refIdc = try Self.traced(output, "nal_ref_idc")
        #expect(refIdc.filter { $0 == 0 }.count == splicer.repeatsWritten, "\(refIdc)")
        #expect(try Self.traced(output, "pic_parameter_set_id").filter { $0 == splicer.repeatPPSID }.count
                >= splicer.repeatsWritten)
    }

    /// Picture order counts wrap at 2^16 (32,768 output frames of 2 each): a stream of 40,000 frames after one IDR
    /// decodes in order; a run longer than `maximumRun` is refused (the session sends the picture again first).
    @Test("picture order counts wrap at 2^16; a run beyond maximumRun is refused")
    func orderCountWrapsAndLongRunsAreRefused() throws {
        let folder = try mp4Folder("splicewrap")
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("x264.h264").path
        _ = try Self.tool(MP4Oracle.ffmpeg!, [
            "-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc2=size=32x32:rate=25", "-frames:v", "5",
            "-c:v", "libx264", "-preset", "ultrafast", "-x264-params", "bframes=0:scenecut=0",
            "-pix_fmt", "yuv420p", "-f", "h264", source,
        ])
        let original = try Self.hashes(source)
        let (extradata, pictures) = Self.split([UInt8](try Data(contentsOf: URL(fileURLWithPath: source))))
        let splicer = try H264RepeatSplicer(extradata: extradata)
        var spliced = splicer.extradata
        var expected: [String] = []
        for (k, picture) in pictures.enumerated() {
            spliced += try #require(try picture.withUnsafeBufferPointer { try splicer.rewrite($0) })
            expected.append(original[k])
            for _ in 0..<(k < 3 ? H264RepeatSplicer.maximumRun : 0) {
                spliced += try splicer.repeatPicture()
                expected.append(original[k])
            }
        }
        let output = folder.appendingPathComponent("wrap.h264").path
        try Data(spliced).write(to: URL(fileURLWithPath: output))
        let decoded = try Self.hashes(output)
        #expect(decoded.count == expected.count)
        #expect(decoded == expected)

        let fresh = try H264RepeatSplicer(extradata: extradata)
        _ = try pictures[0].withUnsafeBufferPointer { try fresh.rewrite($0) }
        for _ in 0..<H264RepeatSplicer.maximumRun { _ = try fresh.repeatPicture() }
        #expect(throws: BitstreamError.self) { try fresh.repeatPicture() }
    }

    @Test("streams the repeat pictures cannot follow are refused: B-frames (POC type 0)")
    func refusals() throws {
        let folder = try mp4Folder("refusals")
        defer { try? FileManager.default.removeItem(at: folder) }
        for params in ["bframes=2:ref=1", "bframes=1:ref=3"] {
            let source = folder.appendingPathComponent("x.h264").path
            _ = try Self.tool(MP4Oracle.ffmpeg!, [
                "-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "testsrc2=size=32x32:rate=25", "-frames:v", "4",
                "-c:v", "libx264", "-x264-params", params, "-f", "h264", source,
            ])
            let (extradata, _) = Self.split([UInt8](try Data(contentsOf: URL(fileURLWithPath: source))))
            #expect(throws: BitstreamError.self, "\(params)") { try H264RepeatSplicer(extradata: extradata) }
        }
    }
}
