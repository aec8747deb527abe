// The pixel digest every verification compares by (video frames, WebP frames, sheet cells, posters, the
// reference's canvases): one hash of the visible pixels, so equal frames compare equal however they were
// stored.
package enum FrameDigest {
    /// A digest of an RGBA image with fully transparent pixels counted as one value (their colour is not shown).
    package static func digest(_ buffer: [UInt8], width: Int, height: Int) -> Int {
        buffer.withUnsafeBufferPointer { digest($0.baseAddress!, stride: width, width: width, height: height) }
    }

    /// The digest of the `width` × `height` region of an RGBA image whose rows are `stride` pixels apart: a 64-bit
    /// multiply-xorshift hash over the pixels (fully transparent ones as 0), four independent lanes so the
    /// multiplications overlap. Not a cryptographic hash: it tells a conversion's own frames apart, it does not
    /// resist a forger.
    package static func digest(_ pixels: UnsafePointer<UInt8>, stride: Int, width: Int, height: Int) -> Int {
        var l0: UInt64 = 0x9E37_79B9_7F4A_7C15, l1: UInt64 = 0xC2B2_AE3D_27D4_EB4F
        var l2: UInt64 = 0x1656_67B1_9E37_79F9, l3: UInt64 = 0x27D4_EB2F_1656_67C5
        @inline(__always) func visible(_ p: UInt32) -> UInt64 { p >> 24 == 0 ? 0 : UInt64(p) }
        @inline(__always) func mix(_ h: inout UInt64, _ v: UInt64, _ k: UInt64) {
            h = (h ^ v) &* k
            h ^= h >> 29
        }
        UnsafeRawPointer(pixels).withMemoryRebound(to: UInt32.self, capacity: max(stride, width) * height) { words in
            for y in 0..<height {
                let row = words + y * stride
                var x = 0
                while x + 3 < width {
                    mix(&l0, visible(UInt32(littleEndian: row[x])), 0xFF51_AFD7_ED55_8CCD)
                    mix(&l1, visible(UInt32(littleEndian: row[x + 1])), 0xC4CE_B9FE_1A85_EC53)
                    mix(&l2, visible(UInt32(littleEndian: row[x + 2])), 0x9E37_79B9_7F4A_7C15)
                    mix(&l3, visible(UInt32(littleEndian: row[x + 3])), 0xD6E8_FEB8_6659_FD93)
                    x += 4
                }
                while x < width {
                    mix(&l0, visible(UInt32(littleEndian: row[x])), 0xFF51_AFD7_ED55_8CCD)
                    x += 1
                }
                mix(&l1, UInt64(y), 0x9E37_79B9_7F4A_7C15)
            }
        }
        var h = l0 ^ (l1 &* 0x9E37_79B9_7F4A_7C15)
        h ^= (l2 << 17 | l2 >> 47) ^ (l3 << 41 | l3 >> 23)
        return Int(bitPattern: UInt(h))
    }
}
