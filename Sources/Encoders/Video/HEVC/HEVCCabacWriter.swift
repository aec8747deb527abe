/// The arithmetic encoder of HEVC's CABAC (ITU-T H.265 9.3; the engine is H.264's, 9.3.4.2 there): what a skip
/// picture's slice data needs, context-coded decisions and the terminating bin, written after the slice header
/// into the same RBSP.
struct HEVCCabacWriter {
    /// A context variable (9.3.2.2): the probability state and the most probable symbol.
    struct Context: Equatable {
        var state: Int
        var mps: Int

        /// Initialised from its `initValue` at the slice's luma QP (9-6).
        init(initValue: Int, sliceQP: Int) {
            let slope = initValue >> 4, offset = initValue & 15
            let m = slope * 5 - 45, n = (offset << 3) - 16
            let pre = min(126, max(1, ((m * min(51, max(0, sliceQP))) >> 4) + n))
            mps = pre <= 63 ? 0 : 1
            state = mps == 1 ? pre - 64 : 63 - pre
        }
    }

    private(set) var writer: RBSPWriter
    private var low = 0
    private var range = 510
    private var firstBit = true
    private var outstanding = 0

    /// Continues `writer`, which must be at a byte boundary (after the slice header's `byte_alignment()`).
    init(continuing writer: RBSPWriter) {
        precondition(writer.position & 7 == 0, "CABAC data starts on a byte boundary")
        self.writer = writer
    }

    /// EncodeDecision (9.3.4.2 of H.264, Figure 9-7).
    mutating func encode(_ bin: Int, _ context: inout Context) {
        let lps = Self.rangeTabLPS[context.state][(range >> 6) & 3]
        range -= lps
        if bin == context.mps {
            context.state = min(context.state + 1, 62)
        } else {
            low += range
            range = lps
            if context.state == 0 { context.mps = 1 - context.mps }
            context.state = Self.transIdxLPS[context.state]
        }
        renormalize()
    }

    /// EncodeTerminate; a 1 also flushes the engine (EncodeFlush), whose last bit written is the RBSP's stop bit.
    mutating func terminate(_ bin: Int) {
        range -= 2
        if bin == 1 {
            low += range
            range = 2
            renormalize()
            put((low >> 9) & 1)
            let last = ((low >> 7) & 3) | 1
            writer.bit(last >> 1)
            writer.bit(last)
        } else {
            renormalize()
        }
    }

    private mutating func renormalize() {
        while range < 256 {
            if low < 256 {
                put(0)
            } else if low >= 512 {
                low -= 512
                put(1)
            } else {
                low -= 256
                outstanding += 1
            }
            range <<= 1
            low <<= 1
        }
    }

    private mutating func put(_ bit: Int) {
        if firstBit {
            firstBit = false
        } else {
            writer.bit(bit)
        }
        while outstanding > 0 {
            writer.bit(1 - bit)
            outstanding -= 1
        }
    }

    /// rangeTabLPS[pStateIdx][qRangeIdx] (H.265 Table 9-52).
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

    /// transIdxLps[pStateIdx] (H.265 Table 9-53); the MPS transition is one state up, to 62 at most.
    static let transIdxLPS: [Int] = [
        0, 0, 1, 2, 2, 4, 4, 5, 6, 7, 8, 9, 9, 11, 11, 12,
        13, 13, 15, 15, 16, 16, 18, 18, 19, 19, 21, 21, 22, 22, 23, 24,
        24, 25, 26, 26, 27, 27, 28, 29, 29, 30, 30, 30, 31, 32, 32, 33,
        33, 33, 34, 34, 35, 35, 35, 36, 36, 36, 37, 37, 37, 38, 38, 63,
    ]
}
