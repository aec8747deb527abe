import ChildProcesses
import Foundation
import Testing

@testable import GifxEncoders

/// dav1d's CLI (Debian's dav1d), the third AV1 decoder beside FFmpeg's libdav1d and libaom wrappers (`nil`
/// when not installed).
enum AV1Oracle {
    static let dav1d: String? = ["/usr/bin/dav1d", "/usr/local/bin/dav1d"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }
    static var available: Bool { MP4Oracle.available && dav1d != nil }

    /// FFmpeg's decoders named here, each with `-err_detect explode -xerror` (any error fails the run).
    static let ffmpegDecoders = ["libdav1d", "libaom-av1"]

    /// The MD5 of every frame `decoder` (an FFmpeg AV1 decoder) decodes from `path`, in order.
    static func framemd5(_ path: String, decoder: String) throws -> [String] {
        try VP9RepeatSplicerTests.tool(MP4Oracle.ffmpeg!, [
            "-v", "error", "-nostdin", "-err_detect", "explode", "-xerror", "-c:v", decoder, "-i", path,
            "-fps_mode", "passthrough", "-f", "framemd5", "-",
        ]).split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
            $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// The MD5 of every frame the dav1d CLI decodes from `path` (IVF): its raw I420 output, cut into frames and
    /// hashed by FFmpeg's framemd5 (which reads it without decoding anything). Throws when dav1d fails or
    /// complains.
    static func dav1dHashes(_ path: String, width: Int, height: Int, folder: URL) throws -> [String] {
        let yuv = folder.appendingPathComponent("dav1d.yuv").path
        let run = try CapturedRun.run(dav1d!, ["-q", "-i", path, "-o", yuv])
        let errors = String(decoding: run.stderr, as: UTF8.self)
        guard run.status == 0, errors.isEmpty else { throw MP4OracleError("dav1d \(path) exited \(run.status): \(errors)") }
        return try VP9RepeatSplicerTests.tool(MP4Oracle.ffmpeg!, [
            "-v", "error", "-nostdin", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "\(width)x\(height)", "-i", yuv,
            "-f", "framemd5", "-",
        ]).split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
            $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }
}

/// The AV1 splicer on streams made by the ffmpeg CLI (libaom real-time, gifx's encoder for streams with
/// repeats; and rav1e, whose reordered streams show hidden frames with `show_existing_frame`), judged by FFmpeg's
/// `trace_headers` (the frame header fields as FFmpeg's own parser reads them), FFmpeg's libdav1d and libaom
/// decoders (`-err_detect explode`) and the dav1d CLI: after any number of repeats spliced in after each
/// temporal unit, every repeat decodes to the picture before it and every picture of the encoder's to what it
/// decoded to without repeats (the copy-expanded reference, bit for bit). After a shown key frame no repeat
/// can be written (refused); hand-made headers check the other refusals.
@Suite("AV1 repeat splicer (libaom and rav1e streams, FFmpeg's parser, libdav1d, libaom and dav1d)",
       .enabled(if: AV1Oracle.available, "ffmpeg/ffprobe or dav1d not installed"))
struct AV1RepeatSplicerTests {
    @Test("a repeat is a temporal delimiter and a frame header OBU with show_existing_frame, 5 bytes")
    func repeatBytes() throws {
        // TD: obu_type 2 with a size field, size 0. Frame header: obu_type 3, has_size_field, size 1; payload
        // show_existing_frame 1, frame_to_show_map_idx (3 bits), trailing one bit, zeros.
        #expect(AV1RepeatSplicer.showExisting(slot: 0) == [0x12, 0x00, 0x1A, 0x01, 0b1000_1000])
        #expect(AV1RepeatSplicer.showExisting(slot: 3) == [0x12, 0x00, 0x1A, 0x01, 0b1011_1000])
        #expect(AV1RepeatSplicer.showExisting(slot: 7) == [0x12, 0x00, 0x1A, 0x01, 0b1111_1000])
        let obus = try AV1RepeatSplicer.showExisting(slot: 5).withUnsafeBufferPointer { try AV1OBU.split($0) }
        #expect(obus == [
            AV1OBU(type: AV1OBU.temporalDelimiter, hasExtension: false, payload: 2..<2),
            AV1OBU(type: AV1OBU.frameHeader, hasExtension: false, payload: 4..<5),
        ])
        let splicer = try AV1RepeatSplicer()
        #expect(throws: BitstreamError.self) { try splicer.repeatPicture() }  // nothing shown yet
    }

    /// A sequence header OBU (AV1 §5.5), profile 0, up to `orderHintBits` and beyond: the fields the frame
    /// header depends on set as asked, the rest zero (then padding bytes).
    static func sequenceHeader(
        reduced: Bool = false, timing: (equalInterval: Bool, decoderModel: Bool)? = nil, operatingPoints: Int = 1,
        frameIDs: Bool = false, screenContent: Int = 2, orderHintBits: Int = 7
    ) -> [UInt8] {
        var w = RBSPWriter()
        w.bits(0, 3)  // seq_profile
        w.bit(0)  // still_picture
        w.flag(reduced)
        if let timing {
            w.bit(1)
            w.bits(1, 32); w.bits(25, 32)  // num_units_in_display_tick, time_scale
            w.flag(timing.equalInterval)
            if timing.equalInterval { w.bit(1) }  // uvlc 0
            w.flag(timing.decoderModel)
            if timing.decoderModel { w.bits(9, 5); w.bits(1, 32); w.bits(9, 5); w.bits(9, 5) }
        } else {
            w.bit(0)
        }
        w.bit(0)  // initial_display_delay_present_flag
        w.bits(operatingPoints - 1, 5)
        for _ in 0..<operatingPoints {
            w.bits(0, 12); w.bits(8, 5); w.bit(0)  // idc, seq_level_idx 8, seq_tier
            if timing?.decoderModel == true { w.bit(0) }  // decoder_model_present_for_this_op
        }
        w.bits(15, 4); w.bits(15, 4); w.bits(95, 16); w.bits(63, 16)  // frame size bits, max size 96x64
        w.flag(frameIDs)
        if frameIDs { w.bits(5, 4); w.bits(2, 3) }
        w.bits(0, 7)  // superblock, filter intra, edge filter, interintra, masked, warped, dual filter
        w.flag(orderHintBits > 0)
        if orderHintBits > 0 { w.bits(0, 2) }
        if screenContent == 2 { w.bit(1) } else { w.bit(0); w.bit(screenContent) }
        if screenContent > 0 { w.bit(1) }  // seq_choose_integer_mv
        if orderHintBits > 0 { w.bits(orderHintBits - 1, 3) }
        w.bits(0, 32)  // the rest (superres, cdef, restoration, colour, film grain) and padding
        return w.bytes
    }

    /// A frame header OBU (§5.9.2) as far as its references for the sequence above (screen content tools
    /// chosen per frame, 7 order hint bits): a shown key frame when `key`, else a frame of `type` (1 inter, 2
    /// intra-only) shown or not, refreshing `refresh`; an inter frame reads the slots `references` (7, or
    /// `nil` for short signalling).
    static func frameHeader(
        key: Bool = false, type: Int = 1, shown: Bool = true, refresh: Int = 0, references: [Int]? = [0, 1, 2, 3, 4, 5, 6]
    ) -> [UInt8] {
        var w = RBSPWriter()
        w.bit(0)  // show_existing_frame
        w.bits(key ? 0 : type, 2)
        w.flag(key || shown)
        if !(key || shown) { w.bit(1) }  // showable_frame
        if !key { w.bit(0) }  // error_resilient_mode
        w.bit(0)  // disable_cdf_update
        w.bit(0)  // allow_screen_content_tools
        w.bit(0)  // frame_size_override_flag
        w.bits(5, 7)  // order_hint
        if !key && type == 1 { w.bits(7, 3) }  // primary_ref_frame
        if !key { w.bits(refresh, 8) }
        if !key && type == 1 {
            w.flag(references == nil)  // frame_refs_short_signaling
            if let references { for slot in references { w.bits(slot, 3) } } else { w.bits(0, 6) }
        }
        w.bits(0, 16)  // the rest of the header
        let payload = w.bytes
        return [0x1A, UInt8(payload.count)] + payload
    }

    static func obu(_ type: Int, _ payload: [UInt8]) -> [UInt8] { [UInt8(type << 3 | 2), UInt8(payload.count)] + payload }

    static func rewrite(_ splicer: AV1RepeatSplicer, _ bytes: [UInt8]) throws -> [UInt8]? {
        try bytes.withUnsafeBufferPointer { try splicer.rewrite($0) }
    }

    @Test("headers it cannot follow are refused: reduced still picture, frame ids, presentation times, layers")
    func refusedSequences() throws {
        let td: [UInt8] = [0x12, 0x00]
        let key = Self.frameHeader(key: true)
        func refused(_ sequence: [UInt8]) -> Bool {
            let splicer = try? AV1RepeatSplicer()
            do {
                _ = try Self.rewrite(splicer!, td + Self.obu(1, sequence) + key)
                return false
            } catch { return error is BitstreamError }
        }
        #expect(!refused(Self.sequenceHeader()))
        #expect(!refused(Self.sequenceHeader(timing: (equalInterval: true, decoderModel: false))))
        #expect(!refused(Self.sequenceHeader(timing: (equalInterval: false, decoderModel: false))))
        #expect(!refused(Self.sequenceHeader(timing: (equalInterval: true, decoderModel: true))))
        #expect(!refused(Self.sequenceHeader(screenContent: 0, orderHintBits: 0)))
        #expect(refused(Self.sequenceHeader(reduced: true)))
        #expect(refused(Self.sequenceHeader(frameIDs: true)))
        #expect(refused(Self.sequenceHeader(timing: (equalInterval: false, decoderModel: true))))
        #expect(refused(Self.sequenceHeader(operatingPoints: 2)))
        // from extradata too (av1C: four bytes, then the config OBUs)
        #expect(throws: BitstreamError.self) {
            try AV1RepeatSplicer(extradata: [0x81, 0x00, 0x0C, 0x00] + Self.obu(1, Self.sequenceHeader(frameIDs: true)))
        }
        let fromAV1C = try AV1RepeatSplicer(extradata: [0x81, 0x00, 0x0C, 0x00] + Self.obu(1, Self.sequenceHeader()))
        #expect(fromAV1C.sequence?.orderHintBits == 7)
        // a frame before any sequence header, and a frame with an extension header (layers)
        #expect(throws: BitstreamError.self) { try Self.rewrite(try AV1RepeatSplicer(), td + key) }
        let splicer = try AV1RepeatSplicer()
        _ = try Self.rewrite(splicer, td + Self.obu(1, Self.sequenceHeader()) + key)
        var extended = Self.frameHeader(refresh: 1)
        extended[0] |= 4
        extended.insert(0, at: 1)
        #expect(throws: BitstreamError.self) { try Self.rewrite(splicer, td + extended) }
    }

    @Test("the slot of the last shown frame: key frames are refused, hidden frames tracked")
    func slots() throws {
        let td: [UInt8] = [0x12, 0x00]
        let splicer = try AV1RepeatSplicer()
        _ = try Self.rewrite(splicer, td + Self.obu(1, Self.sequenceHeader()) + Self.frameHeader(key: true))
        #expect(throws: BitstreamError.self) { try splicer.repeatPicture() }  // a shown key frame: not showable
        _ = try Self.rewrite(splicer, td + Self.frameHeader(refresh: 0b0010_0100))
        #expect(splicer.slot == 2)
        #expect(try splicer.repeatPicture() == AV1RepeatSplicer.showExisting(slot: 2))
        _ = try Self.rewrite(splicer, td + Self.frameHeader(refresh: 0))  // shown, stored nowhere: stored in slot 7
        #expect(try splicer.repeatPicture() == AV1RepeatSplicer.showExisting(slot: 7))
        // a hidden frame into slot 6, then a shown frame into slot 1: the shown one is repeated
        _ = try Self.rewrite(splicer, td + Self.frameHeader(shown: false, refresh: 0b0100_0000) + Self.frameHeader(refresh: 0b10))
        #expect(try splicer.repeatPicture() == AV1RepeatSplicer.showExisting(slot: 1))
        // the hidden frame shown with show_existing_frame: its repeats show slot 6
        _ = try Self.rewrite(splicer, td + Self.obu(3, [0b1110_1000]))
        #expect(try splicer.repeatPicture() == AV1RepeatSplicer.showExisting(slot: 6))
        // an intra-only frame shown into slot 3
        _ = try Self.rewrite(splicer, td + Self.frameHeader(type: 2, refresh: 0b1000))
        #expect(try splicer.repeatPicture() == AV1RepeatSplicer.showExisting(slot: 3))
        #expect(splicer.repeatsWritten == 5 && splicer.repeatBytes == 25)
        // a temporal unit that shows nothing, or two frames
        #expect(throws: BitstreamError.self) { try Self.rewrite(splicer, td + Self.frameHeader(shown: false, refresh: 1)) }
        #expect(throws: BitstreamError.self) {
            try Self.rewrite(splicer, td + Self.frameHeader(refresh: 1) + Self.frameHeader(refresh: 2))
        }
    }

    @Test("a shown frame in no slot is stored in slot 7 by its rewritten refresh_frame_flags, and slot 7 is guarded")
    func spareSlot() throws {
        let td: [UInt8] = [0x12, 0x00]
        let splicer = try AV1RepeatSplicer()
        _ = try Self.rewrite(splicer, td + Self.obu(1, Self.sequenceHeader()) + Self.frameHeader(key: true))
        // shown, stored nowhere: the same unit with refresh_frame_flags 0x80, every other bit as it was
        let unit = td + Self.frameHeader(refresh: 0)
        let rewritten = try #require(try Self.rewrite(splicer, unit))
        #expect(rewritten == td + Self.frameHeader(refresh: 0x80))
        #expect(splicer.slot == 7 && splicer.framesStoredInSpare == 1)
        #expect(try splicer.repeatPicture() == AV1RepeatSplicer.showExisting(slot: 7))
        // a frame stored in a slot of its own is left alone; its repeats show that slot
        #expect(try Self.rewrite(splicer, td + Self.frameHeader(refresh: 0b10)) == nil)
        #expect(try splicer.repeatPicture() == AV1RepeatSplicer.showExisting(slot: 1))
        // the encoder reading slot 7 while it holds a stored frame: as a reference, shown, or through the order
        // hints short signalling reads
        _ = try Self.rewrite(splicer, td + Self.frameHeader(refresh: 0))
        for reader in [
            Self.frameHeader(refresh: 0b100, references: [0, 1, 2, 7, 4, 5, 6]), Self.obu(3, [0b1111_1000]),
            Self.frameHeader(refresh: 0b100, references: nil),
        ] {
            #expect(throws: BitstreamError.self) { try Self.rewrite(splicer, td + reader) }
        }
        // a shown key frame refreshes every slot: slot 7 is the encoder's again, and readable
        let again = try AV1RepeatSplicer()
        _ = try Self.rewrite(again, td + Self.obu(1, Self.sequenceHeader()) + Self.frameHeader(key: true))
        _ = try Self.rewrite(again, td + Self.frameHeader(refresh: 0))
        _ = try Self.rewrite(again, td + Self.frameHeader(key: true))
        _ = try Self.rewrite(again, td + Self.frameHeader(refresh: 1, references: [7, 7, 7, 7, 7, 7, 7]))
        // the encoder storing a frame of its own in slot 7: nothing more is stored there, and a frame in no slot
        // cannot be repeated
        _ = try Self.rewrite(again, td + Self.frameHeader(shown: false, refresh: 0x80) + Self.frameHeader(refresh: 0))
        #expect(again.slot == nil && again.framesStoredInSpare == 1)
        #expect(throws: BitstreamError.self) { try again.repeatPicture() }
        #expect(try Self.rewrite(again, td + Self.frameHeader(refresh: 0)) == nil)
        #expect(try Self.rewrite(again, td + Self.frameHeader(refresh: 2, references: [7, 0, 0, 0, 0, 0, 0])) == nil)
    }

    /// The packets of an IVF file (temporal units).
    static func ivfPackets(_ path: String) throws -> [[UInt8]] {
        VP9RepeatSplicerTests.ivfPackets(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// An IVF file of AV1 temporal units.
    static func ivf(_ units: [[UInt8]], width: Int, height: Int) -> Data {
        var data = VP9RepeatSplicerTests.ivf(units, width: width, height: height)
        data.replaceSubrange(8..<12, with: Array("AV01".utf8))
        return data
    }

    struct Stream: Sendable, CustomTestStringConvertible {
        var name: String
        var width: Int, height: Int
        var encoder: [String]
        var testDescription: String { name }
    }

    /// libaom real-time as gifx runs it for streams with repeats (`AV1Codec.realtimeOptions`: no lag,
    /// `kf_max_dist` off, key frames forced every 10 frames), at three sizes and `crf` 0, 12 and 30 (libaom 3.6
    /// real-time is not lossless at `crf` 0, nor with `aom-params=lossless=1`: 3.1 kB for 20 frames at 64x48,
    /// every frame unlike the source's, so the reference is the encoder's own stream decoded); rav1e at
    /// its own settings (reordering: hidden frames shown later with `show_existing_frame`; its own key frame
    /// interval 12).
    static let streams: [Stream] = [
        Stream(name: "libaom real-time 96x64", width: 96, height: 64, encoder: [
            "-c:v", "libaom-av1", "-usage", "realtime", "-cpu-used", "8", "-row-mt", "1", "-crf", "12",
            "-lag-in-frames", "0", "-b:v", "0", "-g", "1000000", "-force_key_frames", "expr:eq(mod(n,10),0)",
        ]),
        Stream(name: "libaom real-time 130x66, cpu-used 7", width: 130, height: 66, encoder: [
            "-c:v", "libaom-av1", "-usage", "realtime", "-cpu-used", "7", "-row-mt", "1", "-crf", "30",
            "-lag-in-frames", "0", "-b:v", "0", "-g", "1000000", "-force_key_frames", "expr:eq(mod(n,10),0)",
        ]),
        Stream(name: "libaom real-time 48x32, crf 0", width: 48, height: 32, encoder: [
            "-c:v", "libaom-av1", "-usage", "realtime", "-cpu-used", "8", "-crf", "0", "-lag-in-frames", "0",
            "-b:v", "0", "-g", "1000000", "-force_key_frames", "expr:eq(mod(n,10),0)",
        ]),
        Stream(name: "rav1e speed 10, reordered", width: 96, height: 64, encoder: [
            "-c:v", "librav1e", "-speed", "10", "-qp", "100", "-g", "12",
        ]),
        Stream(name: "SVT-AV1 preset 8, hierarchical-levels 3", width: 96, height: 64, encoder: [
            "-c:v", "libsvtav1", "-preset", "8", "-crf", "35", "-g", "1000000", "-force_key_frames",
            "expr:eq(mod(n,10),0)", "-svtav1-params", "enable-force-key-frames=1:" + AV1Codec.repeatStructure,
        ]),
    ]

    @Test("encoder streams: headers as FFmpeg reads them; 0-5 repeats after each picture decode as copies",
          arguments: streams)
    func splicesEncoderStreams(_ s: Stream) throws {
        let folder = try mp4Folder("av1splice")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("in.ivf").path
        // SVT-AV1 logs to stderr by itself, below SVT_LOG's level 1 (errors) only
        _ = try VP9RepeatSplicerTests.tool("/usr/bin/env", ["SVT_LOG=1", MP4Oracle.ffmpeg!] + [
            "-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i",
            "testsrc2=s=\(s.width)x\(s.height):r=25,trim=end_frame=40,format=yuv420p",
        ] + s.encoder + ["-f", "ivf", path])
        let units = try Self.ivfPackets(path)
        #expect(units.count == 40)

        // Every frame header's fields against trace_headers.
        let trace = try CapturedRun.run(MP4Oracle.ffmpeg!, [
            "-v", "trace", "-nostdin", "-i", path, "-c", "copy", "-bsf:v", "trace_headers", "-f", "null", "-",
        ])
        let fields = ["show_existing_frame", "frame_to_show_map_idx", "frame_type", "show_frame", "refresh_frame_flags"]
        let traced = String(decoding: trace.stderr, as: UTF8.self).split(separator: "\n").compactMap { line -> String? in
            guard line.contains("[trace_headers"), let last = line.split(separator: "=").last,
                  let value = Int(last.trimmingCharacters(in: .whitespaces)) else { return nil }
            for field in fields where line.contains(" \(field) ") { return "\(field)=\(value)" }
            return nil
        }
        var sequence: AV1SequenceHeader?
        var parsed: [String] = []
        var keyUnits: [Int] = [], existing = 0
        for (k, unit) in units.enumerated() {
            for obu in try unit.withUnsafeBufferPointer({ try AV1OBU.split($0) }) {
                if obu.type == AV1OBU.sequenceHeader { sequence = try AV1SequenceHeader(Array(unit[obu.payload])) }
                guard obu.type == AV1OBU.frameHeader || obu.type == AV1OBU.frame else { continue }
                let header = try AV1FrameHeader(Array(unit[obu.payload]), sequence: try #require(sequence))
                if let slot = header.existingSlot {
                    parsed += ["show_existing_frame=1", "frame_to_show_map_idx=\(slot)"]
                    existing += 1
                    continue
                }
                parsed += ["show_existing_frame=0", "frame_type=\(header.frameType)", "show_frame=\(header.showFrame ? 1 : 0)"]
                if header.keyFrame && header.showFrame { keyUnits.append(k) } else {
                    parsed.append("refresh_frame_flags=\(header.refreshFrameFlags)")
                }
            }
        }
        #expect(parsed == traced)
        if !s.name.hasPrefix("rav1e") { #expect(keyUnits == [0, 10, 20, 30], "\(s.name): forced key frames only") }
        #expect(keyUnits.count >= 3, "\(s.name): \(keyUnits) key frames")
        if s.name.hasPrefix("rav1e") { #expect(existing > 0, "rav1e showed no hidden frame: the case tests less") }

        // 0-5 repeats after each unit (none after a shown key frame: refused), decoded by three decoders.
        let original = try AV1Oracle.framemd5(path, decoder: "libdav1d")
        #expect(original.count == 40)
        let decoded = try AV1Oracle.framemd5(path, decoder: "libaom-av1")
        #expect(decoded == original, "\(s.name): libaom and libdav1d disagree on the encoder's own stream")
        let check = try AV1RepeatSplicer()
        var spliced: [[UInt8]] = [], expected: [String] = [], refusals = 0, rewrites = 0
        for (k, unit) in units.enumerated() {
            // SVT-AV1 keeps most shown frames in no slot: those units come back stored in slot 7
            let rewritten = try unit.withUnsafeBufferPointer { try check.rewrite($0) }
            if let rewritten {
                #expect(rewritten.count == unit.count)
                rewrites += 1
            }
            spliced.append(rewritten ?? unit)
            expected.append(original[k])
            let wanted = k * 7 % 6
            guard wanted > 0 else { continue }
            do {
                let first = try check.repeatPicture()
                spliced.append(first)
                expected.append(original[k])
            } catch is BitstreamError {
                refusals += 1
                continue
            }
            for _ in 1..<wanted {
                spliced.append(try check.repeatPicture())
                expected.append(original[k])
            }
        }
        #expect(rewrites == check.framesStoredInSpare)
        if s.name.hasPrefix("SVT") {
            #expect(rewrites >= 10, "\(s.name): \(rewrites) frames stored in slot 7")
        } else {
            #expect(rewrites == 0, "\(s.name): libaom real-time and rav1e store every shown frame")
        }
        #expect(check.repeatsWritten == spliced.count - units.count && check.repeatBytes == 5 * check.repeatsWritten)
        #expect(check.repeatsWritten > 60, "\(s.name): \(check.repeatsWritten) repeats")
        let output = folder.appendingPathComponent("spliced.ivf").path
        try Self.ivf(spliced, width: s.width, height: s.height).write(to: URL(fileURLWithPath: output))
        for decoder in AV1Oracle.ffmpegDecoders {
            #expect(try AV1Oracle.framemd5(output, decoder: decoder) == expected, "\(s.name): \(decoder)")
        }
        #expect(try AV1Oracle.dav1dHashes(output, width: s.width, height: s.height, folder: folder) == expected)
        // exactly the units after a shown key frame that wanted repeats were refused
        #expect(refusals == keyUnits.filter { $0 * 7 % 6 > 0 }.count, "\(s.name): \(refusals) refusals")
    }

    @Test("why a shown key frame is refused: libaom's decoder rejects a show_existing_frame of it")
    func keyFrameRepeatIsRejectedByLibaom() throws {
        let folder = try mp4Folder("av1keyrepeat")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("in.ivf").path
        _ = try VP9RepeatSplicerTests.tool(MP4Oracle.ffmpeg!, [
            "-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "testsrc2=s=96x64:r=25,trim=end_frame=3,format=yuv420p",
            "-c:v", "libaom-av1", "-usage", "realtime", "-cpu-used", "8", "-crf", "30", "-lag-in-frames", "0", "-b:v", "0",
            "-f", "ivf", path,
        ])
        let units = try Self.ivfPackets(path)
        let splicer = try AV1RepeatSplicer()
        _ = try units[0].withUnsafeBufferPointer { try splicer.rewrite($0) }
        #expect(throws: BitstreamError.self) { try splicer.repeatPicture() }
        // the repeat the splicer refuses to write, written by hand: slot 0 holds the shown key frame
        let output = folder.appendingPathComponent("keyrepeat.ivf").path
        try Self.ivf([units[0], AV1RepeatSplicer.showExisting(slot: 0)] + units[1...], width: 96, height: 64)
            .write(to: URL(fileURLWithPath: output))
        let run = try CapturedRun.run(MP4Oracle.ffmpeg!, [
            "-v", "error", "-nostdin", "-err_detect", "explode", "-xerror", "-c:v", "libaom-av1", "-i", output, "-f", "null", "-",
        ])
        let message = String(decoding: run.stderr, as: UTF8.self)
        #expect(run.status != 0 && message.contains("Buffer does not contain a showable frame"), "\(message)")
    }
}
