/// Writes repeats of the last picture into an x264 stream as non-reference P_Skip pictures, and gives x264's own
/// slices the picture order count they need around them (docs/repeats.md, "How (H.264)").
///
/// A repeat picture is one P slice whose macroblocks are all P_Skip: with the held picture first in the reference
/// list, the first macroblock's predicted motion is 0 (its neighbours are unavailable), every later one inherits
/// 0 from skipped neighbours with reference index 0 and motion 0, there is no residual, and deblocking is
/// switched off in its header, so it decodes to an exact copy of the held picture. It is coded with CAVLC
/// (`mb_skip_run` = the frame's macroblocks), through a picture parameter set of its own (appended to the
/// stream's extradata), so it does not depend on x264's entropy coder or weighted prediction.
///
/// **A repeat is not a reference picture** (`nal_ref_idc` 0): it leaves the decoded picture buffer as x264 left
/// it, so x264 keeps its own references (`ref` 3 at `medium`, weighted-prediction duplicates, any reordering
/// commands): its later slices are written as x264 wrote them but for one field. x264 without B-frames marks every
/// picture a reference, so the held picture is the most recent reference, first in the default P list
/// (descending `PicNum`), and a repeat's `frame_num` is the held picture's plus one, the number x264's next
/// picture has too (as a non-reference B picture shares it with the reference picture after it).
///
/// **Picture order:** x264 without B-frames writes `pic_order_cnt_type` 2, where order follows `frame_num` and two
/// non-reference pictures in a row are not allowed. So the sequence parameter set is rewritten to type 0 with a
/// 16-bit `pic_order_cnt_lsb`, and every slice, x264's and the repeats', carries one: twice the output frames
/// since the last IDR (modulo 2^16). Inserting 16 bits (two whole bytes) after `frame_num` (and `idr_pic_id`)
/// leaves every later bit at the same position within its byte, so x264's CABAC data, byte-aligned after its
/// header, is copied as it is. Two pictures in a row may be at most 2^15 apart in order count: a run of more than
/// `maximumRun` repeats is refused, and `VideoSession` sends the held picture to the encoder again before that.
final class H264RepeatSplicer {
    let sps: H264SequenceParameters
    /// The repeat pictures' own PPS id (one above x264's highest).
    let repeatPPSID: Int
    /// The parameter sets, the SPS rewritten to picture order type 0 and the repeat PPS appended (Annex B), for
    /// the codec's extradata.
    let extradata: [UInt8]
    /// Bits of `pic_order_cnt_lsb` in the rewritten SPS: order counts wrap at 2^16.
    static let log2MaxPicOrderCountLsb = 16
    /// The longest run of repeats after one picture: 2 × (run + 1) order counts stay under 2^15.
    static let maximumRun = 16_000
    var maximumRun: Int { Self.maximumRun }
    /// Output frames since the last IDR (x264's pictures and the repeats): the next picture's order count is twice this.
    private var sinceIDR = 0
    /// Repeats since x264's last picture.
    private var run = 0
    /// `frame_num` of x264's last picture, and whether it was a reference picture.
    private var lastFrameNum = 0
    private var lastWasReference = false
    private var seenPicture = false

    /// Repeat pictures written, and their bytes (Annex B, start codes included).
    private(set) var repeatsWritten = 0
    private(set) var repeatBytes = 0

    /// Reads the SPS and PPS from `extradata` (Annex B, as libx264 writes it), rewrites the SPS to picture order
    /// type 0 and appends the repeat PPS. Refuses what the repeat pictures cannot follow: interlaced or
    /// separate-plane coding, picture order other than type 2 (B-frames), a PPS with bottom-field order.
    init(extradata original: [UInt8]) throws {
        var sps: H264SequenceParameters?
        var highestPPS = -1
        var rewritten: [UInt8] = []
        try original.withUnsafeBufferPointer { bytes in
            for unit in annexBUnits(bytes) {
                let header = bytes[unit.lowerBound]
                let type = Int(header & 0x1F)
                let rbsp = unescapeRBSP(bytes[(unit.lowerBound + 1)..<unit.upperBound])
                var nal = [0, 0, 0, 1] + Array(bytes[unit])
                if type == 7 {
                    guard sps == nil else { throw BitstreamError("the stream has more than one sequence parameter set") }
                    let parsed = try H264SequenceParameters(rbsp: rbsp)
                    guard parsed.frameMbsOnly, !parsed.separateColourPlane else {
                        throw BitstreamError("repeat pictures need progressive frames in one colour plane")
                    }
                    guard parsed.picOrderCountType == 2 else {
                        throw BitstreamError("repeat pictures need pic_order_cnt_type 2 (no B-frames), not \(parsed.picOrderCountType)")
                    }
                    sps = parsed
                    nal = [0, 0, 0, 1, header] + escapeRBSP(try Self.pictureOrderType0(rbsp, parsed))
                } else if type == 8 {
                    var r = RBSPReader(rbsp)
                    highestPPS = max(highestPPS, try r.ue())
                    _ = try r.ue()  // seq_parameter_set_id
                    _ = try r.flag()  // entropy_coding_mode_flag
                    if try r.flag() { throw BitstreamError("a PPS has bottom_field_pic_order_in_frame_present_flag") }
                }
                rewritten += nal
            }
        }
        guard let sps else { throw BitstreamError("the stream has no sequence parameter set") }
        guard highestPPS >= 0, highestPPS < 255 else { throw BitstreamError("the stream's PPS ids leave none free") }
        self.sps = sps
        repeatPPSID = highestPPS + 1
        extradata = rewritten + [0, 0, 0, 1] + Self.repeatPPS(id: repeatPPSID, spsID: sps.id)
    }

    /// The SPS RBSP with `pic_order_cnt_type` 2 replaced by type 0 and a 16-bit `pic_order_cnt_lsb`; every other
    /// field as it was (copied bit by bit up to the stop bit, then the trailing bits again).
    static func pictureOrderType0(_ rbsp: [UInt8], _ sps: H264SequenceParameters) throws -> [UInt8] {
        guard let lastByte = rbsp.lastIndex(where: { $0 != 0 }) else { throw BitstreamError("an empty SPS") }
        let stopBit = lastByte * 8 + 7 - rbsp[lastByte].trailingZeroBitCount
        var r = RBSPReader(rbsp)
        var w = RBSPWriter()
        while r.position < sps.picOrderCountTypePosition { w.bit(try r.bit()) }
        guard try r.ue() == 2 else { throw BitstreamError("the SPS's pic_order_cnt_type moved") }
        w.ue(0)
        w.ue(log2MaxPicOrderCountLsb - 4)
        while r.position < stopBit { w.bit(try r.bit()) }
        w.trailingBits()
        return w.bytes
    }

    /// The repeat pictures' PPS NAL unit (7.3.2.2): CAVLC, one reference by default, no weighted prediction,
    /// QP 26 (no residual is coded), deblocking control present so the slice can switch it off.
    static func repeatPPS(id: Int, spsID: Int) -> [UInt8] {
        var w = RBSPWriter()
        w.ue(id)
        w.ue(spsID)
        w.flag(false)  // entropy_coding_mode_flag: CAVLC
        w.flag(false)  // bottom_field_pic_order_in_frame_present_flag
        w.ue(0)  // num_slice_groups_minus1
        w.ue(0)  // num_ref_idx_l0_default_active_minus1
        w.ue(0)  // num_ref_idx_l1_default_active_minus1
        w.flag(false)  // weighted_pred_flag
        w.bits(0, 2)  // weighted_bipred_idc
        w.se(0)  // pic_init_qp_minus26
        w.se(0)  // pic_init_qs_minus26
        w.se(0)  // chroma_qp_index_offset
        w.flag(true)  // deblocking_filter_control_present_flag
        w.flag(false)  // constrained_intra_pred_flag
        w.flag(false)  // redundant_pic_cnt_present_flag
        w.trailingBits()
        return [0x68] + escapeRBSP(w.bytes)  // nal_ref_idc 3, nal_unit_type 8
    }

    /// The order count of the next output frame, as written (`pic_order_cnt_lsb`).
    private var orderCountLsb: Int { (2 * sinceIDR) & ((1 << Self.log2MaxPicOrderCountLsb) - 1) }

    /// One access unit of x264's (Annex B: one picture, one output frame) with a `pic_order_cnt_lsb` in each slice.
    func rewrite(_ bytes: UnsafeBufferPointer<UInt8>) throws -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 8)
        var copied = 0  // bytes of `bytes` already in `out`
        var sawSlice = false
        for unit in annexBUnits(bytes) {
            let header = bytes[unit.lowerBound]
            let type = Int(header & 0x1F)
            if type == 7 || type == 8 { throw BitstreamError("parameter sets in band (nal_unit_type \(type))") }
            guard type == 1 || type == 5 else { continue }
            let rbsp = unescapeRBSP(bytes[(unit.lowerBound + 1)..<unit.upperBound])
            let slice = try SliceHeaderStart(rbsp: rbsp, sps: sps, idr: type == 5)
            if slice.ppsID == repeatPPSID { throw BitstreamError("a slice uses the repeat pictures' PPS id") }
            if !sawSlice {
                if type == 5 { sinceIDR = 0 }
                lastFrameNum = slice.frameNum
                lastWasReference = header & 0x60 != 0
                seenPicture = true
                sawSlice = true
            }
            out.append(contentsOf: bytes[copied...unit.lowerBound])  // up to and with the NAL header
            out.append(contentsOf: escapeRBSP(insertingSixteenBits(rbsp, at: slice.orderCountPosition, orderCountLsb)))
            copied = unit.upperBound
        }
        guard sawSlice else { throw BitstreamError("an access unit without a slice") }
        out.append(contentsOf: bytes[copied...])
        sinceIDR += 1
        run = 0
        return out
    }

    /// A repeat of the last picture: one access unit (Annex B, one non-reference P slice of P_Skip macroblocks).
    func repeatPicture() throws -> [UInt8] {
        guard seenPicture, lastWasReference else { throw BitstreamError("a repeat must follow a reference picture") }
        guard run < Self.maximumRun else {
            throw BitstreamError("more than \(Self.maximumRun) repeats of one picture (picture order would wrap)")
        }
        var w = RBSPWriter()
        w.ue(0)  // first_mb_in_slice
        w.ue(5)  // slice_type: P, every slice of the picture
        w.ue(repeatPPSID)
        w.bits((lastFrameNum + 1) % sps.maxFrameNum, sps.log2MaxFrameNum)  // PrevRefFrameNum + 1
        // Not IDR: no idr_pic_id.
        w.bits(orderCountLsb, Self.log2MaxPicOrderCountLsb)
        // The PPS has no bottom-field order and no redundant_pic_cnt.
        w.flag(false)  // num_ref_idx_active_override_flag: the PPS's one reference
        w.flag(false)  // ref_pic_list_modification_flag_l0: the held picture is first
        // nal_ref_idc 0: no dec_ref_pic_marking().
        w.se(0)  // slice_qp_delta
        w.ue(1)  // disable_deblocking_filter_idc: off
        w.ue(sps.macroblocksPerFrame)  // slice_data(): mb_skip_run over the whole frame
        w.trailingBits()
        let unit: [UInt8] = [0, 0, 0, 1, 0x01] + escapeRBSP(w.bytes)  // nal_ref_idc 0, nal_unit_type 1
        sinceIDR += 1
        run += 1
        repeatsWritten += 1
        repeatBytes += unit.count
        return unit
    }
}

/// `rbsp` with the 16-bit `value` inserted at bit `position` (inside the slice header, so before the last
/// byte): two whole bytes, so every bit after it keeps its position within its byte.
func insertingSixteenBits(_ rbsp: [UInt8], at position: Int, _ value: Int) -> [UInt8] {
    let index = position >> 3, offset = position & 7
    let byte = Int(rbsp[index])
    let word = (byte >> (8 - offset)) << (24 - offset) | (value & 0xFFFF) << (8 - offset) | byte & ((1 << (8 - offset)) - 1)
    var out: [UInt8] = []
    out.reserveCapacity(rbsp.count + 2)
    out.append(contentsOf: rbsp[..<index])
    out.append(contentsOf: [UInt8(word >> 16 & 0xFF), UInt8(word >> 8 & 0xFF), UInt8(word & 0xFF)])
    out.append(contentsOf: rbsp[(index + 1)...])
    return out
}

/// A slice header (7.3.3) up to where `pic_order_cnt_lsb` goes (after `frame_num` and, in an IDR, `idr_pic_id`).
struct SliceHeaderStart: Equatable {
    var firstMb: Int
    var sliceType: Int
    var ppsID: Int
    var frameNum: Int
    /// Bit position in the RBSP (after the NAL header byte) where `pic_order_cnt_lsb` goes.
    var orderCountPosition: Int

    init(rbsp: [UInt8], sps: H264SequenceParameters, idr: Bool) throws {
        var r = RBSPReader(rbsp)
        firstMb = try r.ue()
        sliceType = try r.ue()
        ppsID = try r.ue()
        if sps.separateColourPlane { _ = try r.bits(2) }
        frameNum = try r.bits(sps.log2MaxFrameNum)
        // frame_mbs_only: no field_pic_flag
        if idr { _ = try r.ue() }  // idr_pic_id
        orderCountPosition = r.position
        guard r.bitsLeft > 8 else { throw BitstreamError("a slice ends in its header") }
    }
}
