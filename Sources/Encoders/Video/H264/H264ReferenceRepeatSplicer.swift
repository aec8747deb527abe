/// Writes repeats into an x264 stream with B-frames as non-reference P_Skip pictures (docs/repeats.md, "B-frames
/// with repeats (H.264)").
///
/// x264 codes each distinct picture once, with its B-frames and references, every held picture a reference
/// (`X264Encoder.PictureType.reference`: a B reference where x264 makes it a B-frame). A repeat of a held picture
/// is one P slice of P_Skip macroblocks with `nal_ref_idc` 0, so the decoded picture buffer stays as x264 left it:
/// - it predicts from the held picture alone: the held picture is put first in its list by
///   `ref_pic_list_modification` where it is not the last reference decoded (`abs_diff_pic_num_minus1`), and the
///   repeat PPS has one active reference. With every macroblock skipped, motion 0 and no residual, it decodes to an
///   exact copy (deblocking finds no edge to filter: same reference, same motion, no coefficients);
/// - it goes in decode order after every picture shown before it (`VideoSession` holds it back until then), and
///   takes the `frame_num` a non-reference picture takes there (the last reference's plus one), so x264's own
///   `frame_num`s do not change;
/// - its place in presentation order comes from picture order counts: x264's are 2 per picture since the IDR,
///   every slice's is multiplied by `maximumRun` + 1 (in a field 8 bits wider, so the bits after it, CABAC data
///   included, keep their byte alignment and are copied as they are), and the k-th repeat of a picture takes the
///   picture's count plus 2k. Multiplying every count by one number keeps the order and every ratio of
///   distances; x264 must not use them otherwise: no implicit weighted bi-prediction (`weightb=0`) and spatial
///   direct prediction, both checked in the stream.
package final class H264ReferenceRepeatSplicer {
    /// One x264 picture as rewritten: what its repeats need.
    struct CodedPicture {
        var frameNum: Int
        var orderCount: Int
        var isReference: Bool
    }

    let sps: H264SequenceParameters
    /// The parameter sets as rewritten (the wider picture order count, the reorder bound) with the repeat PPS
    /// appended (Annex B).
    let extradata: [UInt8]
    /// x264's parameter sets with the reorder bound alone raised (Annex B): for a copy of x264's own stream
    /// (`Diagnostics.x264StreamPath`), which a decoder trusting x264's bound of 2 plays with pictures missing.
    let encoderParameterSets: [UInt8]
    /// The most repeats one picture may have before the encoder is given the picture again.
    let maximumRun: Int
    /// The most samples decoded before one and shown after it (the SPS's `max_num_reorder_frames` as rewritten):
    /// each sample is decoded this many output frames before its place in decode order.
    let reorderDelay: Int
    private let repeatPPSID: Int
    private let scale: Int
    private let orderWidth: Int
    /// `frame_num` and picture order count (rewritten) of the last reference picture decoded.
    private var lastReferenceFrameNum = 0
    private var lastReferenceOrder = 0
    /// x264's own picture order count state (8.2.1.1): the last reference picture's msb and lsb.
    private var previousMsb = 0, previousLsb = 0

    private(set) var repeatsWritten = 0
    private(set) var repeatBytes = 0

    /// Reads x264's SPS and PPS from `extradata` (Annex B) and rewrites them. `longestHold`: the most output
    /// frames one picture is shown for (sets the scale; holds are cut at `maximumRun` + 1). Refuses what the
    /// repeats cannot follow: interlaced or separate-plane coding, picture order other than type 0, an order
    /// count field over 8 bits, implicit weighted bi-prediction, more than one slice group.
    init(extradata original: [UInt8], longestHold: Int, bFrames: Int) throws {
        let sets = try H264ParameterSets(extradata: original)
        let sps = sets.sps
        guard sps.pocLsbField != nil else { throw BitstreamError("B-frame repeats need pic_order_cnt_type 0") }
        for pps in sets.ppsRBSPs { try Self.checkPPS(pps) }
        let highestPPS = sets.highestPPSID
        guard sps.log2MaxPocLsb + 8 <= 16 else {
            throw BitstreamError("the picture order count is \(sps.log2MaxPocLsb) bits: 8 more would pass 16")
        }
        self.sps = sps
        orderWidth = sps.log2MaxPocLsb + 8
        // The widest distance from a picture's count to the last reference's: x264's, 2 × (B-frames + 2) at most,
        // times the scale, plus a run of repeats; it must stay under half the field (8.2.1.1).
        let longestRun = (1 << (orderWidth - 2)) / (bFrames + 3) - 1
        maximumRun = max(1, min(longestHold - 1, longestRun))
        scale = maximumRun + 1
        repeatPPSID = highestPPS + 1
        // x264 declares a reorder of 2 with a B-pyramid: its own B reference and the P after it. Held pictures
        // forced to B references add more: x264 codes a mini-GOP's P, then its B references, then its other
        // B-frames, so a B-frame shown first may follow up to B-frames pictures shown after it (at `slower`,
        // b-adapt 2: a B-frame, two held B references, a P; decoded P, B, B, b).
        reorderDelay = max(sps.maxNumReorderFrames ?? 0, bFrames, 2)
        if let buffering = sps.maxDecFrameBuffering, buffering < reorderDelay {
            throw BitstreamError("a reorder of \(reorderDelay) pictures needs more than the \(buffering) the DPB holds")
        }
        let others: [UInt8] = sets.otherUnits.flatMap { [0, 0, 0, 1] as [UInt8] + $0 }
        extradata = Self.rewriteSPS(sets, orderWidth: orderWidth, reorder: reorderDelay) + others + [0, 0, 0, 1]
            + H264RepeatSplicer.repeatPPS(id: repeatPPSID, spsID: sps.id, deblockingControl: false)
        encoderParameterSets = Self.rewriteSPS(sets, orderWidth: nil, reorder: reorderDelay) + others
    }

    /// The SPS (Annex B) with its picture order count field `orderWidth` bits wide (`nil`: as it is) and its
    /// VUI's `max_num_reorder_frames` at `reorder`, every other bit copied.
    private static func rewriteSPS(_ sets: H264ParameterSets, orderWidth: Int?, reorder: Int) -> [UInt8] {
        let rbsp = sets.spsRBSP, sps = sets.sps
        var fields: [(Range<Int>, Int)] = []
        if let orderWidth, let lsbField = sps.pocLsbField { fields.append((lsbField, orderWidth - 4)) }
        if let reorderField = sps.reorderField { fields.append((reorderField, reorder)) }
        var writer = RBSPWriter()
        var position = 0
        for (field, value) in fields {
            writer.copyBits(from: rbsp, position..<field.lowerBound)
            writer.ue(value)
            position = field.upperBound
        }
        writer.copyBits(from: rbsp, position..<rbspDataEnd(rbsp))
        writer.trailingBits()
        return [0, 0, 0, 1, sets.spsHeader] + escapeRBSP(writer.bytes)
    }

    /// That a PPS uses nothing the repeats cannot follow: slice groups, implicit weighted bi-prediction.
    private static func checkPPS(_ rbsp: [UInt8]) throws {
        var r = RBSPReader(rbsp)
        _ = try r.ue()  // pic_parameter_set_id
        _ = try r.ue()  // seq_parameter_set_id
        _ = try r.flag()  // entropy_coding_mode_flag
        _ = try r.flag()  // bottom_field_pic_order_in_frame_present_flag
        guard try r.ue() == 0 else { throw BitstreamError("the stream uses slice groups") }
        _ = try r.ue()
        _ = try r.ue()
        _ = try r.flag()  // weighted_pred_flag: explicit weights are coded in the slices, not derived from counts
        guard try r.bits(2) != 2 else {
            throw BitstreamError("implicit weighted bi-prediction derives weights from picture order counts")
        }
    }

    /// One access unit of x264's (Annex B) with every slice's picture order count scaled into the wider field.
    func rewrite(_ bytes: UnsafeBufferPointer<UInt8>) throws -> (bytes: [UInt8], picture: CodedPicture) {
        var picture: CodedPicture?
        let out = try replacingNALUnits(in: bytes, headerLength: 1) { unit in
            let header = bytes[unit.lowerBound]
            let type = Int(header & 0x1F)
            guard type == 1 || type == 5 else { return nil }
            let rbsp = unescapeRBSP(bytes[(unit.lowerBound + 1)..<unit.upperBound])
            var r = RBSPReader(rbsp)
            let firstMb = try r.ue()
            let sliceType = try r.ue() % 5
            let ppsID = try r.ue()
            if ppsID == repeatPPSID { throw BitstreamError("a slice uses the repeat pictures' PPS id") }
            let frameNum = try r.bits(sps.log2MaxFrameNum)
            if type == 5 { _ = try r.ue() }  // idr_pic_id
            let lsbPosition = r.position
            let lsb = try r.bits(sps.log2MaxPocLsb)
            if sliceType == 1 {  // B: direct_spatial_mv_pred_flag (x264 writes no delta_pic_order_cnt_bottom nor redundant_pic_cnt)
                guard try r.flag() else { throw BitstreamError("temporal direct prediction scales by picture order counts") }
            }
            let isReference = header & 0x60 != 0
            if firstMb == 0 {
                picture = try orderCount(lsb: lsb, idr: type == 5, frameNum: frameNum, isReference: isReference)
            }
            guard let picture else { throw BitstreamError("a slice before its picture's first") }
            var writer = RBSPWriter()
            writer.copyBits(from: rbsp, 0..<lsbPosition)
            writer.bits(picture.orderCount & ((1 << orderWidth) - 1), orderWidth)
            writer.copyBits(from: rbsp, (lsbPosition + sps.log2MaxPocLsb)..<(rbsp.count * 8))
            return writer.bytes
        }
        // Every access unit has a slice, and every slice is rewritten: `out` is never `nil` past the guard.
        guard let picture, let out else { throw BitstreamError("an access unit without a slice") }
        return (out, picture)
    }

    /// The picture's order count (x264's, 8.2.1.1, times the scale), and the state a repeat needs.
    private func orderCount(lsb: Int, idr: Bool, frameNum: Int, isReference: Bool) throws -> CodedPicture {
        if idr {
            previousMsb = 0
            previousLsb = 0
            lastReferenceOrder = 0
        }
        let maxLsb = 1 << sps.log2MaxPocLsb
        var msb = previousMsb
        if lsb < previousLsb && previousLsb - lsb >= maxLsb / 2 {
            msb += maxLsb
        } else if lsb > previousLsb && lsb - previousLsb > maxLsb / 2 {
            msb -= maxLsb
        }
        let x264Order = msb + lsb
        guard x264Order % 2 == 0 else { throw BitstreamError("x264 wrote an odd picture order count \(x264Order)") }
        let order = x264Order * scale
        try checkDistance(order)
        if isReference {
            previousMsb = msb
            previousLsb = lsb
            lastReferenceFrameNum = frameNum
            lastReferenceOrder = order
        }
        return CodedPicture(frameNum: frameNum, orderCount: order, isReference: isReference)
    }

    /// A count must lie within half the field of the last reference's (8.2.1.1), or a decoder misplaces it.
    private func checkDistance(_ order: Int) throws {
        guard abs(order - lastReferenceOrder) < 1 << (orderWidth - 1) else {
            throw BitstreamError("a picture order count \(order) is too far from the last reference's \(lastReferenceOrder)")
        }
    }

    /// The `k`-th repeat (1...`maximumRun`) of `picture`: one access unit (Annex B) of one non-reference P slice
    /// of P_Skip macroblocks.
    func repeatPicture(of picture: CodedPicture, k: Int) throws -> [UInt8] {
        guard picture.isReference else { throw BitstreamError("a repeat must copy a reference picture") }
        guard (1...maximumRun).contains(k) else { throw BitstreamError("repeat \(k) of a run of at most \(maximumRun)") }
        let order = picture.orderCount + 2 * k
        try checkDistance(order)
        let frameNum = (lastReferenceFrameNum + 1) % sps.maxFrameNum
        var w = RBSPWriter()
        w.ue(0)  // first_mb_in_slice
        w.ue(0)  // slice_type: P
        w.ue(repeatPPSID)
        w.bits(frameNum, sps.log2MaxFrameNum)
        w.bits(order & ((1 << orderWidth) - 1), orderWidth)
        w.flag(false)  // num_ref_idx_active_override_flag: the PPS's one reference
        if picture.frameNum == lastReferenceFrameNum {
            w.flag(false)  // ref_pic_list_modification_flag_l0: the last reference decoded is first already
        } else {
            w.flag(true)
            w.ue(0)  // modification_of_pic_nums_idc: subtract from the current picture number
            w.ue((frameNum - picture.frameNum + sps.maxFrameNum) % sps.maxFrameNum - 1)
            w.ue(3)
        }
        // nal_ref_idc 0: no dec_ref_pic_marking; CAVLC: no cabac_init_idc.
        w.se(0)  // slice_qp_delta
        w.ue(sps.macroblocksPerFrame)  // slice_data(): mb_skip_run over the whole frame
        w.trailingBits()
        let unit: [UInt8] = [0, 0, 0, 1, 0x01] + escapeRBSP(w.bytes)  // nal_ref_idc 0, nal_unit_type 1
        repeatsWritten += 1
        repeatBytes += unit.count
        return unit
    }
}

/// The bit position just before an RBSP's stop bit (`rbsp_trailing_bits`).
func rbspDataEnd(_ rbsp: [UInt8]) -> Int {
    var position = rbsp.count * 8
    while position > 0 {
        position -= 1
        if rbsp[position >> 3] >> (7 - UInt8(position & 7)) & 1 == 1 { return position }
    }
    return 0
}
