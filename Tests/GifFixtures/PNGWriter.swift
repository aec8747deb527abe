import Foundation

/// PNG and APNG written byte by byte: RGBA 8-bit, filter 0, the image data in stored (uncompressed) deflate
/// blocks inside a zlib stream, CRC-32 and Adler-32 computed here.
public enum PNGWriter {
    public static func solid(_ width: Int, _ height: Int, _ colour: [UInt8]) -> [UInt8] {
        Array([[UInt8]](repeating: colour, count: width * height).joined())
    }

    public static func still(width: Int, height: Int, pixels: [UInt8]) -> Data {
        var out = signature
        out += chunk("IHDR", header(width, height))
        out += chunk("IDAT", zlibStored(scanlines(width, height, pixels)))
        out += chunk("IEND", [])
        return Data(out)
    }

    /// Every frame covers the canvas (dispose NONE, blend SOURCE); the first is also the default image.
    public static func apng(width: Int, height: Int, frames: [[UInt8]], delays: [(Int, Int)]) -> Data {
        var out = signature
        out += chunk("IHDR", header(width, height))
        out += chunk("acTL", be32(frames.count) + be32(0))
        var sequence = 0
        for (index, (pixels, delay)) in zip(frames, delays).enumerated() {
            out += chunk(
                "fcTL",
                be32(sequence) + be32(width) + be32(height) + be32(0) + be32(0) + be16(delay.0) + be16(delay.1) + [0, 0])
            sequence += 1
            let data = zlibStored(scanlines(width, height, pixels))
            if index == 0 {
                out += chunk("IDAT", data)
            } else {
                out += chunk("fdAT", be32(sequence) + data)
                sequence += 1
            }
        }
        out += chunk("IEND", [])
        return Data(out)
    }

    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    public static func header(_ width: Int, _ height: Int) -> [UInt8] { be32(width) + be32(height) + [8, 6, 0, 0, 0] }

    public static func scanlines(_ width: Int, _ height: Int, _ pixels: [UInt8]) -> [UInt8] {
        var rows: [UInt8] = []
        for y in 0..<height { rows += [0] + pixels[(y * width * 4)..<((y + 1) * width * 4)] }
        return rows
    }

    public static func zlibStored(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let n = min(65535, bytes.count - offset)
            let last: UInt8 = offset + n == bytes.count ? 1 : 0
            out += [last, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += bytes[offset..<offset + n]
            offset += n
        } while offset < bytes.count
        var (a, b): (UInt32, UInt32) = (1, 0)
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return out + be32(Int(b << 16 | a))
    }

    public static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(data.count) + body + be32(Int(crc32(body)))
    }

    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    public static func be32(_ v: Int) -> [UInt8] { [UInt8((v >> 24) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
    public static func be16(_ v: Int) -> [UInt8] { [UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
}
