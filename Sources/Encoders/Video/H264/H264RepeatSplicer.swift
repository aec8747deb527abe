/// Writes repeats of the last picture into an x264 stream as P_Skip pictures, and renumbers x264's own
/// slices around them (docs/repeats.md).
///
/// A repeat picture is one P slice whose macroblocks are all P_Skip: with one reference in the list the
/// first macroblock's predicted motion is 0 (its neighbours are unavailable), every later one inherits 0
/// from skipped neighbours with reference index 0 and motion 0, there is no residual, and deblocking is
/// switched off in its header, so it decodes to an exact copy of the picture before it. It is coded with
/// CAVLC (`mb_skip_run` = the frame's macroblocks), through a picture parameter set of its own (appended to
/// the stream's extradata), so it does not depend on x264's entropy coder or weighted prediction.
///
/// Every picture in the stream is a reference picture (x264 without B-frames marks every P picture as one),
/// so `frame_num` goes up by one per picture from each IDR (0) and wraps at `MaxFrameNum`; the repeats take
/// their numbers in that sequence, and every later slice of x264's in the same GOP has its `frame_num`
/// advanced by the repeats inserted since the IDR. `frame_num` is a fixed-width field, so the rewrite does
/// not move the bits after it (CABAC data included): the NAL unit is unescaped, the field overwritten and
/// the unit escaped again. With `pic_order_cnt_type` 2 (x264 without B-frames) picture order follows
/// `frame_num`, so nothing else in the header changes. The stream must use one reference frame: x264's
/// next picture then references the last repeat, whose decoded samples are those of the picture it
/// predicted from.
final class H264RepeatSplicer {
    let sps: H264SequenceParameters
    /// The repeat pictures' own PPS id (one above x264's highest).
    let repeatPPSID: Int
    /// The parameter sets with the repeat PPS appended (Annex B), for the codec's extradata.
    let extradata: [UInt8]
    /// Repeat pictures written since the last IDR: added to x264's `frame_num`s.
    private var inserted = 0
    /// `frame_num` (as written) of the last picture, and whether it was a reference picture.
    private var lastFrameNum = 0
    private var lastWasReference = false
    private var seenPicture = false

    /// Repeat pictures written, and their bytes (Annex B, start codes included).
    private(set) var repeatsWritten = 0
    private(set) var repeatBytes = 0

    /// Reads the SPS and PPS ids from `extradata` (Annex B, as libx264 writes it) and appends the repeat PPS.
    /// Refuses what the repeat pictures cannot follow: interlaced or separate-plane coding, picture order
    /// other than type 2, or more than one reference frame.
    init(extradata original: [UInt8]) throws {
        let sets = try H264ParameterSets(extradata: original)
        let sps = sets.sps, highestPPS = sets.highestPPSID
        guard sps.picOrderCountType == 2 else {
            throw BitstreamError("repeat pictures need pic_order_cnt_type 2 (no B-frames), not \(sps.picOrderCountType)")
        }
        guard sps.maxNumRefFrames == 1 else {
            throw BitstreamError("repeat pictures need one reference frame, not \(sps.maxNumRefFrames)")
        }
        self.sps = sps
        repeatPPSID = highestPPS + 1
        extradata = original + [0, 0, 0, 1] + Self.repeatPPS(id: repeatPPSID, spsID: sps.id)
    }

    /// The repeat pictures' PPS NAL unit (7.3.2.2): CAVLC, one reference by default, no weighted prediction,
    /// QP 26 (no residual is coded), deblocking control present so the slice can switch it off (`deblockingControl`;
    /// without it the slice has no deblocking fields: a picture of P_Skip macroblocks predicting from one picture with
    /// motion 0 has no edge to filter, 8.7.2.1).
    static func repeatPPS(id: Int, spsID: Int, deblockingControl: Bool = true) -> [UInt8] {
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
        w.flag(deblockingControl)  // deblocking_filter_control_present_flag
        w.flag(false)  // constrained_intra_pred_flag
        w.flag(false)  // redundant_pic_cnt_present_flag
        w.trailingBits()
        return [0x68] + escapeRBSP(w.bytes)  // nal_ref_idc 3, nal_unit_type 8
    }

    /// One access unit of x264's (Annex B) with its slices' `frame_num` advanced by the repeats inserted
    /// since the last IDR; `nil` when nothing changes (no repeat yet in this GOP, or an IDR).
    func rewrite(_ bytes: UnsafeBufferPointer<UInt8>) throws -> [UInt8]? {
        try replacingNALUnits(in: bytes, headerLength: 1) { unit in
            let header = bytes[unit.lowerBound]
            let type = Int(header & 0x1F)
            guard type == 1 || type == 5 else { return nil }
            var rbsp = unescapeRBSP(bytes[(unit.lowerBound + 1)..<unit.upperBound])
            let slice = try SliceHeaderStart(rbsp: rbsp, sps: sps)
            if slice.ppsID == repeatPPSID { throw BitstreamError("a slice uses the repeat pictures' PPS id") }
            if type == 5 {
                guard slice.frameNum == 0 else { throw BitstreamError("an IDR slice has frame_num \(slice.frameNum)") }
                inserted = 0
            }
            let frameNum = (slice.frameNum + inserted) % sps.maxFrameNum
            if slice.firstMb == 0 {
                lastFrameNum = frameNum
                lastWasReference = header & 0x60 != 0
                seenPicture = true
            }
            guard frameNum != slice.frameNum else { return nil }
            overwriteBits(&rbsp, at: slice.frameNumPosition, width: sps.log2MaxFrameNum, with: frameNum)
            return rbsp
        }
    }

    /// A repeat of the last picture: one access unit (Annex B, one P slice of P_Skip macroblocks).
    func repeatPicture() throws -> [UInt8] {
        guard seenPicture, lastWasReference else {
            throw BitstreamError("a repeat must follow a reference picture")
        }
        let frameNum = (lastFrameNum + 1) % sps.maxFrameNum
        var w = RBSPWriter()
        w.ue(0)  // first_mb_in_slice
        w.ue(5)  // slice_type: P, every slice of the picture
        w.ue(repeatPPSID)
        w.bits(frameNum, sps.log2MaxFrameNum)
        // Not IDR; pic_order_cnt_type 2: no POC fields; the PPS has no redundant_pic_cnt.
        w.flag(false)  // num_ref_idx_active_override_flag: the PPS's one reference
        w.flag(false)  // ref_pic_list_modification_flag_l0
        w.flag(false)  // adaptive_ref_pic_marking_mode_flag: sliding window (nal_ref_idc is not 0)
        w.se(0)  // slice_qp_delta
        w.ue(1)  // disable_deblocking_filter_idc: off
        w.ue(sps.macroblocksPerFrame)  // slice_data(): mb_skip_run over the whole frame
        w.trailingBits()
        let unit: [UInt8] = [0, 0, 0, 1, 0x41] + escapeRBSP(w.bytes)  // nal_ref_idc 2, nal_unit_type 1
        inserted += 1
        lastFrameNum = frameNum
        repeatsWritten += 1
        repeatBytes += unit.count
        return unit
    }
}

/// A slice header (7.3.3) up to `frame_num`, and where `frame_num` sits.
struct SliceHeaderStart: Equatable {
    var firstMb: Int
    var sliceType: Int
    var ppsID: Int
    var frameNum: Int
    /// Bit position of `frame_num` in the RBSP (after the NAL header byte).
    var frameNumPosition: Int

    init(rbsp: [UInt8], sps: H264SequenceParameters) throws {
        var r = RBSPReader(rbsp)
        firstMb = try r.ue()
        sliceType = try r.ue()
        ppsID = try r.ue()
        if sps.separateColourPlane { _ = try r.bits(2) }
        frameNumPosition = r.position
        frameNum = try r.bits(sps.log2MaxFrameNum)
    }
}
