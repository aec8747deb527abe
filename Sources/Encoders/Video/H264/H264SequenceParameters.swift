/// The fields of an H.264 sequence parameter set (7.3.2.1.1) that a repeat picture's slice header and data
/// depend on: its id, how `frame_num` and picture order are coded, and the picture size in macroblocks; the
/// reorder bound of its VUI (E.1.1), which B-frame repeats may have to raise; and the chroma format and bit
/// depths an `avcC` record repeats (`AVCShortLengths`).
struct H264SequenceParameters: Equatable {
    var profileIDC: Int
    var id: Int
    var separateColourPlane = false
    /// `chroma_format_idc` and the bit depths (4:2:0 and 8 bits where the profile does not code them).
    var chromaFormatIDC = 1
    var bitDepthLuma = 8
    var bitDepthChroma = 8
    /// `log2_max_frame_num_minus4 + 4`: `frame_num` is this many bits and wraps at 2^this.
    var log2MaxFrameNum: Int
    var picOrderCountType: Int
    /// `log2_max_pic_order_cnt_lsb_minus4 + 4` (type 0), and where that `ue(v)` field lies in the RBSP.
    var log2MaxPocLsb = 0
    var pocLsbField: Range<Int>?
    var maxNumRefFrames: Int
    var gapsInFrameNumAllowed: Bool
    var widthInMbs: Int
    var heightInMapUnits: Int
    var frameMbsOnly: Bool
    /// The VUI's `max_num_reorder_frames` and `max_dec_frame_buffering`, and where the first (`ue(v)`) lies in
    /// the RBSP; `nil` without `bitstream_restriction` (a decoder then assumes the DPB's size).
    var maxNumReorderFrames: Int?
    var maxDecFrameBuffering: Int?
    var reorderField: Range<Int>?

    var maxFrameNum: Int { 1 << log2MaxFrameNum }
    /// Macroblocks in a frame (7-13, 7-17 and 7-18).
    var macroblocksPerFrame: Int { widthInMbs * heightInMapUnits * (frameMbsOnly ? 1 : 2) }

    /// Parses the RBSP of an SPS NAL unit (after its one-byte header).
    init(rbsp: [UInt8]) throws {
        var r = RBSPReader(rbsp)
        profileIDC = try r.bits(8)
        _ = try r.bits(16)  // constraint_set flags, reserved bits, level_idc
        id = try r.ue()
        if [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].contains(profileIDC) {
            let chromaFormat = try r.ue()
            chromaFormatIDC = chromaFormat
            if chromaFormat == 3 { separateColourPlane = try r.flag() }
            bitDepthLuma = try r.ue() + 8
            bitDepthChroma = try r.ue() + 8
            _ = try r.flag()  // qpprime_y_zero_transform_bypass_flag
            if try r.flag() {  // seq_scaling_matrix_present_flag
                for list in 0..<(chromaFormat != 3 ? 8 : 12) where try r.flag() {
                    try Self.skipScalingList(&r, size: list < 6 ? 16 : 64)
                }
            }
        }
        log2MaxFrameNum = try r.ue() + 4
        picOrderCountType = try r.ue()
        if picOrderCountType == 0 {
            let start = r.position
            log2MaxPocLsb = try r.ue() + 4
            pocLsbField = start..<r.position
        } else if picOrderCountType == 1 {
            _ = try r.flag()
            _ = try r.se()
            _ = try r.se()
            for _ in 0..<(try r.ue()) { _ = try r.se() }
        }
        maxNumRefFrames = try r.ue()
        gapsInFrameNumAllowed = try r.flag()
        widthInMbs = try r.ue() + 1
        heightInMapUnits = try r.ue() + 1
        frameMbsOnly = try r.flag()
        guard (4...16).contains(log2MaxFrameNum) else {
            throw BitstreamError("log2_max_frame_num \(log2MaxFrameNum) is out of range")
        }
        if !frameMbsOnly { _ = try r.flag() }  // mb_adaptive_frame_field_flag
        _ = try r.flag()  // direct_8x8_inference_flag
        if try r.flag() {  // frame_cropping_flag: four offsets
            for _ in 0..<4 { _ = try r.ue() }
        }
        if try r.flag() { try readVUI(&r) }  // vui_parameters_present_flag
    }

    /// vui_parameters() (E.1.1) up to `bitstream_restriction`'s reorder bound.
    private mutating func readVUI(_ r: inout RBSPReader) throws {
        if try r.flag(), try r.bits(8) == 255 { _ = try r.bits(32) }  // aspect_ratio_idc, Extended_SAR
        if try r.flag() { _ = try r.flag() }  // overscan_info_present_flag, overscan_appropriate_flag
        if try r.flag() {  // video_signal_type_present_flag
            _ = try r.bits(4)  // video_format, video_full_range_flag
            if try r.flag() { _ = try r.bits(24) }  // colour_description_present_flag: primaries, transfer, matrix
        }
        if try r.flag() { _ = try r.ue(); _ = try r.ue() }  // chroma_loc_info_present_flag
        if try r.flag() { _ = try r.bits(32); _ = try r.bits(32); _ = try r.flag() }  // timing_info_present_flag
        let nalHRD = try r.flag()
        if nalHRD { try Self.skipHRD(&r) }
        let vclHRD = try r.flag()
        if vclHRD { try Self.skipHRD(&r) }
        if nalHRD || vclHRD { _ = try r.flag() }  // low_delay_hrd_flag
        _ = try r.flag()  // pic_struct_present_flag
        guard try r.flag() else { return }  // bitstream_restriction_flag
        _ = try r.flag()  // motion_vectors_over_pic_boundaries_flag
        for _ in 0..<4 { _ = try r.ue() }  // max_bytes_per_pic_denom ... log2_max_mv_length_vertical
        let start = r.position
        maxNumReorderFrames = try r.ue()
        reorderField = start..<r.position
        maxDecFrameBuffering = try r.ue()
    }

    /// hrd_parameters() (E.1.2): read and dropped.
    private static func skipHRD(_ r: inout RBSPReader) throws {
        let count = try r.ue() + 1  // cpb_cnt_minus1
        guard count <= 32 else { throw BitstreamError("an HRD with \(count) CPB specifications") }
        _ = try r.bits(8)  // bit_rate_scale, cpb_size_scale
        for _ in 0..<count { _ = try r.ue(); _ = try r.ue(); _ = try r.flag() }
        _ = try r.bits(20)  // four delay and offset lengths, 5 bits each
    }

    /// scaling_list() (7.3.2.1.1.1): read and dropped.
    private static func skipScalingList(_ r: inout RBSPReader, size: Int) throws {
        var last = 8, next = 8
        for _ in 0..<size {
            if next != 0 { next = (last + (try r.se()) + 256) % 256 }
            last = next == 0 ? last : next
        }
    }
}

/// An encoder's parameter sets (Annex B extradata, as libx264 writes it), as the repeat splicers read them: the
/// first SPS (parsed, with its NAL header byte and RBSP), every other NAL unit as written, the PPSs' RBSPs, and
/// the highest PPS id (a repeat PPS takes the one above). Refuses a stream without an SPS, with no PPS id free, or
/// with interlaced or separate-plane coding, which no repeat picture can follow.
struct H264ParameterSets {
    var sps: H264SequenceParameters
    var spsHeader: UInt8
    var spsRBSP: [UInt8]
    var otherUnits: [[UInt8]]
    var ppsRBSPs: [[UInt8]]
    var highestPPSID: Int

    init(extradata: [UInt8]) throws {
        var sps: (H264SequenceParameters, UInt8, [UInt8])?
        var others: [[UInt8]] = [], pps: [[UInt8]] = [], highest = -1
        try extradata.withUnsafeBufferPointer { bytes in
            for unit in annexBUnits(bytes) {
                let type = Int(bytes[unit.lowerBound] & 0x1F)
                let rbsp = unescapeRBSP(bytes[(unit.lowerBound + 1)..<unit.upperBound])
                if type == 7, sps == nil {
                    sps = (try H264SequenceParameters(rbsp: rbsp), bytes[unit.lowerBound], rbsp)
                    continue
                }
                if type == 8 {
                    var r = RBSPReader(rbsp)
                    highest = max(highest, try r.ue())
                    pps.append(rbsp)
                }
                others.append(Array(bytes[unit]))
            }
        }
        (otherUnits, ppsRBSPs, highestPPSID) = (others, pps, highest)
        guard let sps else { throw BitstreamError("the stream has no sequence parameter set") }
        (self.sps, spsHeader, spsRBSP) = sps
        guard highestPPSID >= 0, highestPPSID < 255 else { throw BitstreamError("the stream's PPS ids leave none free") }
        guard self.sps.frameMbsOnly, !self.sps.separateColourPlane else {
            throw BitstreamError("repeat pictures need progressive frames in one colour plane")
        }
    }
}
