/// Bit-level reading and writing of H.264 raw byte sequence payloads (RBSP, ITU-T H.264 7.2 and 7.3), and
/// the emulation prevention that turns an RBSP into a NAL unit's payload and back (7.4.1): what the repeat
/// splicer (`H264RepeatSplicer`) needs to parse parameter sets and slice headers and write its own.

/// The NAL unit payload of `rbsp`: an emulation_prevention_three_byte (0x03) after every two zero bytes that
/// are followed by a byte of 0x00...0x03, and after a final zero byte (an RBSP ending in a cabac_zero_word).
func escapeRBSP(_ rbsp: some Collection<UInt8>) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(rbsp.count + rbsp.count / 64 + 1)
    var zeros = 0
    for byte in rbsp {
        if zeros >= 2 && byte <= 3 {
            out.append(3)
            zeros = 0
        }
        out.append(byte)
        zeros = byte == 0 ? zeros + 1 : 0
    }
    if out.last == 0 { out.append(3) }
    return out
}

/// The RBSP of a NAL unit payload: every 0x03 that follows two zero bytes removed (7.3.1).
func unescapeRBSP(_ payload: some Collection<UInt8>) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(payload.count)
    var zeros = 0
    for byte in payload {
        if zeros >= 2 && byte == 3 {
            zeros = 0
            continue
        }
        out.append(byte)
        zeros = byte == 0 ? zeros + 1 : 0
    }
    return out
}

/// Writes `value`'s low `width` bits at bit `position` of `rbsp`, most significant first: a fixed-width field
/// rewritten in place (H.264's `frame_num`, HEVC's `slice_pic_order_cnt_lsb`), moving no other bit.
func overwriteBits(_ rbsp: inout [UInt8], at position: Int, width: Int, with value: Int) {
    for k in 0..<width {
        let bit = (value >> (width - 1 - k)) & 1
        let p = position + k
        let mask = UInt8(0x80) >> UInt8(p & 7)
        if bit == 1 { rbsp[p >> 3] |= mask } else { rbsp[p >> 3] &= ~mask }
    }
}

/// Why a bitstream could not be read: cut short, or a value the splicer does not handle.
struct BitstreamError: Error, CustomStringConvertible, Equatable {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Reads an RBSP most significant bit first: fixed-width fields `u(n)`, Exp-Golomb `ue(v)` and `se(v)`.
struct RBSPReader {
    let bytes: [UInt8]
    /// Bits read so far.
    private(set) var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var bitsLeft: Int { bytes.count * 8 - position }

    mutating func bit() throws -> Int {
        guard position < bytes.count * 8 else { throw BitstreamError("the RBSP ends early") }
        let value = Int(bytes[position >> 3] >> (7 - UInt8(position & 7))) & 1
        position += 1
        return value
    }

    /// `u(n)`, n at most 32.
    mutating func bits(_ count: Int) throws -> Int {
        var value = 0
        for _ in 0..<count { value = value << 1 | (try bit()) }
        return value
    }

    mutating func flag() throws -> Bool { try bit() == 1 }

    /// `ue(v)` (9.1): leading zeros, a one, then as many bits; at most 31 leading zeros.
    mutating func ue() throws -> Int {
        var zeros = 0
        while try bit() == 0 {
            zeros += 1
            if zeros > 31 { throw BitstreamError("an Exp-Golomb code is longer than 32 bits") }
        }
        return (1 << zeros) - 1 + (try bits(zeros))
    }

    /// `se(v)` (9.1.1): 1 → 1, 2 → −1, 3 → 2, ...
    mutating func se() throws -> Int {
        let k = try ue()
        return k & 1 == 1 ? (k + 1) / 2 : -(k / 2)
    }
}

/// Writes an RBSP most significant bit first.
struct RBSPWriter {
    private(set) var bytes: [UInt8] = []
    /// Bits written so far.
    private(set) var position = 0

    mutating func bit(_ value: Int) {
        if position & 7 == 0 { bytes.append(0) }
        if value & 1 == 1 { bytes[bytes.count - 1] |= 0x80 >> UInt8(position & 7) }
        position += 1
    }

    /// `u(n)`: the low `count` bits of `value`.
    mutating func bits(_ value: Int, _ count: Int) {
        for shift in stride(from: count - 1, through: 0, by: -1) { bit(value >> shift) }
    }

    mutating func flag(_ value: Bool) { bit(value ? 1 : 0) }

    /// `ue(v)` of a value ≥ 0.
    mutating func ue(_ value: Int) {
        precondition(value >= 0 && value < Int(UInt32.max), "ue(v) of \(value)")
        let code = value + 1
        let length = Int.bitWidth - code.leadingZeroBitCount
        bits(0, length - 1)
        bits(code, length)
    }

    /// `se(v)`.
    mutating func se(_ value: Int) { ue(value > 0 ? 2 * value - 1 : -2 * value) }

    /// The bits `range` of `source` (positions counted from its first byte's most significant bit), as they are.
    mutating func copyBits(from source: [UInt8], _ range: Range<Int>) {
        var position = range.lowerBound
        while position < range.upperBound && position & 7 != 0 {
            bit(Int(source[position >> 3] >> (7 - UInt8(position & 7))))
            position += 1
        }
        if self.position & 7 == 0 {  // both aligned: whole bytes
            while position + 8 <= range.upperBound {
                bytes.append(source[position >> 3])
                self.position += 8
                position += 8
            }
        }
        while position < range.upperBound {
            bit(Int(source[position >> 3] >> (7 - UInt8(position & 7))))
            position += 1
        }
    }

    /// `rbsp_trailing_bits()`: the stop bit and zeros up to the byte boundary.
    mutating func trailingBits() {
        bit(1)
        while position & 7 != 0 { bit(0) }
    }
}

/// The NAL units of an Annex B byte stream (start codes `00 00 01` or `00 00 00 01`): the byte range of each
/// unit's header and payload, without its start code and trailing zero bytes.
func annexBUnits(_ bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
    var starts: [(code: Int, payload: Int)] = []
    var i = 0
    let n = bytes.count
    while i + 2 < n {
        if bytes[i + 2] > 1 {
            i += 3
        } else if bytes[i] == 0 && bytes[i + 1] == 0 && bytes[i + 2] == 1 {
            starts.append((i, i + 3))
            i += 3
        } else {
            i += 1
        }
    }
    var units: [Range<Int>] = []
    for (k, start) in starts.enumerated() {
        var end = k + 1 < starts.count ? starts[k + 1].code : n
        while end > start.payload && bytes[end - 1] == 0 { end -= 1 }
        if end > start.payload { units.append(start.payload..<end) }
    }
    return units
}
