import GifFixtures
import Testing

@testable import GifxEncoders

/// The bit reader and writer of the repeat splicer, against the code tables and the emulation prevention rule of
/// ITU-T H.264 (Tables 9-2 and 9-3, 7.4.1): expected bit strings are the standard's, written out by hand.
@Suite struct RBSPBitsTests {
    /// Table 9-2 (ue(v)) and Table 9-3 (se(v) from codeNum): value → bit string.
    static let ueCodes: [(Int, String)] = [
        (0, "1"), (1, "010"), (2, "011"), (3, "00100"), (4, "00101"), (5, "00110"), (6, "00111"), (7, "0001000"),
        (8, "0001001"), (14, "0001111"), (15, "000010000"), (184, "000000010111001"),
    ]
    static let seCodes: [(Int, String)] = [(0, "1"), (1, "010"), (-1, "011"), (2, "00100"), (-2, "00101"), (3, "00110")]

    /// The bits of `bytes`, the first `count` of them, as a string of 0 and 1.
    static func bitString(_ bytes: [UInt8], count: Int) -> String {
        String((0..<count).map { bytes[$0 / 8] >> (7 - UInt8($0 % 8)) & 1 == 1 ? "1" : "0" })
    }

    /// Bytes holding `bits` (a string of 0 and 1), padded with zeros.
    static func bytes(_ bits: String) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: (bits.count + 7) / 8 + 1)
        for (i, c) in bits.enumerated() where c == "1" { out[i / 8] |= 0x80 >> UInt8(i % 8) }
        return out
    }

    @Test("ue(v) and se(v) are written and read as Tables 9-2 and 9-3 give them")
    func expGolomb() throws {
        for (value, code) in Self.ueCodes {
            var w = RBSPWriter()
            w.ue(value)
            #expect(w.position == code.count, "ue(\(value))")
            #expect(Self.bitString(w.bytes, count: w.position) == code, "ue(\(value))")
            var r = RBSPReader(Self.bytes(code))
            #expect(try r.ue() == value)
            #expect(r.position == code.count)
        }
        for (value, code) in Self.seCodes {
            var w = RBSPWriter()
            w.se(value)
            #expect(Self.bitString(w.bytes, count: w.position) == code, "se(\(value))")
            var r = RBSPReader(Self.bytes(code))
            #expect(try r.se() == value)
        }
    }

    @Test("fields of mixed kinds round-trip, and rbsp_trailing_bits aligns with a stop bit")
    func mixedRoundTrip() throws {
        var rng = SplitMix64(seed: 34)
        var fields: [(kind: Int, value: Int, width: Int)] = []
        var w = RBSPWriter()
        for _ in 0..<500 {
            switch Int.random(in: 0..<3, using: &rng) {
            case 0:
                let width = Int.random(in: 1...16, using: &rng)
                let value = Int.random(in: 0..<(1 << width), using: &rng)
                w.bits(value, width)
                fields.append((0, value, width))
            case 1:
                let value = Int.random(in: 0...70_000, using: &rng)
                w.ue(value)
                fields.append((1, value, 0))
            default:
                let value = Int.random(in: -3000...3000, using: &rng)
                w.se(value)
                fields.append((2, value, 0))
            }
        }
        let end = w.position
        w.trailingBits()
        #expect(w.position % 8 == 0)
        #expect(Self.bitString(w.bytes, count: w.position).dropFirst(end) == "1" + String(repeating: "0", count: w.position - end - 1))
        var r = RBSPReader(w.bytes)
        for field in fields {
            switch field.kind {
            case 0: #expect(try r.bits(field.width) == field.value)
            case 1: #expect(try r.ue() == field.value)
            default: #expect(try r.se() == field.value)
            }
        }
        #expect(r.position == end)
        #expect(throws: BitstreamError.self) { var short = RBSPReader([0x00]); _ = try short.ue() }
    }

    @Test("emulation prevention: a 0x03 after two zeros before 0x00-0x03, and after a final zero (7.4.1)")
    func escapeVectors() {
        #expect(escapeRBSP([0, 0, 0]) == [0, 0, 3, 0, 3])
        #expect(escapeRBSP([0, 0, 1]) == [0, 0, 3, 1])
        #expect(escapeRBSP([0, 0, 2, 7]) == [0, 0, 3, 2, 7])
        #expect(escapeRBSP([0, 0, 3, 7]) == [0, 0, 3, 3, 7])
        #expect(escapeRBSP([0, 0, 4]) == [0, 0, 4])
        #expect(escapeRBSP([5, 0, 0, 0, 0, 1]) == [5, 0, 0, 3, 0, 0, 3, 1])
        #expect(escapeRBSP([0, 1, 0, 1]) == [0, 1, 0, 1])
        // an RBSP ending in a cabac_zero_word (0x0000) gets a final 0x03
        #expect(escapeRBSP([9, 0x80, 0, 0]) == [9, 0x80, 0, 0, 3])
        #expect(unescapeRBSP([0, 0, 3, 1, 0, 0, 3, 0, 0, 3]) == [0, 0, 1, 0, 0, 0, 0])
    }

    @Test("random payloads: escaping leaves no start code or 00 00 0x, and unescaping restores the RBSP")
    func escapeRoundTrip() {
        var rng = SplitMix64(seed: 7)
        for _ in 0..<400 {
            let length = Int.random(in: 1...300, using: &rng)
            // zero-heavy, so runs of zeros are common; an RBSP ends in its stop bit (a non-zero byte)
            var rbsp = (0..<length).map { _ in Int.random(in: 0..<4, using: &rng) == 0 ? UInt8.random(in: 0...4, using: &rng) : 0 }
            rbsp.append(UInt8.random(in: 1...255, using: &rng))
            let payload = escapeRBSP(rbsp)
            // 7.4.1: no 00 00 00, 00 00 01 or 00 00 02; 00 00 03 only before a byte of 0x00-0x03 (or last)
            for i in 0..<max(0, payload.count - 2) where payload[i] == 0 && payload[i + 1] == 0 {
                #expect(payload[i + 2] >= 3, "00 00 \(payload[i + 2]) at \(i)")
                if payload[i + 2] == 3 && i + 3 < payload.count { #expect(payload[i + 3] <= 3) }
            }
            #expect(unescapeRBSP(payload) == rbsp)
        }
    }

    @Test("Annex B units: 3- and 4-byte start codes, trailing zero bytes dropped")
    func annexB() {
        let stream: [UInt8] = [0, 0, 0, 1, 0x67, 1, 2, 0, 0, 1, 0x68, 9, 0, 0, 0, 0, 1, 0x65, 0, 0, 3, 1]
        let units = stream.withUnsafeBufferPointer { annexBUnits($0) }
        #expect(units == [4..<7, 10..<12, 17..<22])
    }
}
