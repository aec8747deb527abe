/// A coded VP9 frame that shows the picture in one reference slot again: what libvpx makes of a static
/// picture, written by gifx (docs/repeats.md, "How (VP9)"). Every block predicts from LAST (the slot) with a
/// zero motion vector and has no residual, and the loop filter is off, so the frame decodes to the slot's
/// picture exactly, whatever the quantizer.
///
/// - Uncompressed header (VP9 §6.2): a shown non-key frame with `error_resilient_mode` 1, refreshing no slot
///   (`refresh_frame_flags` 0), all three references naming `slot` (sign bias 0, so no compound prediction),
///   the frame size taken from LAST (`found_ref`), render size the same, a fixed interpolation filter, loop
///   filter level 0, `base_q_idx` 60 with no deltas (not lossless), the fewest tile columns the width allows
///   and one tile row, and segmentation on: segment 0 has the features SEG_LVL_REF_FRAME = LAST and SEG_LVL_SKIP,
///   so a block's skip flag, reference and mode (ZEROMV) are implied, not coded (§6.4.11-§6.4.17); the map
///   is coded (`update_map`, tree probabilities 255, no temporal prediction).
/// - Compressed header (§6.3, bool-coded): `tx_mode` ONLY_4X4 and "no update" for every probability.
/// - Tiles (§6.4): each 64×64 superblock one block (partition NONE); at the right and bottom edges HORZ or
///   VERT where only half of it is inside, SPLIT (implied) where neither half is, down to 8×8. Each block
///   codes only its `segment_id` 0 (three zero bools at probability 255). The partition probabilities are
///   the defaults (§10.5), their contexts the decoder's, from the blocks written before (libvpx's
///   `read_partition`). About 0.23 bits a superblock: 35 bytes a frame at 800×600, mostly headers and the
///   bool coders' padding. (Coding skip, is_inter, the reference and the mode per block instead cost about a
///   byte a superblock, 140 bytes at 800×600: ZEROMV is improbable beside zero-motion neighbours, which
///   libvpx codes as NEARESTMV.)
///
/// **Why error resilient.** A non-resilient inter frame codes its symbols with the probabilities of the
/// saved frame context it names, which libvpx's frames have updated in ways only a full decode would know;
/// `error_resilient_mode` resets every context to the defaults first (§7.2 `setup_past_independence`), and
/// also keeps the next frame from predicting motion vectors from this one. It resets all four saved contexts,
/// the loop filter deltas and the segmentation state too, so the frames libvpx writes between the skip frames
/// must be error resilient themselves (libvpx's `error-resilient`, `VP9Codec.forRepeatPictures`): each
/// of those starts from the defaults and predicts no motion vector from the frame before it, so it decodes
/// the same after a skip frame as after its own predecessor (measured, `VP9SkipFrameTests`: without it,
/// FFmpeg and vpxdec decode libvpx's next frames wrong or reject them). The segmentation set here is reset the
/// same way by libvpx's next frame.
enum VP9SkipFrame {
    /// The frame showing `slot` again, for a picture of `width`×`height` in profile `profile`.
    static func make(width: Int, height: Int, slot: Int, profile: Int = 0) -> [UInt8] {
        precondition(width > 0 && height > 0 && (0..<8).contains(slot) && (0..<4).contains(profile))
        let geometry = Geometry(width: width, height: height)
        let compressed = compressedHeader()
        var frame = uncompressedHeader(slot: slot, profile: profile, geometry: geometry, compressedSize: compressed.count)
        frame += compressed
        var above = [UInt8](repeating: 0, count: geometry.sbCols * 8)
        let tiles = 1 << geometry.log2TileCols
        for tile in 0..<tiles {
            let data = tileData(geometry, columns: geometry.tileColumns(tile), above: &above)
            if tile < tiles - 1 {  // every tile but the last has its size first (4 bytes, big-endian)
                frame += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: data.count >> $0) }
            }
            frame += data
        }
        return frame
    }

    /// The frame's size in 8×8 blocks (`MiCols`, `MiRows`), 64×64 superblocks, and its tile columns.
    struct Geometry {
        var miCols: Int, miRows: Int, sbCols: Int
        var minLog2TileCols: Int, maxLog2TileCols: Int
        /// The fewest tile columns allowed (tiles at most 4096 pixels wide).
        var log2TileCols: Int { minLog2TileCols }

        init(width: Int, height: Int) {
            miCols = (width + 7) >> 3
            miRows = (height + 7) >> 3
            sbCols = (miCols + 7) >> 3
            var minLog2 = 0
            while (64 << minLog2) < sbCols { minLog2 += 1 }  // MAX_TILE_WIDTH_B64
            var maxLog2 = 1
            while (sbCols >> maxLog2) >= 4 { maxLog2 += 1 }  // MIN_TILE_WIDTH_B64
            minLog2TileCols = minLog2
            maxLog2TileCols = maxLog2 - 1
        }

        /// Tile column `index`'s 8×8 block columns (§6.4.2 `get_tile_offset`).
        func tileColumns(_ index: Int) -> Range<Int> {
            func offset(_ k: Int) -> Int { min(((k * sbCols) >> log2TileCols) << 3, miCols) }
            return offset(index)..<offset(index + 1)
        }
    }

    static func uncompressedHeader(slot: Int, profile: Int, geometry: Geometry, compressedSize: Int) -> [UInt8] {
        var w = RBSPWriter()
        w.bits(2, 2)  // frame_marker
        w.bit(profile & 1)  // profile_low_bit
        w.bit(profile >> 1)  // profile_high_bit
        if profile == 3 { w.bit(0) }  // reserved_zero
        w.bit(0)  // show_existing_frame
        w.bit(1)  // frame_type: NON_KEY_FRAME
        w.bit(1)  // show_frame
        w.bit(1)  // error_resilient_mode (so no reset_frame_context, refresh_frame_context or parallel mode bits)
        w.bits(0, 8)  // refresh_frame_flags: no slot
        for _ in 0..<3 {
            w.bits(slot, 3)  // ref_frame_idx: LAST, GOLDEN and ALTREF all the slot
            w.bit(0)  // ref_frame_sign_bias
        }
        w.bit(1)  // found_ref: the size of LAST
        w.bit(0)  // render_and_frame_size_different
        w.bit(0)  // allow_high_precision_mv
        w.bit(0)  // is_filter_switchable
        w.bits(1, 2)  // raw_interpolation_filter: EIGHTTAP (a zero motion vector filters nothing)
        w.bits(0, 2)  // frame_context_idx
        w.bits(0, 6)  // loop_filter_level
        w.bits(0, 3)  // loop_filter_sharpness
        w.bit(0)  // loop_filter_delta_enabled
        w.bits(60, 8)  // base_q_idx (not 0: lossless would need nothing else, but reads as lossless)
        w.bit(0)  // delta_coded (y_dc)
        w.bit(0)  // delta_coded (uv_dc)
        w.bit(0)  // delta_coded (uv_ac)
        w.bit(1)  // segmentation_enabled
        w.bit(1)  // segmentation_update_map
        for _ in 0..<7 { w.bit(0) }  // prob_coded 0: the tree probabilities are 255
        w.bit(0)  // segmentation_temporal_update
        w.bit(1)  // segmentation_update_data
        w.bit(0)  // segmentation_abs_or_delta_update
        for segment in 0..<8 {
            // features: ALT_Q (8 bits + sign), ALT_L (6 + sign), REF_FRAME (2 bits), SKIP (none)
            w.bit(0)
            w.bit(0)
            if segment == 0 {
                w.bit(1)
                w.bits(1, 2)  // LAST_FRAME
                w.bit(1)
            } else {
                w.bit(0)
                w.bit(0)
            }
        }
        // tile_info: increment_tile_cols_log2 0 (unless already at the most), tile_rows_log2 0
        if geometry.log2TileCols < geometry.maxLog2TileCols { w.bit(0) }
        w.bit(0)
        w.bits(compressedSize, 16)  // header_size_in_bytes
        return w.bytes  // trailing zero bits to the byte
    }

    /// The compressed header (§6.3): tx_mode ONLY_4X4 (two bits 0), no coefficient update for 4×4, and no
    /// update for the skip (3), inter mode (7×3), intra/inter (4), single reference (5×2), y mode (4×9),
    /// partition (16×3) and motion vector (3 + 2×22 + 2×9, no high precision) probabilities, each a 0 at
    /// probability 252. No interpolation filter probabilities (the filter is fixed) and no reference mode
    /// (compound prediction needs references of different sign bias).
    static func compressedHeader() -> [UInt8] {
        var e = VP9BoolEncoder()
        e.literal(0, 2)  // tx_mode: ONLY_4X4
        e.put(false, 128)  // update_probs for the 4×4 coefficients
        let updates = 3 + 7 * 3 + 4 + 5 * 2 + 4 * 9 + 16 * 3 + (3 + 2 * 22 + 2 * 9)
        for _ in 0..<updates { e.put(false, 252) }
        return e.finish()
    }

    // Default probabilities (§10.5) of the symbols written, indexed by context.
    static let partitionProbs: [[Int]] = [
        [199, 122, 141], [147, 63, 159], [148, 133, 118], [121, 104, 114],  // 8×8
        [174, 73, 87], [92, 41, 83], [82, 99, 50], [53, 39, 39],  // 16×16
        [177, 58, 59], [68, 26, 63], [52, 79, 25], [17, 14, 12],  // 32×32
        [222, 34, 30], [72, 16, 44], [58, 32, 12], [10, 7, 6],  // 64×64
    ]
    /// The partition context a block of `width`×`height` 8×8 blocks leaves above and to its left (libvpx's
    /// `partition_context_lookup`): bit k (1...3) set where the block is narrower (above) or shorter (left)
    /// than 8 << k pixels. A square block of 8 << k pixels reads bit k of its neighbours' (§9.3.1 for partition).
    static func partitionContext(width: Int, height: Int) -> (above: UInt8, left: UInt8) {
        func mark(_ size: Int) -> UInt8 { UInt8(truncatingIfNeeded: 15 << (size.trailingZeroBitCount + 1)) & 15 }
        return (mark(width), mark(height))
    }

    /// One tile's data: every superblock row of the frame across `columns`.
    static func tileData(_ g: Geometry, columns: Range<Int>, above: inout [UInt8]) -> [UInt8] {
        var e = VP9BoolEncoder()
        var left = [UInt8](repeating: 0, count: 8)

        /// A block's mode info: `segment_id` 0 (the tree's three left branches); skip, is_inter, the reference
        /// (LAST) and the mode (ZEROMV) come from segment 0's features.
        func block() {
            for _ in 0..<3 { e.put(false, 255) }
        }

        /// A square block of `size` 8×8 blocks (8, 4, 2, 1) at (`row`, `col`).
        func partition(_ row: Int, _ col: Int, size: Int) {
            guard row < g.miRows && col < g.miCols else { return }
            let half = size >> 1
            let hasRows = row + half < g.miRows, hasCols = col + half < g.miCols
            let bsl = size.trailingZeroBitCount
            let aboveBit = Int(above[col] >> UInt8(bsl)) & 1, leftBit = Int(left[row & 7] >> UInt8(bsl)) & 1
            let probs = partitionProbs[bsl * 4 + leftBit * 2 + aboveBit]
            let shape: (width: Int, height: Int)
            switch (hasRows, hasCols) {
            case (true, true):
                e.put(false, probs[0])  // PARTITION_NONE
                shape = (size, size)
            case (false, true):
                e.put(false, probs[1])  // PARTITION_HORZ: the top half; the bottom one is outside
                shape = (size, half)
            case (true, false):
                e.put(false, probs[2])  // PARTITION_VERT: the left half
                shape = (half, size)
            case (false, false):  // PARTITION_SPLIT, implied
                partition(row, col, size: half)
                partition(row, col + half, size: half)
                partition(row + half, col, size: half)
                partition(row + half, col + half, size: half)
                return
            }
            block()
            let context = partitionContext(width: shape.width, height: shape.height)
            for k in 0..<size {
                above[col + k] = context.above
                left[(row + k) & 7] = context.left
            }
        }

        for row in stride(from: 0, to: g.miRows, by: 8) {
            for k in left.indices { left[k] = 0 }
            for col in stride(from: columns.lowerBound, to: columns.upperBound, by: 8) {
                partition(row, col, size: 8)
            }
        }
        return e.finish()
    }
}
