/// What the HEVC repeat splicer (`HEVCRepeatSplicer`) reads of x265's parameter sets (ITU-T H.265 7.3.2.2 and
/// 7.3.2.3): the picture and coding-block sizes its skip slices cover, the picture order count's width, the
/// short-term reference picture sets a slice may name, and the tools that a skip picture must leave off.

/// A short-term reference picture set (7.3.7, derived as 7.4.8): the picture order differences before
/// (`negative`, nearest first, each below 0) and after (`positive`, each above 0) the current picture, and
/// whether the current picture predicts from each.
struct HEVCReferenceSet: Equatable {
    struct Entry: Equatable {
        var delta: Int
        var used: Bool
        init(_ delta: Int, _ used: Bool) { self.delta = delta; self.used = used }
    }

    var negative: [Entry] = []
    var positive: [Entry] = []

    var count: Int { negative.count + positive.count }

    /// `st_ref_pic_set(index)`: `sets` are the SPS's sets before it (the source of an inter-set prediction);
    /// `inSliceHeader` when it is the slice header's own set (index = the SPS's count), which may name its
    /// source with `delta_idx_minus1`.
    static func read(_ r: inout RBSPReader, index: Int, sets: [HEVCReferenceSet], inSliceHeader: Bool) throws -> HEVCReferenceSet {
        let predicted = index != 0 ? try r.flag() : false
        guard predicted else {
            let negatives = try r.ue(), positives = try r.ue()
            guard negatives <= 16, positives <= 16 else { throw BitstreamError("a reference picture set lists more than 16 pictures") }
            var set = HEVCReferenceSet()
            var poc = 0
            for _ in 0..<negatives {
                poc -= try r.ue() + 1
                set.negative.append(Entry(poc, try r.flag()))
            }
            poc = 0
            for _ in 0..<positives {
                poc += try r.ue() + 1
                set.positive.append(Entry(poc, try r.flag()))
            }
            return set
        }
        let deltaIndex = inSliceHeader ? try r.ue() + 1 : 1
        guard deltaIndex <= index else { throw BitstreamError("a reference picture set predicts from one that does not exist") }
        let source = sets[index - deltaIndex]
        let sign = try r.bit()
        let deltaRps = (1 - 2 * sign) * (try r.ue() + 1)
        var used: [Bool] = [], useDelta: [Bool] = []
        for _ in 0...source.count {
            let u = try r.flag()
            used.append(u)
            useDelta.append(u ? true : try r.flag())
        }
        // 7-61 and 7-62.
        let n = source.negative.count, total = source.count
        var set = HEVCReferenceSet()
        for j in stride(from: source.positive.count - 1, through: 0, by: -1) {
            let d = source.positive[j].delta + deltaRps
            if d < 0 && useDelta[n + j] { set.negative.append(Entry(d, used[n + j])) }
        }
        if deltaRps < 0 && useDelta[total] { set.negative.append(Entry(deltaRps, used[total])) }
        for j in 0..<n {
            let d = source.negative[j].delta + deltaRps
            if d < 0 && useDelta[j] { set.negative.append(Entry(d, used[j])) }
        }
        for j in stride(from: n - 1, through: 0, by: -1) {
            let d = source.negative[j].delta + deltaRps
            if d > 0 && useDelta[j] { set.positive.append(Entry(d, used[j])) }
        }
        if deltaRps > 0 && useDelta[total] { set.positive.append(Entry(deltaRps, used[total])) }
        for j in 0..<source.positive.count {
            let d = source.positive[j].delta + deltaRps
            if d > 0 && useDelta[n + j] { set.positive.append(Entry(d, used[n + j])) }
        }
        return set
    }
}

/// The fields of an HEVC sequence parameter set (7.3.2.2) the splicer uses.
struct HEVCSequenceParameters: Equatable {
    var id = 0
    var chromaFormat = 1
    var separateColourPlane = false
    var width = 0
    var height = 0
    var log2MaxPocLsb = 4
    /// Coding blocks: the smallest and the coding tree block, log2 of luma samples.
    var log2MinCb = 3
    var log2Ctb = 4
    /// `sps_max_dec_pic_buffering_minus1` of the highest sub-layer: the reference pictures the DPB holds.
    var maxReferencePictures = 1
    var sampleAdaptiveOffset = false
    var referenceSets: [HEVCReferenceSet] = []
    var longTermReferences = false
    var longTermReferencesInSPS = 0
    var temporalMVP = false

    var ctbSize: Int { 1 << log2Ctb }
    var widthInCtbs: Int { (width + ctbSize - 1) >> log2Ctb }
    var heightInCtbs: Int { (height + ctbSize - 1) >> log2Ctb }

    init() {}

    init(rbsp: [UInt8]) throws {
        var r = RBSPReader(rbsp)
        _ = try r.bits(4)  // sps_video_parameter_set_id
        let maxSubLayersMinus1 = try r.bits(3)
        _ = try r.bit()  // sps_temporal_id_nesting_flag
        try Self.skipProfileTierLevel(&r, maxSubLayersMinus1: maxSubLayersMinus1)
        id = try r.ue()
        chromaFormat = try r.ue()
        if chromaFormat == 3 { separateColourPlane = try r.flag() }
        width = try r.ue()
        height = try r.ue()
        if try r.flag() { for _ in 0..<4 { _ = try r.ue() } }  // conformance window
        _ = try r.ue()  // bit_depth_luma_minus8
        _ = try r.ue()  // bit_depth_chroma_minus8
        log2MaxPocLsb = try r.ue() + 4
        guard log2MaxPocLsb <= 16 else { throw BitstreamError("log2_max_pic_order_cnt_lsb is over 16") }
        let orderingForEach = try r.flag()
        for _ in (orderingForEach ? 0 : maxSubLayersMinus1)...maxSubLayersMinus1 {
            maxReferencePictures = try r.ue()  // sps_max_dec_pic_buffering_minus1: the last (highest) stays
            _ = try r.ue()  // sps_max_num_reorder_pics
            _ = try r.ue()  // sps_max_latency_increase_plus1
        }
        log2MinCb = try r.ue() + 3
        log2Ctb = log2MinCb + (try r.ue())
        guard log2Ctb <= 6, width > 0, height > 0, width % (1 << log2MinCb) == 0, height % (1 << log2MinCb) == 0 else {
            throw BitstreamError("the coding block sizes do not fit the picture")
        }
        _ = try r.ue()  // log2_min_luma_transform_block_size_minus2
        _ = try r.ue()  // log2_diff_max_min_luma_transform_block_size
        _ = try r.ue()  // max_transform_hierarchy_depth_inter
        _ = try r.ue()  // max_transform_hierarchy_depth_intra
        if try r.flag(), try r.flag() { try Self.skipScalingListData(&r) }
        _ = try r.bit()  // amp_enabled_flag
        sampleAdaptiveOffset = try r.flag()
        if try r.flag() {  // pcm_enabled_flag
            _ = try r.bits(8)
            _ = try r.ue()
            _ = try r.ue()
            _ = try r.bit()
        }
        let sets = try r.ue()
        guard sets <= 64 else { throw BitstreamError("more than 64 short-term reference picture sets") }
        for index in 0..<sets {
            referenceSets.append(try HEVCReferenceSet.read(&r, index: index, sets: referenceSets, inSliceHeader: false))
        }
        longTermReferences = try r.flag()
        if longTermReferences {
            longTermReferencesInSPS = try r.ue()
            for _ in 0..<longTermReferencesInSPS {
                _ = try r.bits(log2MaxPocLsb)
                _ = try r.bit()
            }
        }
        temporalMVP = try r.flag()
    }

    /// profile_tier_level(1, maxSubLayersMinus1) (7.3.3).
    static func skipProfileTierLevel(_ r: inout RBSPReader, maxSubLayersMinus1: Int) throws {
        for _ in 0..<3 { _ = try r.bits(32) }  // general profile (8 + 32 flags + 48 bits) and level (8): 96 bits
        var profilePresent: [Bool] = [], levelPresent: [Bool] = []
        for _ in 0..<maxSubLayersMinus1 {
            profilePresent.append(try r.flag())
            levelPresent.append(try r.flag())
        }
        if maxSubLayersMinus1 > 0 { for _ in maxSubLayersMinus1..<8 { _ = try r.bits(2) } }
        for i in 0..<maxSubLayersMinus1 {
            if profilePresent[i] { for _ in 0..<11 { _ = try r.bits(8) } }  // 88 bits
            if levelPresent[i] { _ = try r.bits(8) }
        }
    }

    /// scaling_list_data() (7.3.4).
    static func skipScalingListData(_ r: inout RBSPReader) throws {
        for size in 0..<4 {
            for _ in stride(from: 0, to: 6, by: size == 3 ? 3 : 1) {
                if try r.flag() {
                    if size > 1 { _ = try r.se() }
                    for _ in 0..<min(64, 1 << (4 + (size << 1))) { _ = try r.se() }
                } else {
                    _ = try r.ue()
                }
            }
        }
    }
}

/// The fields of an HEVC picture parameter set (7.3.2.3) a slice header depends on, as far as the reference list.
struct HEVCPictureParameters: Equatable {
    var id = 0
    var spsID = 0
    var dependentSliceSegments = false
    var outputFlagPresent = false
    var extraSliceHeaderBits = 0
    var cabacInitPresent = false
    /// `num_ref_idx_l0_default_active_minus1` + 1.
    var defaultActiveReferences = 1
    /// `init_qp_minus26`: the slice QP is 26 + this + `slice_qp_delta`.
    var initQPMinus26 = 0
    var sliceChromaQPOffsetsPresent = false
    var weightedPrediction = false
    var transquantBypass = false
    var tiles = false
    /// `entropy_coding_sync_enabled_flag`: wavefronts, one substream per row of coding tree blocks.
    var wavefronts = false
    var loopFilterAcrossSlices = false
    var deblockingOverrideEnabled = false
    var deblockingDisabled = false
    var listsModificationPresent = false
    var sliceHeaderExtensionPresent = false
    var extensionPresent = false

    init(rbsp: [UInt8]) throws {
        var r = RBSPReader(rbsp)
        id = try r.ue()
        spsID = try r.ue()
        guard id < 64 else { throw BitstreamError("a PPS id is over 63") }
        dependentSliceSegments = try r.flag()
        outputFlagPresent = try r.flag()
        extraSliceHeaderBits = try r.bits(3)
        _ = try r.bit()  // sign_data_hiding_enabled_flag
        cabacInitPresent = try r.flag()
        defaultActiveReferences = try r.ue() + 1
        _ = try r.ue()  // num_ref_idx_l1_default_active_minus1
        initQPMinus26 = try r.se()
        _ = try r.bit()  // constrained_intra_pred_flag
        _ = try r.bit()  // transform_skip_enabled_flag
        if try r.flag() { _ = try r.ue() }  // cu_qp_delta_enabled_flag, diff_cu_qp_delta_depth
        _ = try r.se()  // pps_cb_qp_offset
        _ = try r.se()  // pps_cr_qp_offset
        sliceChromaQPOffsetsPresent = try r.flag()
        weightedPrediction = try r.flag()
        _ = try r.bit()  // weighted_bipred_flag
        transquantBypass = try r.flag()
        tiles = try r.flag()
        wavefronts = try r.flag()
        if tiles {
            let columns = try r.ue(), rows = try r.ue()
            guard columns < 64, rows < 64 else { throw BitstreamError("too many tiles") }
            if !(try r.flag()) {  // uniform_spacing_flag
                for _ in 0..<(columns + rows) { _ = try r.ue() }
            }
            _ = try r.bit()  // loop_filter_across_tiles_enabled_flag
        }
        loopFilterAcrossSlices = try r.flag()
        if try r.flag() {  // deblocking_filter_control_present_flag
            deblockingOverrideEnabled = try r.flag()
            deblockingDisabled = try r.flag()
            if !deblockingDisabled {
                _ = try r.se()  // pps_beta_offset_div2
                _ = try r.se()  // pps_tc_offset_div2
            }
        }
        if try r.flag() { try HEVCSequenceParameters.skipScalingListData(&r) }
        listsModificationPresent = try r.flag()
        _ = try r.ue()  // log2_parallel_merge_level_minus2
        sliceHeaderExtensionPresent = try r.flag()
        extensionPresent = try r.flag()
    }
}
