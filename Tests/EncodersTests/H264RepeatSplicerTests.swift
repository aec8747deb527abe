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

    /// x264 with a short key frame interval gets a 4-bit frame_num (MaxFrameNum 16): runs of repeats wrap it.
    @Test("repeats decode to the picture they repeat, frame_num counts on and wraps at MaxFrameNum",
          arguments: ["medium", "ultrafast"])
    func spliceAndWrap(_ preset: String) throws {
        let folder = try mp4Folder("splice\(preset)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("x264.h264").path
        _ = try Self.tool(MP4Oracle.ffmpeg!, [
            "-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc2=size=50x36:rate=25", "-frames:v", "24",
            "-c:v", "libx264", "-preset", preset, "-x264-params", "keyint=8:min-keyint=8:bframes=0:ref=1:scenecut=0",
            "-pix_fmt", "yuv420p", "-f", "h264", source,
        ])
        let log2 = try Self.traced(source, "log2_max_frame_num_minus4")
        #expect(!log2.isEmpty && log2.allSatisfy { $0 == 0 }, "the test needs a 4-bit frame_num")
        let original = try Self.hashes(source)
        let (extradata, pictures) = Self.split([UInt8](try Data(contentsOf: URL(fileURLWithPath: source))))
        #expect(pictures.count == 24)

        let splicer = try H264RepeatSplicer(extradata: extradata)
        #expect(splicer.sps.log2MaxFrameNum == 4)
        #expect(splicer.sps.macroblocksPerFrame == 4 * 3)
        // repeats after each picture: none, one, a run that wraps frame_num (more than 16), across key frames
        let repeats = (0..<24).map { [0, 1, 20, 3, 0, 37, 2, 15][$0 % 8] }
        var spliced = splicer.extradata
        var expectedHashes: [String] = []
        var expectedFrameNums: [Int] = []
        var sinceIDR = 0
        for (k, picture) in pictures.enumerated() {
            let rewritten = try picture.withUnsafeBufferPointer { try splicer.rewrite($0) } ?? picture
            spliced += rewritten
            if k % 8 == 0 { sinceIDR = 0 }  // keyint 8, no scene cuts: an IDR every 8 pictures
            expectedFrameNums.append(sinceIDR % 16)
            sinceIDR += 1
            expectedHashes.append(original[k])
            for _ in 0..<repeats[k] {
                spliced += try splicer.repeatPicture()
                expectedFrameNums.append(sinceIDR % 16)
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
        let frameNums = try Self.traced(output, "frame_num")
        #expect(frameNums == expectedFrameNums)
        #expect(frameNums.contains(15) && frameNums.filter { $0 == 0 }.count > 3, "frame_num never wrapped")
        // the repeat pictures are P slices of the repeat PPS with deblocking off
        #expect(try Self.traced(output, "pic_parameter_set_id").filter { $0 == splicer.repeatPPSID }.count
                >= splicer.repeatsWritten)
    }

    @Test("streams the repeat pictures cannot follow are refused: B-frames (POC type 0), several references")
    func refusals() throws {
        let folder = try mp4Folder("refusals")
        defer { try? FileManager.default.removeItem(at: folder) }
        for params in ["bframes=2:ref=1", "bframes=0:ref=3"] {
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
