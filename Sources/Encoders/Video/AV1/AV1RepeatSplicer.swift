/// AV1 repeat pictures (docs/repeats.md, "How (AV1)"): a repeat is a temporal unit of one frame header OBU
/// with `show_existing_frame` = 1 naming the reference slot that holds the last shown frame (5 bytes with its
/// temporal delimiter, which the MP4 and Matroska muxers drop as they drop the encoder's own). Showing an
/// existing frame that is not a key frame changes no decoder state (AV1 §7.21: no reference is refreshed, no
/// order hint or probability context moves), so the encoder's next frame decodes after any number of repeats
/// as after its own predecessor, bit for bit.
///
/// The slot comes from the frame headers, read as far as their references (§5.9.2): every frame of a
/// temporal unit (hidden ones first, the one shown last) refreshes the slots its flags name; the shown frame,
/// or the slot a `show_existing_frame` header names, is what a repeat shows.
///
/// A shown frame that the encoder stores in no slot (SVT-AV1's top-layer frames, most of its shown frames) is
/// stored in `spareSlot` instead: its `refresh_frame_flags` (8 bits, 0) is rewritten to name that slot. That
/// changes what the slot holds and nothing else the encoder's frames decode from, as long as no later frame
/// reads the slot while it holds such a frame (as a reference, a `show_existing_frame`, or through the order
/// hints of every slot that short reference signalling and error-resilient frames read). The splicer checks
/// that on every frame and throws where it is not so, and stores nothing there once the encoder stores a frame
/// of its own there (until a key frame refreshes every slot).
///
/// Two cases cannot be repeated and make `repeatPicture` throw (an internal error, never a wrong picture): a
/// shown key frame (§6.8.2: not showable; the session codes the copy after a key frame instead,
/// `KeyframeSchedule.codesCopyAfterKeyframe`, and the encoder must write no key frame of its own: libaom
/// real-time with `kf_max_dist` off, SVT-AV1 with its intra period off) and a shown frame that lands in no
/// slot while the encoder uses `spareSlot` itself. Headers the reader does not follow are refused when read: a
/// reduced still-picture header, frame ids, decoder-model frame presentation times, several operating points
/// or OBU extension headers (layers).
final class AV1RepeatSplicer {
    /// The sequence header's fields the frame headers depend on; `nil` before one is seen.
    private(set) var sequence: AV1SequenceHeader?
    /// Per slot: the serial number of the frame it holds (`nil`: empty), and whether that frame is showable.
    private var slotFrames: [Int?] = Array(repeating: nil, count: 8)
    private var slotShowable: [Bool] = Array(repeating: false, count: 8)
    private var slotKeyFrame: [Bool] = Array(repeating: false, count: 8)
    private var serial = 0
    /// Frames shown so far (`show_existing_frame` included).
    private var shownCount = 0
    /// The serial number of the last shown frame and whether it was a key frame; `nil` before the first.
    private var shown: (serial: Int, keyFrame: Bool)?
    private(set) var repeatsWritten = 0
    private(set) var repeatBytes = 0
    /// Shown frames that the encoder stored in no slot, stored in `spareSlot` by the rewritten header.
    private(set) var framesStoredInSpare = 0
    /// Whether `spareSlot` holds a frame the splicer stored there: the encoder believes it holds what it held
    /// before, so the encoder must not read it (it then throws).
    private var spareHeld = false
    /// Whether the encoder stored a frame of its own in `spareSlot` since its last key frame: the splicer then
    /// stores nothing there (the encoder may read it later), and such a frame cannot be repeated.
    private var encoderUsesSpare = false

    /// The slot where a shown frame that the encoder keeps in no slot is stored (its `refresh_frame_flags`
    /// rewritten from 0), so that a repeat can show it. SVT-AV1 1.4.1 at `hierarchical-levels=3` (the setting
    /// `AV1Codec.forRepeatPictures` gives it) never stores a frame in slot 7 but with a key frame, nor reads it:
    /// measured on the real and bench sets; the splicer checks it on every frame (`apply`).
    static let spareSlot = 7

    /// `extradata`: the encoder's (raw OBUs, or an `av1C` record whose config OBUs follow its 4 bytes), read
    /// for a sequence header; empty where the stream carries its own.
    init(extradata: [UInt8] = []) throws {
        guard !extradata.isEmpty else { return }
        let obus = extradata[0] & 0x80 != 0 ? Array(extradata.dropFirst(4)) : extradata
        _ = try obus.withUnsafeBufferPointer { try read($0) }
    }

    /// The slot a repeat shows: the lowest one holding the last shown frame, `nil` where none does.
    var slot: Int? {
        guard let shown else { return nil }
        return slotFrames.firstIndex { $0 == shown.serial }
    }

    /// Reads a temporal unit; where its shown frame lands in no slot, returns it with that frame's
    /// `refresh_frame_flags` rewritten to store it in `spareSlot` (the same bits' length: nothing else moves).
    func rewrite(_ bytes: UnsafeBufferPointer<UInt8>) throws -> [UInt8]? {
        let before = shownCount
        let patches = try read(bytes)
        guard shownCount == before + 1 else {
            throw BitstreamError("an AV1 temporal unit that shows \(shownCount - before) frames, not one")
        }
        guard !patches.isEmpty else { return nil }
        var rewritten = Array(bytes)
        for bit in patches {  // AV1 has no emulation prevention: the field's bits are the buffer's
            overwriteBits(&rewritten, at: bit, width: 8, with: 1 << Self.spareSlot)
        }
        return rewritten
    }

    func repeatPicture() throws -> [UInt8] {
        guard let shown else { throw BitstreamError("no AV1 frame shown yet to repeat") }
        if shown.keyFrame { throw BitstreamError("the AV1 frame to repeat is a key frame, which is not showable") }
        guard let slot, slotShowable[slot] else {
            throw BitstreamError("the AV1 frame to repeat is in no reference slot")
        }
        let picture = Self.showExisting(slot: slot)
        repeatsWritten += 1
        repeatBytes += picture.count
        return picture
    }

    /// A temporal unit showing slot `slot` again: a temporal delimiter (`0x12 0x00`), then a frame header OBU
    /// (type 3, with a size field: `0x1A`, size 1) whose payload is `show_existing_frame` = 1,
    /// `frame_to_show_map_idx` (3 bits) and the trailing bits (a one, then zeros to the byte's end). Valid only
    /// for a sequence without frame ids or decoder-model presentation times (`AV1SequenceHeader` refuses them).
    static func showExisting(slot: Int) -> [UInt8] {
        [0x12, 0x00, 0x1A, 0x01, UInt8(0x80 | (slot & 7) << 4 | 0x08)]
    }

    /// Reads every OBU of a temporal unit (or of extradata): sequence headers, and frame headers as far as
    /// their references, updating the slots. Returns the bit offsets (in `bytes`) of the `refresh_frame_flags`
    /// to rewrite into `spareSlot`.
    private func read(_ bytes: UnsafeBufferPointer<UInt8>) throws -> [Int] {
        var patches: [Int] = []
        for obu in try AV1OBU.split(bytes) {
            switch obu.type {
            case AV1OBU.sequenceHeader:
                sequence = try AV1SequenceHeader(Array(bytes[obu.payload]))
            case AV1OBU.frameHeader, AV1OBU.frame:
                if obu.hasExtension { throw BitstreamError("an AV1 frame with an OBU extension header (layers)") }
                guard let sequence else { throw BitstreamError("an AV1 frame before any sequence header") }
                let header = try AV1FrameHeader(Array(bytes[obu.payload]), sequence: sequence, slotKeyFrame: slotKeyFrame)
                if let bit = try apply(header) { patches.append(obu.payload.lowerBound * 8 + bit) }
            default:
                continue  // temporal delimiters, tile groups, metadata, padding, redundant frame headers
            }
        }
        return patches
    }

    /// Updates the slots for one frame header; returns the bit offset in its payload of the
    /// `refresh_frame_flags` to rewrite, where the frame is shown, stored in no slot, and stored in `spareSlot`
    /// instead. Throws where the encoder reads `spareSlot` while it holds such a frame: the encoder's picture
    /// would then be decoded from another reference than the encoder's (never written: an internal error).
    private func apply(_ header: AV1FrameHeader) throws -> Int? {
        let spare = Self.spareSlot
        if spareHeld {
            let reads = header.existingSlot == spare || header.references.contains(spare)
            // Short signalling and error-resilient order hints read every slot's order hint.
            if reads || header.shortReferenceSignalling || header.readsEveryOrderHint {
                throw BitstreamError("the AV1 encoder reads slot \(spare), which holds a frame stored there for repeats")
            }
        }
        if let existing = header.existingSlot {
            guard let frame = slotFrames[existing] else {
                throw BitstreamError("an AV1 show_existing_frame of an empty slot")
            }
            if slotKeyFrame[existing] {
                // Showing a hidden key frame loads it and refreshes every slot with it (§7.21), no longer showable.
                for k in 0..<8 {
                    slotFrames[k] = frame
                    slotShowable[k] = false
                    slotKeyFrame[k] = true
                }
                shown = (frame, true)
            } else {
                shown = (frame, false)
            }
            if slotKeyFrame[existing] { (spareHeld, encoderUsesSpare) = (false, false) }
            shownCount += 1
            return nil
        }
        serial += 1
        var refresh = header.refreshFrameFlags
        var patch: Int?
        if refresh == 0xFF {
            (spareHeld, encoderUsesSpare) = (false, false)
        } else if refresh & (1 << spare) != 0 {
            (spareHeld, encoderUsesSpare) = (false, true)
        } else if refresh == 0 && header.showFrame && !header.keyFrame && !encoderUsesSpare,
                  let bit = header.refreshFrameFlagsBit {
            refresh = 1 << spare
            patch = bit
            spareHeld = true
            framesStoredInSpare += 1
        }
        for k in 0..<8 where refresh & (1 << k) != 0 {
            slotFrames[k] = serial
            slotShowable[k] = header.showableFrame
            slotKeyFrame[k] = header.keyFrame
        }
        if header.showFrame {
            shown = (serial, header.keyFrame)
            shownCount += 1
        }
        return patch
    }
}

/// One OBU's place in a buffer (AV1 §5.3): its type, whether it has an extension header, and its payload.
struct AV1OBU: Equatable {
    static let sequenceHeader = 1, temporalDelimiter = 2, frameHeader = 3, tileGroup = 4, frame = 6

    var type: Int
    var hasExtension: Bool
    var payload: Range<Int>

    /// The OBUs of a buffer in order (low-overhead format: each with its size field, or the last one without,
    /// reaching the buffer's end).
    static func split(_ bytes: UnsafeBufferPointer<UInt8>) throws -> [AV1OBU] {
        var obus: [AV1OBU] = []
        var p = 0
        while p < bytes.count {
            let header = bytes[p]
            guard header & 0x80 == 0 else { throw BitstreamError("an AV1 OBU with its forbidden bit set") }
            let type = Int(header >> 3) & 15
            let hasExtension = header & 4 != 0, hasSize = header & 2 != 0
            p += hasExtension ? 2 : 1
            var size = bytes.count - p
            if hasSize {
                size = 0
                var k = 0
                while true {
                    guard p < bytes.count, k < 8 else { throw BitstreamError("an AV1 OBU size past its buffer") }
                    let byte = Int(bytes[p])
                    size |= (byte & 0x7F) << (7 * k)
                    p += 1
                    k += 1
                    if byte & 0x80 == 0 { break }
                }
            }
            guard p <= bytes.count, size >= 0, size <= bytes.count - p else {
                throw BitstreamError("an AV1 OBU longer than its buffer")
            }
            obus.append(AV1OBU(type: type, hasExtension: hasExtension, payload: p..<(p + size)))
            p += size
        }
        return obus
    }
}

/// The sequence header fields (AV1 §5.5) that the uncompressed frame header reads before `refresh_frame_flags`.
struct AV1SequenceHeader: Equatable {
    var frameIDNumbersPresent = false
    var decoderModelInfoPresent = false
    var equalPictureInterval = false
    /// `buffer_removal_time_length_minus_1` + 1, where the decoder model is present.
    var bufferRemovalTimeLength = 0
    /// Per operating point: its `operating_point_idc`, and whether the decoder model is present for it.
    var operatingPoints: [OperatingPoint] = []
    /// `seq_force_screen_content_tools` and `seq_force_integer_mv`: 0, 1, or 2 (SELECT: read per frame).
    var forceScreenContentTools = 2
    var forceIntegerMV = 2
    /// `OrderHintBits`: 0 without order hints.
    var orderHintBits = 0

    struct OperatingPoint: Equatable {
        var idc: Int
        var decoderModel: Bool
    }

    init(_ payload: [UInt8]) throws {
        var r = RBSPReader(payload)
        _ = try r.bits(3)  // seq_profile
        _ = try r.bit()  // still_picture
        if try r.flag() {  // reduced_still_picture_header
            throw BitstreamError("an AV1 sequence with a reduced still-picture header")
        }
        var bufferDelayLength = 0
        if try r.flag() {  // timing_info_present_flag
            _ = try r.bits(32)  // num_units_in_display_tick
            _ = try r.bits(32)  // time_scale
            equalPictureInterval = try r.flag()
            if equalPictureInterval { _ = try Self.uvlc(&r) }  // num_ticks_per_picture_minus_1
            decoderModelInfoPresent = try r.flag()
            if decoderModelInfoPresent {
                bufferDelayLength = try r.bits(5) + 1
                _ = try r.bits(32)  // num_units_in_decoding_tick
                bufferRemovalTimeLength = try r.bits(5) + 1
                _ = try r.bits(5)  // frame_presentation_time_length_minus_1
            }
        }
        if decoderModelInfoPresent && !equalPictureInterval {
            throw BitstreamError("an AV1 sequence with decoder-model frame presentation times")
        }
        let initialDisplayDelayPresent = try r.flag()
        let count = try r.bits(5) + 1
        for _ in 0..<count {
            let idc = try r.bits(12)
            let level = try r.bits(5)
            if level > 7 { _ = try r.bit() }  // seq_tier
            var model = false
            if decoderModelInfoPresent {
                model = try r.flag()
                if model {
                    _ = try r.bits(bufferDelayLength)  // decoder_buffer_delay
                    _ = try r.bits(bufferDelayLength)  // encoder_buffer_delay
                    _ = try r.bit()  // low_delay_mode_flag
                }
            }
            if initialDisplayDelayPresent, try r.flag() { _ = try r.bits(4) }
            operatingPoints.append(OperatingPoint(idc: idc, decoderModel: model))
        }
        if count > 1 { throw BitstreamError("an AV1 sequence with \(count) operating points (layers)") }
        let widthBits = try r.bits(4) + 1, heightBits = try r.bits(4) + 1
        _ = try r.bits(widthBits)
        _ = try r.bits(heightBits)
        frameIDNumbersPresent = try r.flag()
        if frameIDNumbersPresent { throw BitstreamError("an AV1 sequence with frame ids") }
        _ = try r.bits(3)  // use_128x128_superblock, enable_filter_intra, enable_intra_edge_filter
        _ = try r.bits(4)  // enable_interintra_compound, enable_masked_compound, enable_warped_motion, enable_dual_filter
        let orderHint = try r.flag()
        if orderHint { _ = try r.bits(2) }  // enable_jnt_comp, enable_ref_frame_mvs
        forceScreenContentTools = try r.flag() ? 2 : try r.bit()
        if forceScreenContentTools > 0 {
            forceIntegerMV = try r.flag() ? 2 : try r.bit()
        } else {
            forceIntegerMV = 2
        }
        if orderHint { orderHintBits = try r.bits(3) + 1 }
    }

    /// `uvlc()` (§4.10.3): leading zeros, a one, then as many bits.
    static func uvlc(_ r: inout RBSPReader) throws -> Int {
        var zeros = 0
        while try r.bit() == 0 {
            zeros += 1
            if zeros >= 32 { return (1 << 32) - 1 }
        }
        return try r.bits(zeros) + (1 << zeros) - 1
    }
}

/// The start of an AV1 uncompressed frame header (§5.9.2), as far as its references (`ref_frame_idx`).
struct AV1FrameHeader: Equatable {
    /// `frame_to_show_map_idx` of a `show_existing_frame` header, else `nil`.
    var existingSlot: Int?
    /// 0 KEY_FRAME, 1 INTER_FRAME, 2 INTRA_ONLY_FRAME, 3 SWITCH_FRAME.
    var frameType = 1
    var showFrame = true
    var showableFrame = true
    var errorResilient = false
    /// Slots the frame is stored in (bit k: slot k); 0xFF for a shown key frame, 0 for `show_existing_frame`.
    var refreshFrameFlags = 0
    /// Where `refresh_frame_flags` begins in the payload, in bits; `nil` where it is not coded (a shown key frame,
    /// a switch frame, `show_existing_frame`).
    var refreshFrameFlagsBit: Int?
    /// An inter frame's `ref_frame_idx` (the slots it reads); empty for intra frames and with short signalling.
    var references: [Int] = []
    /// `frame_refs_short_signaling`: the references derived from every slot's order hint.
    var shortReferenceSignalling = false
    /// An error-resilient frame with order hints codes `ref_order_hint` for every slot, which invalidates a
    /// slot whose order hint differs.
    var readsEveryOrderHint = false
    var keyFrame: Bool { frameType == 0 }

    /// `slotKeyFrame`: whether each slot holds a key frame (a `show_existing_frame` takes its type from there).
    init(_ payload: [UInt8], sequence: AV1SequenceHeader, slotKeyFrame: [Bool] = Array(repeating: false, count: 8)) throws {
        var r = RBSPReader(payload)
        if try r.flag() {  // show_existing_frame
            let slot = try r.bits(3)
            existingSlot = slot
            frameType = slotKeyFrame[slot] ? 0 : 1
            return
        }
        frameType = try r.bits(2)
        let intra = frameType == 0 || frameType == 2
        showFrame = try r.flag()
        // temporal_point_info: refused with the sequence (decoder model without equal picture interval).
        showableFrame = showFrame ? frameType != 0 : try r.flag()
        errorResilient = frameType == 3 || (frameType == 0 && showFrame) ? true : try r.flag()
        _ = try r.bit()  // disable_cdf_update
        let screenContent = sequence.forceScreenContentTools == 2 ? try r.bit() : sequence.forceScreenContentTools
        if screenContent > 0 && sequence.forceIntegerMV == 2 { _ = try r.bit() }  // force_integer_mv
        // frame ids: refused with the sequence.
        if frameType != 3 { _ = try r.bit() }  // frame_size_override_flag (not a reduced still picture)
        _ = try r.bits(sequence.orderHintBits)  // order_hint
        if !(intra || errorResilient) { _ = try r.bits(3) }  // primary_ref_frame
        if sequence.decoderModelInfoPresent {
            if try r.flag() {  // buffer_removal_time_present_flag
                for point in sequence.operatingPoints where point.decoderModel {
                    // temporal_id and spatial_id are 0 (OBU extension headers are refused).
                    if point.idc == 0 || (point.idc & 1 != 0 && point.idc & (1 << 8) != 0) {
                        _ = try r.bits(sequence.bufferRemovalTimeLength)
                    }
                }
            }
        }
        if frameType == 3 || (frameType == 0 && showFrame) {
            refreshFrameFlags = 0xFF
        } else {
            refreshFrameFlagsBit = r.position
            refreshFrameFlags = try r.bits(8)
        }
        if (!intra || refreshFrameFlags != 0xFF) && errorResilient && sequence.orderHintBits > 0 {
            readsEveryOrderHint = true
            return
        }
        guard !intra else { return }
        if sequence.orderHintBits > 0 { shortReferenceSignalling = try r.flag() }
        if shortReferenceSignalling { return }
        for _ in 0..<7 { references.append(try r.bits(3)) }  // REFS_PER_FRAME
    }
}
