import ChildProcesses
import Foundation
import GifFixtures
import Testing

@testable import GifxEncoders

/// libde265's `dec265` (Debian's libde265-examples), the second HEVC decoder beside FFmpeg's.
enum HEVCOracle {
    static let dec265: String? = ["/usr/bin/libde265-dec265", "/usr/bin/dec265", "/usr/local/bin/dec265"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }
    static var available: Bool { MP4Oracle.available && dec265 != nil }

    /// The I420 frames of a raw HEVC file (Annex B) as libde265 and as FFmpeg decode them, each all frames in
    /// order; throws when either fails or complains.
    static func decodeTwice(_ path: String, folder: URL) throws -> (libde265: Data, ffmpeg: Data) {
        let de265 = folder.appendingPathComponent("de265.yuv").path, ffmpeg = folder.appendingPathComponent("ffmpeg.yuv").path
        let run = try CapturedRun.run(dec265!, ["-q", "-o", de265, path])
        // dec265 prints its progress ("frame 100", "Frames decoded: N") on stderr, and libde265's decoding
        // warnings and errors there too.
        let messages = String(decoding: run.stderr, as: UTF8.self).lowercased()
        guard run.status == 0, !messages.contains("warn"), !messages.contains("error") else {
            throw MP4OracleError("dec265 \(path) exited \(run.status): \(messages)")
        }
        _ = try H264RepeatSplicerTests.tool(MP4Oracle.ffmpeg!, [
            "-v", "error", "-nostdin", "-y", "-err_detect", "explode", "-xerror", "-i", path, "-fps_mode", "passthrough",
            "-f", "rawvideo", "-pix_fmt", "yuv420p", ffmpeg,
        ])
        return (try Data(contentsOf: URL(fileURLWithPath: de265)), try Data(contentsOf: URL(fileURLWithPath: ffmpeg)))
    }
}

/// The HEVC splicer on streams made by the ffmpeg CLI's libx265, judged by FFmpeg's decoder (`-err_detect
/// explode`), its `trace_headers` bitstream filter (every syntax element as FFmpeg's own parser reads it) and
/// libde265: after any number of repeats spliced in after each picture, every repeat decodes to the picture before
/// it and every picture of x265's to what it decoded to without repeats (the copy-expanded reference), and the
/// picture order count runs on by one per picture, wrapping at `MaxPicOrderCntLsb`.
@Suite("HEVC repeat splicer (x265 streams, FFmpeg's parser and decoder, libde265)",
       .enabled(if: HEVCOracle.available, "ffmpeg/ffprobe or dec265 (libde265-examples) not installed"))
struct HEVCRepeatSplicerTests {
    static func hashes(_ path: String) throws -> [String] { try H264RepeatSplicerTests.hashes(path, format: "hevc") }

    static func traced(_ path: String, _ name: String) throws -> [Int] {
        try H264RepeatSplicerTests.traced(path, name, format: "hevc")
    }

    /// The access units of an x265 Annex B stream with its parameter sets in band: the VPS, SPS and PPS before the
    /// first picture as extradata, then each picture's NAL units (a picture starts at a slice segment whose
    /// first_slice_segment_in_pic_flag is 1).
    static func split(_ stream: [UInt8]) -> (extradata: [UInt8], pictures: [[UInt8]]) {
        var extradata: [UInt8] = []
        var pictures: [[UInt8]] = []
        stream.withUnsafeBufferPointer { bytes in
            for unit in annexBUnits(bytes) {
                let type = Int(bytes[unit.lowerBound] >> 1) & 0x3F
                let nal = [0, 0, 0, 1] + Array(bytes[unit])
                if type >= 32 && type <= 34 {
                    if pictures.isEmpty { extradata += nal }
                    continue  // in band again at each IDR: the same bytes, left out
                }
                if type < 32 && bytes[unit.lowerBound + 2] & 0x80 != 0 { pictures.append([]) }
                if !pictures.isEmpty { pictures[pictures.count - 1] += nal }
            }
        }
        return (extradata, pictures)
    }

    static func x265(_ folder: URL, size: String, frames: Int, params: String, preset: String = "medium") throws -> String {
        let source = folder.appendingPathComponent("x265-\(size)-\(preset).hevc").path
        _ = try H264RepeatSplicerTests.tool(MP4Oracle.ffmpeg!, [
            "-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=25", "-frames:v", "\(frames)",
            "-c:v", "libx265", "-preset", preset, "-x265-params", "log-level=error:" + params, "-pix_fmt", "yuv420p",
            "-f", "hevc", source,
        ])
        return source
    }

    /// Sizes: one coding tree block wide with a partial one below (libx265 3.5 itself writes out of bounds in its
    /// lookahead's cuTree at widths under 64 with these settings, so none is narrower), several rows and
    /// columns with partial blocks at the right and bottom, and a height that is not a multiple of 8 (coded
    /// larger, cropped by the conformance window).
    /// Key frames every 8 pictures: IDR pictures (closed GOPs, as gifx forces them: POC back to 0), or with x265's
    /// open GOPs CRA pictures (the POC runs on).
    /// The repeats name x265's own PPS, so each case gives its slice header other fields to write: x265's
    /// defaults (weighted prediction, deblocking with loop filtering across slices), the PPS of a lossless
    /// stream (`cu_transquant_bypass_flag` coded in every unit), and one with deblocking and SAO off.
    @Test("repeats decode to the picture they repeat; x265's pictures to what they were; POC wraps at 256",
          arguments: [("64x40", "medium", false, ""), ("200x120", "medium", false, ":lossless=1"),
                      ("200x120", "ultrafast", true, ":deblock=0:sao=0:weightp=0"), ("136x90", "medium", true, "")])
    func spliceAndWrap(_ size: String, _ preset: String, _ openGOP: Bool, _ extra: String) throws {
        let folder = try mp4Folder("hevcsplice\(size)\(preset)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = try Self.x265(
            folder, size: size, frames: 24,
            params: "keyint=8:min-keyint=8:scenecut=0:bframes=0:ref=1:temporal-mvp=0:wpp=0:open-gop=\(openGOP ? 1 : 0)" + extra,
            preset: preset)
        let lsbBits = try Self.traced(source, "log2_max_pic_order_cnt_lsb_minus4")
        #expect(!lsbBits.isEmpty && lsbBits.allSatisfy { $0 == 4 }, "the test needs an 8-bit POC lsb")
        #expect(try Self.traced(source, "nal_unit_type").filter { $0 == 21 }.count == (openGOP ? 2 : 0), "CRA pictures")
        let original = try Self.hashes(source)
        let (extradata, pictures) = Self.split([UInt8](try Data(contentsOf: URL(fileURLWithPath: source))))
        #expect(pictures.count == 24 && original.count == 24)

        let splicer = try HEVCRepeatSplicer(extradata: extradata)
        #expect(splicer.sps.log2MaxPocLsb == 8)
        // repeats after each picture: none, one, many, across key frames (keyint 8), and a run of 300 that wraps
        // the 8-bit POC lsb inside one GOP
        let repeats = (0..<24).map { [0, 1, 20, 3, 0, 300, 2, 15][$0 % 8] }
        var spliced = extradata
        var expectedHashes: [String] = []
        var expectedPOCs: [Int] = []  // slice_pic_order_cnt_lsb of every picture but the IDRs
        var sinceIDR = 0
        for (k, picture) in pictures.enumerated() {
            spliced += try picture.withUnsafeBufferPointer { try splicer.rewrite($0) } ?? picture
            if k == 0 || (k % 8 == 0 && !openGOP) { sinceIDR = 0 } else { expectedPOCs.append(sinceIDR % 256) }
            sinceIDR += 1
            expectedHashes.append(original[k])
            for _ in 0..<repeats[k] {
                spliced += try splicer.repeatPicture()
                expectedPOCs.append(sinceIDR % 256)
                sinceIDR += 1
                expectedHashes.append(original[k])
            }
        }
        let output = folder.appendingPathComponent("spliced.hevc").path
        try Data(spliced).write(to: URL(fileURLWithPath: output))
        #expect(splicer.repeatsWritten == repeats.reduce(0, +))

        let decoded = try Self.hashes(output)
        #expect(decoded.count == expectedHashes.count)
        #expect(decoded == expectedHashes)
        let pocs = try Self.traced(output, "slice_pic_order_cnt_lsb")
        #expect(pocs == expectedPOCs)
        #expect(pocs.contains(255) && pocs.filter { $0 == 0 }.count >= 1, "the POC lsb never wrapped")
        // one PPS, x265's, which every picture names: Firefox keeps only the first PPS of an hvcC
        let ppsIDs = try Self.traced(output, "pps_pic_parameter_set_id")
        #expect(!ppsIDs.isEmpty && ppsIDs.allSatisfy { $0 == 0 }, "PPS ids \(ppsIDs)")
        #expect(try Self.traced(output, "slice_pic_parameter_set_id") == [Int](repeating: 0, count: expectedHashes.count))
        let (libde265, ffmpeg) = try HEVCOracle.decodeTwice(output, folder: folder)
        #expect(!ffmpeg.isEmpty && libde265 == ffmpeg, "libde265 decodes other frames than FFmpeg")
    }

    @Test("streams the repeat pictures cannot follow are refused: temporal MVP, wavefronts, B-frames, several references")
    func refusals() throws {
        let folder = try mp4Folder("hevcrefusals")
        defer { try? FileManager.default.removeItem(at: folder) }
        // temporal MVP on, or wavefronts on (x265's defaults): refused when the parameter sets are read
        // (two columns of coding tree blocks: x265 writes no wavefronts for one)
        for params in ["bframes=0:ref=1:wpp=0", "bframes=0:ref=1:temporal-mvp=0"] {
            let source = try Self.x265(folder, size: "200x120", frames: 4, params: params)
            #expect(throws: BitstreamError.self, "\(params)") {
                try HEVCRepeatSplicer(extradata: Self.split([UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))).extradata)
            }
        }
        // B-frames, or three references: refused at the first picture that uses them
        for params in ["bframes=3:ref=1:temporal-mvp=0:wpp=0", "bframes=0:ref=3:temporal-mvp=0:wpp=0"] {
            let source = try Self.x265(folder, size: "64x64", frames: 12, params: params + ":keyint=12:scenecut=0")
            let (extradata, pictures) = Self.split([UInt8](try Data(contentsOf: URL(fileURLWithPath: source))))
            let splicer = try HEVCRepeatSplicer(extradata: extradata)
            #expect(throws: BitstreamError.self, "\(params)") {
                for picture in pictures { _ = try picture.withUnsafeBufferPointer { try splicer.rewrite($0) } }
            }
        }
    }

    @Test("the CABAC encoder's bins come back from an arithmetic decoder written from the standard (9.3.4.3)")
    func cabacRoundTrip() throws {
        var rng = SplitMix64(seed: 51)
        for trial in 0..<40 {
            let count = 1 + Int(rng.next() % 3000)
            let skew = Int(rng.next() % 100)
            // bins, each on one of 3 contexts (index) or the terminating bin (-1, 0 except the last)
            var bins: [(context: Int, bin: Int)] = []
            for k in 0..<count {
                if k % 50 == 49 { bins.append((-1, 0)); continue }
                bins.append((Int(rng.next() % 3), Int(rng.next() % 100) < skew ? 1 : 0))
            }
            bins.append((-1, 1))
            let initValues = [107, 139, 197], qp = Int(rng.next() % 52)
            var header = RBSPWriter()
            header.bits(0x5A, 8)
            var contexts = initValues.map { HEVCCabacWriter.Context(initValue: $0, sliceQP: qp) }
            var cabac = HEVCCabacWriter(continuing: header)
            for (context, bin) in bins {
                if context < 0 { cabac.terminate(bin) } else { cabac.encode(bin, &contexts[context]) }
            }
            var written = cabac.writer
            let dataBits = written.position - 8  // up to the flush's last bit, the stop bit
            while written.position & 7 != 0 { written.bit(0) }
            var decoder = ReferenceCabacDecoder(bytes: Array(written.bytes.dropFirst()), initValues: initValues, qp: qp)
            var decoded: [Int] = []
            for (context, _) in bins { decoded.append(context < 0 ? decoder.terminate() : decoder.decision(context)) }
            #expect(decoded == bins.map(\.bin), "trial \(trial): \(count) bins at QP \(qp)")
            // the last bit the decoder reads before it finishes is the stop bit, the flush's last (9.3.4.3.5)
            #expect(decoder.bitsRead == dataBits, "trial \(trial)")
        }
    }
}

/// HEVC's arithmetic decoding engine (H.265 9.3.4.3, written from the standard for the test): context
/// initialisation (9.3.2.2), DecodeDecision, DecodeTerminate.
struct ReferenceCabacDecoder {
    let bytes: [UInt8]
    var bitsRead = 0
    var range = 510
    var offset = 0
    var states: [(state: Int, mps: Int)]

    init(bytes: [UInt8], initValues: [Int], qp: Int) {
        self.bytes = bytes
        states = initValues.map { value in
            let m = (value >> 4) * 5 - 45, n = ((value & 15) << 3) - 16
            let pre = min(126, max(1, ((m * min(51, max(0, qp))) >> 4) + n))
            return pre <= 63 ? (63 - pre, 0) : (pre - 64, 1)
        }
        for _ in 0..<9 { offset = offset << 1 | readBit() }
    }

    mutating func readBit() -> Int {
        defer { bitsRead += 1 }
        guard bitsRead < bytes.count * 8 else { return 0 }
        return Int(bytes[bitsRead >> 3] >> (7 - UInt8(bitsRead & 7))) & 1
    }

    mutating func decision(_ context: Int) -> Int {
        var (state, mps) = states[context]
        let lps = HEVCCabacWriterTables.rangeTabLPS[state][(range >> 6) & 3]
        range -= lps
        let bin: Int
        if offset >= range {
            bin = 1 - mps
            offset -= range
            range = lps
            if state == 0 { mps = 1 - mps }
            state = HEVCCabacWriterTables.transIdxLPS[state]
        } else {
            bin = mps
            state = min(state + 1, 62)
        }
        states[context] = (state, mps)
        while range < 256 {
            range <<= 1
            offset = offset << 1 | readBit()
        }
        return bin
    }

    mutating func terminate() -> Int {
        range -= 2
        if offset >= range { return 1 }
        while range < 256 {
            range <<= 1
            offset = offset << 1 | readBit()
        }
        return 0
    }
}

/// The standard's tables (H.265 Tables 9-52 and 9-53), typed again here so the decoder does not read the encoder's.
enum HEVCCabacWriterTables {
    static let rangeTabLPS: [[Int]] = [
        [128, 176, 208, 240], [128, 167, 197, 227], [128, 158, 187, 216], [123, 150, 178, 205],
        [116, 142, 169, 195], [111, 135, 160, 185], [105, 128, 152, 175], [100, 122, 144, 166],
        [95, 116, 137, 158], [90, 110, 130, 150], [85, 104, 123, 142], [81, 99, 117, 135],
        [77, 94, 111, 128], [73, 89, 105, 122], [69, 85, 100, 116], [66, 80, 95, 110],
        [62, 76, 90, 104], [59, 72, 86, 99], [56, 69, 81, 94], [53, 65, 77, 89],
        [51, 62, 73, 85], [48, 59, 69, 80], [46, 56, 66, 76], [43, 53, 63, 72],
        [41, 50, 59, 69], [39, 48, 56, 65], [37, 45, 54, 62], [35, 43, 51, 59],
        [33, 41, 48, 56], [32, 39, 46, 53], [30, 37, 43, 50], [29, 35, 41, 48],
        [27, 33, 39, 45], [26, 31, 37, 43], [24, 30, 35, 41], [23, 28, 33, 39],
        [22, 27, 32, 37], [21, 26, 30, 35], [20, 24, 29, 33], [19, 23, 27, 31],
        [18, 22, 26, 30], [17, 21, 25, 28], [16, 20, 23, 27], [15, 19, 22, 25],
        [14, 18, 21, 24], [14, 17, 20, 23], [13, 16, 19, 22], [12, 15, 18, 21],
        [12, 14, 17, 20], [11, 14, 16, 19], [11, 13, 15, 18], [10, 12, 15, 17],
        [10, 12, 14, 16], [9, 11, 13, 15], [9, 11, 12, 14], [8, 10, 12, 14],
        [8, 9, 11, 13], [7, 9, 11, 12], [7, 9, 10, 12], [7, 8, 10, 11],
        [6, 8, 9, 11], [6, 7, 9, 10], [6, 7, 8, 9], [2, 2, 2, 2],
    ]
    static let transIdxLPS: [Int] = [
        0, 0, 1, 2, 2, 4, 4, 5, 6, 7, 8, 9, 9, 11, 11, 12,
        13, 13, 15, 15, 16, 16, 18, 18, 19, 19, 21, 21, 22, 22, 23, 24,
        24, 25, 26, 26, 27, 27, 28, 29, 29, 30, 30, 30, 31, 32, 32, 33,
        33, 33, 34, 34, 35, 35, 35, 36, 36, 36, 37, 37, 37, 38, 38, 63,
    ]
}
