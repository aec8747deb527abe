/// Writes repeats of the last picture into an x265 stream as skip pictures, and renumbers x265's own slices
/// around them (docs/repeats.md, "How (HEVC)").
///
/// A repeat picture is one TRAIL_R P slice whose coding units are all skipped (`cu_skip_flag` 1, one merge
/// candidate): with the previous picture at reference index 0, every merge candidate is motion 0 on that
/// picture (the first unit's spatial neighbours are unavailable, so its only candidate is the zero candidate;
/// every later unit's neighbours are such units), there is no residual, and deblocking, SAO and temporal
/// motion vector prediction are off, so it decodes to an exact copy of the picture before it (deblocking, where
/// the PPS has it on, changes nothing: every edge between two skipped units with the same motion on the same
/// picture has boundary strength 0). Its slice data is CABAC, written by `HEVCCabacWriter`.
///
/// A repeat names x265's own picture parameter set, the one of the picture before it, and writes its slice
/// header to that PPS's choices (weighted prediction: a table of no weights; `cabac_init_flag`, chroma QP
/// offsets, deblocking override, pictures' output flag: their neutral values). A PPS of its own, appended to
/// the extradata, decodes the same in FFmpeg and libde265, but Firefox keeps only the first PPS of an `hvcC`
/// (`HEVCChangeMonitor` rebuilds the extradata from the first VPS, SPS and PPS) and fails on every repeat.
/// x265 must write no wavefronts (`wpp=0`: no entry points to write) and no tiles.
///
/// Picture order: every picture of x265's (no B-frames) follows the one before in decoding and output order,
/// one POC apart from its IRAP picture on. The repeats take the POCs after the picture they repeat, and every
/// later slice of x265's has its `slice_pic_order_cnt_lsb` advanced by the repeats inserted since the last IDR
/// (a fixed-width field: the rewrite moves no later bit). A repeat's reference set is the pictures just before
/// it, as many as the DPB holds and as exist since the IRAP picture, only the nearest used: x265's next picture
/// names pictures by their distance, and finds them (its only used reference, with one reference, is the
/// nearest: the last repeat, whose samples are those it predicted from). x265 must run without temporal motion
/// vector prediction (the collocated picture would be a repeat) and, as for H.264, without B-frames and with
/// one reference, without wavefronts (`HEVCCodec.forRepeatPictures`); the splicer refuses a stream that
/// breaks these with an internal error, never a wrong picture.
final class HEVCRepeatSplicer {
    let sps: HEVCSequenceParameters
    private var pictureParameters: [Int: HEVCPictureParameters] = [:]
    /// The PPS of the last picture's slices: the repeats' too.
    private(set) var lastPPSID = 0
    /// Repeat pictures written since the last IDR: added to x265's POCs.
    private var inserted = 0
    /// The POC (as written) of the last picture, and the pictures since the last IRAP picture (it included).
    private var lastPOC = 0
    private var sinceIRAP = 0
    private var seenPicture = false

    /// Repeat pictures written, and their bytes (Annex B, start codes included).
    private(set) var repeatsWritten = 0
    private(set) var repeatBytes = 0

    /// NAL unit types (Table 7-1).
    static let trailR = 1, idrWithLeading = 19, idrNoLeading = 20, sps = 33, pps = 34

    /// Reads the SPS and PPSs from `extradata` (Annex B, as libx265 writes it), which the stream keeps as it is.
    init(extradata original: [UInt8]) throws {
        var sps: HEVCSequenceParameters?
        var pictureParameters: [Int: HEVCPictureParameters] = [:]
        try original.withUnsafeBufferPointer { bytes in
            for unit in annexBUnits(bytes) where unit.count > 2 {
                let type = Int(bytes[unit.lowerBound] >> 1) & 0x3F
                let rbsp = unescapeRBSP(bytes[(unit.lowerBound + 2)..<unit.upperBound])
                if type == Self.sps, sps == nil {
                    sps = try HEVCSequenceParameters(rbsp: rbsp)
                } else if type == Self.pps {
                    let pps = try HEVCPictureParameters(rbsp: rbsp)
                    pictureParameters[pps.id] = pps
                }
            }
        }
        guard let sps else { throw BitstreamError("the stream has no sequence parameter set") }
        guard !pictureParameters.isEmpty else { throw BitstreamError("the stream has no picture parameter set") }
        for pps in pictureParameters.values {
            guard !pps.wavefronts, !pps.tiles else {
                throw BitstreamError("repeat pictures need x265 without wavefronts (wpp=0) or tiles")
            }
            guard !pps.extensionPresent else { throw BitstreamError("repeat pictures need a PPS without extensions") }
        }
        guard !sps.separateColourPlane else { throw BitstreamError("repeat pictures need one colour plane") }
        guard !sps.temporalMVP else {
            throw BitstreamError("repeat pictures need temporal motion vector prediction off (sps_temporal_mvp_enabled_flag)")
        }
        guard sps.maxReferencePictures >= 1 else { throw BitstreamError("the DPB holds no reference picture") }
        self.sps = sps
        self.pictureParameters = pictureParameters
    }

    /// One access unit of x265's (Annex B) with its slices' `slice_pic_order_cnt_lsb` advanced by the repeats
    /// inserted since the last IDR; `nil` when nothing changes.
    func rewrite(_ bytes: UnsafeBufferPointer<UInt8>) throws -> [UInt8]? {
        try replacingNALUnits(in: bytes, headerLength: 2) { unit in
            guard unit.count > 2 else { return nil }
            let type = Int(bytes[unit.lowerBound] >> 1) & 0x3F
            guard type < 32 else {
                if type == Self.sps || type == Self.pps || type == 32 {
                    throw BitstreamError("parameter sets inside the stream (repeat-headers) are not supported")
                }
                return nil
            }
            guard type <= 21 else { throw BitstreamError("a reserved VCL NAL unit type \(type)") }
            guard bytes[unit.lowerBound + 1] >> 3 == 0, bytes[unit.lowerBound + 1] & 7 == 1 else {
                throw BitstreamError("repeat pictures need one layer and temporal id 0")
            }
            var rbsp = unescapeRBSP(bytes[(unit.lowerBound + 2)..<unit.upperBound])
            let slice = try HEVCSliceHeaderStart(rbsp: rbsp, nalType: type, sps: sps, pictureParameters: pictureParameters)
            let isIDR = type == Self.idrWithLeading || type == Self.idrNoLeading
            if slice.firstSliceInPicture {
                if isIDR { inserted = 0 }
                if type >= 16 { sinceIRAP = 0 }
                guard (type >= 16 && type <= 21) || type == Self.trailR else {
                    throw BitstreamError("repeat pictures need trailing pictures, not NAL unit type \(type) (B-frames?)")
                }
            }
            guard let position = slice.pocPosition else {
                // An IDR: POC 0.
                if slice.firstSliceInPicture {
                    notePicture(poc: 0)
                    lastPPSID = slice.ppsID
                }
                return nil
            }
            let lsb = sps.log2MaxPocLsb
            let poc = (slice.pocLsb + inserted) & ((1 << lsb) - 1)
            if slice.firstSliceInPicture {
                if let set = slice.referenceSet, slice.predicts {
                    // Reference index 0 (the only one) is the nearest used picture before; every picture the set
                    // keeps is one the repeats before it keep too.
                    guard set.positive.isEmpty, slice.activeReferences == 1, !slice.listModification,
                          set.negative.first(where: \.used)?.delta == -1,
                          set.negative.allSatisfy({ $0.delta >= -sps.maxReferencePictures })
                    else {
                        throw BitstreamError("repeat pictures need x265's pictures to predict from the picture before only")
                    }
                }
                notePicture(poc: lastPOCFollowing(lsb: poc))
                lastPPSID = slice.ppsID
            }
            guard poc != slice.pocLsb else { return nil }
            overwriteBits(&rbsp, at: position, width: lsb, with: poc)
            return rbsp
        }
    }

    /// The full POC of a picture whose written lsb is `lsb`: the one nearest after the last picture's.
    private func lastPOCFollowing(lsb: Int) -> Int {
        let period = 1 << sps.log2MaxPocLsb
        let lastLsb = lastPOC & (period - 1)
        var poc = lastPOC - lastLsb + lsb
        if poc <= lastPOC - period / 2 { poc += period } else if poc > lastPOC + period / 2 { poc -= period }
        return poc
    }

    private func notePicture(poc: Int) {
        lastPOC = poc
        sinceIRAP += 1
        seenPicture = true
    }

    /// A repeat of the last picture: one access unit (Annex B, one TRAIL_R P slice of skipped coding units).
    func repeatPicture() throws -> [UInt8] {
        guard seenPicture, let pps = pictureParameters[lastPPSID] else { throw BitstreamError("a repeat must follow a picture") }
        let poc = lastPOC + 1
        var w = RBSPWriter()
        w.flag(true)  // first_slice_segment_in_pic_flag
        w.ue(pps.id)  // slice_pic_parameter_set_id
        w.bits(0, pps.extraSliceHeaderBits)  // slice_reserved_flag
        w.ue(1)  // slice_type: P
        if pps.outputFlagPresent { w.flag(true) }  // pic_output_flag
        w.bits(poc & ((1 << sps.log2MaxPocLsb) - 1), sps.log2MaxPocLsb)
        // The pictures just before, nearest first: the nearest used (reference index 0), the others kept.
        w.flag(false)  // short_term_ref_pic_set_sps_flag
        if !sps.referenceSets.isEmpty { w.flag(false) }  // inter_ref_pic_set_prediction_flag
        let kept = min(sps.maxReferencePictures, sinceIRAP)
        w.ue(kept)  // num_negative_pics
        w.ue(0)  // num_positive_pics
        for k in 0..<kept {
            w.ue(0)  // delta_poc_s0_minus1: one apart
            w.flag(k == 0)  // used_by_curr_pic_s0_flag
        }
        if sps.longTermReferences {
            if sps.longTermReferencesInSPS > 0 { w.ue(0) }  // num_long_term_sps
            w.ue(0)  // num_long_term_pics
        }
        // sps_temporal_mvp_enabled_flag is 0 (checked): no slice_temporal_mvp_enabled_flag.
        if sps.sampleAdaptiveOffset {
            w.flag(false)  // slice_sao_luma_flag
            if sps.chromaFormat != 0 { w.flag(false) }  // slice_sao_chroma_flag
        }
        // num_ref_idx_active_override_flag, and one active reference where the PPS's default differs
        w.flag(pps.defaultActiveReferences != 1)
        if pps.defaultActiveReferences != 1 { w.ue(0) }
        // one picture used: no ref_pic_lists_modification
        if pps.cabacInitPresent { w.flag(false) }  // cabac_init_flag: initType 1
        if pps.weightedPrediction {
            // pred_weight_table(): no weights (the reference's POC differs from this picture's, so the flags are coded)
            w.ue(0)  // luma_log2_weight_denom
            if sps.chromaFormat != 0 { w.se(0) }  // delta_chroma_log2_weight_denom
            w.flag(false)  // luma_weight_l0_flag[0]
            if sps.chromaFormat != 0 { w.flag(false) }  // chroma_weight_l0_flag[0]
        }
        w.ue(4)  // five_minus_max_num_merge_cand: one merge candidate, so no merge_idx
        w.se(-pps.initQPMinus26)  // slice_qp_delta: SliceQpY 26, what the contexts are initialised at
        if pps.sliceChromaQPOffsetsPresent {
            w.se(0)  // slice_cb_qp_offset
            w.se(0)  // slice_cr_qp_offset
        }
        if pps.deblockingOverrideEnabled { w.flag(false) }  // deblocking_filter_override_flag
        // SAO is off in this slice: the flag is coded where deblocking is on
        if pps.loopFilterAcrossSlices && !pps.deblockingDisabled { w.flag(true) }  // slice_loop_filter_across_slices_enabled_flag
        // no tiles or wavefronts (checked): no entry points
        if pps.sliceHeaderExtensionPresent { w.ue(0) }  // slice_segment_header_extension_length
        w.bit(1)  // byte_alignment(): alignment_bit_equal_to_one
        while w.position & 7 != 0 { w.bit(0) }
        let data = Self.skipSliceData(sps: sps, transquantBypass: pps.transquantBypass, header: w)
        let unit: [UInt8] = [0, 0, 0, 1, UInt8(Self.trailR << 1), 1] + escapeRBSP(data.bytes)
        inserted += 1
        lastPOC = poc
        sinceIRAP += 1
        repeatsWritten += 1
        repeatBytes += unit.count
        return unit
    }

    /// slice_segment_data() of a picture whose coding units are all skipped (7.3.8): each coding tree block in
    /// raster order split only where it crosses the picture's edge (the split inferred there), one skipped
    /// coding unit per leaf, then `end_of_slice_segment_flag`.
    static func skipSliceData(sps: HEVCSequenceParameters, transquantBypass: Bool, header: RBSPWriter) -> RBSPWriter {
        let sliceQP = 26
        // initType 1 (a P slice without cabac_init_flag): Tables 9-11 and 9-12 (9-8 for the bypass flag).
        var split = [107, 139, 126].map { HEVCCabacWriter.Context(initValue: $0, sliceQP: sliceQP) }
        var skip = [197, 185, 201].map { HEVCCabacWriter.Context(initValue: $0, sliceQP: sliceQP) }
        var bypass = HEVCCabacWriter.Context(initValue: 154, sliceQP: sliceQP)
        let minCb = 1 << sps.log2MinCb
        let columns = sps.width / minCb, rows = sps.height / minCb
        // The coding quadtree depth of each smallest coding block decoded so far (every decoded block is skipped).
        var depth = [Int](repeating: 0, count: columns * rows)
        var cabac = HEVCCabacWriter(continuing: header)

        func codingQuadtree(x: Int, y: Int, log2Size: Int, level: Int) {
            let size = 1 << log2Size
            let fits = x + size <= sps.width && y + size <= sps.height
            if fits && log2Size > sps.log2MinCb {
                // split_cu_flag 0; ctxInc from the neighbours' depths (9.3.4.2.2).
                let left = x > 0 && depth[(y >> sps.log2MinCb) * columns + ((x - 1) >> sps.log2MinCb)] > level ? 1 : 0
                let above = y > 0 && depth[((y - 1) >> sps.log2MinCb) * columns + (x >> sps.log2MinCb)] > level ? 1 : 0
                cabac.encode(0, &split[left + above])
            } else if !fits {
                // Crossing the edge: split inferred (the block is above the smallest size, the picture's
                // sides being multiples of it).
                let half = size >> 1
                for (dx, dy) in [(0, 0), (half, 0), (0, half), (half, half)] where x + dx < sps.width && y + dy < sps.height {
                    codingQuadtree(x: x + dx, y: y + dy, log2Size: log2Size - 1, level: level + 1)
                }
                return
            }
            // coding_unit: cu_transquant_bypass_flag 0 where the PPS has it (no residual either way), then
            // cu_skip_flag 1; its ctxInc counts the available neighbours, all skipped.
            if transquantBypass { cabac.encode(0, &bypass) }
            cabac.encode(1, &skip[(x > 0 ? 1 : 0) + (y > 0 ? 1 : 0)])
            // prediction_unit: merge_idx is absent with one merge candidate.
            for row in (y >> sps.log2MinCb)..<((y + size) >> sps.log2MinCb) {
                for column in (x >> sps.log2MinCb)..<((x + size) >> sps.log2MinCb) { depth[row * columns + column] = level }
            }
        }

        let ctbs = sps.widthInCtbs * sps.heightInCtbs
        for address in 0..<ctbs {
            let x = (address % sps.widthInCtbs) << sps.log2Ctb, y = (address / sps.widthInCtbs) << sps.log2Ctb
            codingQuadtree(x: x, y: y, log2Size: sps.log2Ctb, level: 0)
            cabac.terminate(address == ctbs - 1 ? 1 : 0)  // end_of_slice_segment_flag
        }
        var data = cabac.writer
        while data.position & 7 != 0 { data.bit(0) }  // rbsp_slice_segment_trailing_bits: the flush wrote the stop bit
        return data
    }
}

/// An HEVC slice segment header (7.3.6.1) as far as its reference list, and where `slice_pic_order_cnt_lsb` sits.
struct HEVCSliceHeaderStart {
    var firstSliceInPicture: Bool
    var ppsID: Int
    var dependent = false
    /// Absent in an IDR picture's slices and in dependent slice segments.
    var pocLsb = 0
    var pocPosition: Int?
    /// The slice's short-term reference picture set (its own, or the SPS's it names); nil where absent.
    var referenceSet: HEVCReferenceSet?
    /// A P or B slice, its active references in list 0, and whether it may reorder the list.
    var predicts = false
    var activeReferences = 0
    var listModification = false

    init(rbsp: [UInt8], nalType: Int, sps: HEVCSequenceParameters, pictureParameters: [Int: HEVCPictureParameters]) throws {
        var r = RBSPReader(rbsp)
        firstSliceInPicture = try r.flag()
        if nalType >= 16 && nalType <= 23 { _ = try r.bit() }  // no_output_of_prior_pics_flag
        ppsID = try r.ue()
        guard let pps = pictureParameters[ppsID] else { throw BitstreamError("a slice names PPS \(ppsID), which the stream lacks") }
        guard pps.spsID == sps.id else { throw BitstreamError("a slice's PPS names another SPS") }
        if !firstSliceInPicture {
            if pps.dependentSliceSegments { dependent = try r.flag() }
            let ctbs = sps.widthInCtbs * sps.heightInCtbs
            _ = try r.bits(Int.bitWidth - (ctbs - 1).leadingZeroBitCount)  // slice_segment_address: Ceil(Log2(ctbs)) bits
        }
        guard !dependent else { return }
        _ = try r.bits(pps.extraSliceHeaderBits)
        let sliceType = try r.ue()  // 0 B, 1 P, 2 I
        predicts = sliceType < 2
        if pps.outputFlagPresent { _ = try r.bit() }
        if sps.separateColourPlane { _ = try r.bits(2) }
        if nalType != HEVCRepeatSplicer.idrWithLeading && nalType != HEVCRepeatSplicer.idrNoLeading {
            pocPosition = r.position
            pocLsb = try r.bits(sps.log2MaxPocLsb)
            let set: HEVCReferenceSet
            if try r.flag() {  // short_term_ref_pic_set_sps_flag
                let count = sps.referenceSets.count
                guard count > 0 else { throw BitstreamError("a slice names an SPS reference picture set, and there is none") }
                let index = count > 1 ? try r.bits(Int.bitWidth - (count - 1).leadingZeroBitCount) : 0
                guard index < count else { throw BitstreamError("a slice names reference picture set \(index) of \(count)") }
                set = sps.referenceSets[index]
            } else {
                set = try HEVCReferenceSet.read(&r, index: sps.referenceSets.count, sets: sps.referenceSets, inSliceHeader: true)
            }
            referenceSet = set
            if sps.longTermReferences {
                let fromSPS = sps.longTermReferencesInSPS > 0 ? try r.ue() : 0
                guard fromSPS == 0, try r.ue() == 0 else {
                    throw BitstreamError("repeat pictures need x265's pictures without long-term references")
                }
            }
            // sps_temporal_mvp_enabled_flag is 0 (the splicer refuses an SPS with it).
        }
        guard predicts else { return }
        if sps.sampleAdaptiveOffset {
            _ = try r.bit()  // slice_sao_luma_flag
            if sps.chromaFormat != 0 { _ = try r.bit() }  // slice_sao_chroma_flag
        }
        activeReferences = try r.flag() ? try r.ue() + 1 : pps.defaultActiveReferences
        let usedPictures = (referenceSet?.negative ?? []).filter(\.used).count + (referenceSet?.positive ?? []).filter(\.used).count
        listModification = pps.listsModificationPresent && usedPictures > 1
    }
}
