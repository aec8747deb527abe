/// VP9's boolean (arithmetic) encoder: the inverse of the spec's decoder (VP9 §9.2, `init_bool`, `read_bool`,
/// `exit_bool`), used for the compressed header and the tile of a coded skip frame (`VP9SkipFrame`).
///
/// A bool with probability `p` (of a 0, out of 256) splits the current interval `[low, low + range)`,
/// `range` in 128...255 on an 8-bit scale, at `split = 1 + (((range - 1) * p) >> 8)`: a 0 keeps the lower part
/// (`range = split`), a 1 the upper (`low += split`, `range -= split`). The range is then doubled back into
/// 128...255, each doubling one more bit of `low` decided but for a carry; whole bytes above the 8-bit window
/// are written out, and a carry out of the window adds 1 to the bytes written (0xFF bytes becoming 0x00).
/// The decoder reads the first byte as its value, so the stream is `low`'s bits, most significant first.
///
/// Framing, as the decoder expects it: the first bool is a marker 0 at probability 128 (`init_bool` requires
/// it); at the end, the bits of `low` not yet written, then zero bits to the byte's end (`finish`). A last byte
/// that looks like a superframe index marker (`0b110xxxxx`) gets a zero byte after it, as libvpx does, so that
/// no packet ends in one.
struct VP9BoolEncoder {
    /// The bytes written so far (not yet final: a carry may still add to them).
    private(set) var bytes: [UInt8] = []
    /// The interval's base: its `pending + 8` low bits, the top `pending` of them not yet written as a byte.
    private var low: UInt64 = 0
    private var range: UInt32 = 255
    private var pending = 0

    init() {
        put(false, 128)  // the marker bit
    }

    /// Writes `bit` with probability `probability` (1...255) of a 0.
    mutating func put(_ bit: Bool, _ probability: Int) {
        precondition(probability > 0 && probability < 256, "VP9 bool probability \(probability)")
        let split = 1 + (((range - 1) * UInt32(probability)) >> 8)
        if bit {
            low += UInt64(split)
            range -= split
        } else {
            range = split
        }
        let shift = range.leadingZeroBitCount - 24  // doublings back into 128...255
        range <<= UInt32(shift)
        low <<= UInt64(shift)
        pending += shift
        if low >> UInt64(pending + 8) != 0 {  // a carry out of the bits kept: into the bytes written
            low &= (1 << UInt64(pending + 8)) - 1
            var k = bytes.count - 1
            while bytes[k] == 0xFF {
                bytes[k] = 0
                k -= 1
            }
            bytes[k] += 1
        }
        while pending >= 8 {
            bytes.append(UInt8(truncatingIfNeeded: low >> UInt64(pending)))
            low &= (1 << UInt64(pending)) - 1
            pending -= 8
        }
    }

    /// `L(n)`-style literal: `count` bits of `value`, most significant first, each at probability 128.
    mutating func literal(_ value: Int, _ count: Int) {
        for shift in stride(from: count - 1, through: 0, by: -1) { put((value >> shift) & 1 == 1, 128) }
    }

    /// The finished stream: the `pending + 8` bits of `low` not yet written, zero bits to the byte's end, and a
    /// zero byte after a last byte that reads as a superframe marker. Decoding the last symbol, the decoder has
    /// read 8 bits and one more a doubling: every byte written and exactly those bits of `low`. So it never reads
    /// past the data (libvpx fails a tile or compressed header whose reader did: `vpx_reader_has_error`), the
    /// bits it does not read are zero (`exit_bool`'s padding), and its value is `low`, inside the last symbol's
    /// interval. libvpx's own encoder writes 32 zero bits instead (`vpx_stop_encode`): a skip frame with them
    /// was 4 bytes longer (two coders; 24 → 20 bytes at 100×100, issue 56).
    mutating func finish() -> [UInt8] {
        let bits = pending + 8
        let padded = (bits + 7) / 8 * 8
        let value = low << UInt64(padded - bits)
        for shift in stride(from: padded - 8, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
        pending = 0
        low = 0
        if let last = bytes.last, last & 0xE0 == 0xC0 { bytes.append(0) }
        return bytes
    }
}
