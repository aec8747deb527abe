internal import CPng
import GifxTimeline

/// One PNG chunk in the mapped file: where it starts (its length field), its type, and its data.
struct PNGChunk {
    var offset: Int
    var type: UInt32
    var data: UnsafeRawBufferPointer

    static func code(_ name: StaticString) -> UInt32 {
        name.withUTF8Buffer { $0.reduce(0) { $0 << 8 | UInt32($1) } }
    }
    static let IHDR = code("IHDR"), PLTE = code("PLTE"), tRNS = code("tRNS"), IDAT = code("IDAT")
    static let IEND = code("IEND"), acTL = code("acTL"), fcTL = code("fcTL"), fdAT = code("fdAT")

    /// Big-endian 32-bit field at `at` in the data.
    func u32(_ at: Int) -> UInt32 {
        UInt32(data[at]) << 24 | UInt32(data[at + 1]) << 16 | UInt32(data[at + 2]) << 8 | UInt32(data[at + 3])
    }

    func u16(_ at: Int) -> UInt16 { UInt16(data[at]) << 8 | UInt16(data[at + 1]) }
}

/// gifx's own PNG chunk reader over a mapped file: signature, then chunk by chunk with every CRC checked.
/// A damaged or cut-short chunk ends the walk with a `GifDecodeError` at its offset.
struct PNGChunkReader {
    let bytes: UnsafeRawBufferPointer
    private(set) var offset = 8

    init(bytes: UnsafeRawBufferPointer) throws {
        self.bytes = bytes
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.count >= 8, bytes.prefix(8).elementsEqual(signature) else {
            throw GifDecodeError(.malformed, at: 0, "not a PNG signature", format: .apng)
        }
    }

    /// The type of the chunk whose CRC failed (a damaged fcTL or IEND still ends the frame before it).
    private(set) var failedType: UInt32?

    /// Whether every byte has been read.
    var atEnd: Bool { offset >= bytes.count }

    /// The next chunk, CRC checked; `nil` at the end of the data.
    mutating func next() throws -> PNGChunk? {
        if offset >= bytes.count { return nil }
        let start = offset
        guard bytes.count - start >= 12 else {
            throw GifDecodeError(.truncated, at: bytes.count, "the data ends inside a chunk header", format: .apng)
        }
        let length = Int(UInt32(bytes[start]) << 24 | UInt32(bytes[start + 1]) << 16 | UInt32(bytes[start + 2]) << 8
            | UInt32(bytes[start + 3]))
        guard length <= 0x7FFF_FFFF else {
            throw GifDecodeError(.malformed, at: start, "chunk length \(length) exceeds 2^31 - 1", format: .apng)
        }
        guard bytes.count - start - 12 >= length else {
            throw GifDecodeError(.truncated, at: bytes.count, "the data ends inside a chunk", format: .apng)
        }
        let type = UInt32(bytes[start + 4]) << 24 | UInt32(bytes[start + 5]) << 16 | UInt32(bytes[start + 6]) << 8
            | UInt32(bytes[start + 7])
        let stored = UInt32(bytes[start + 8 + length]) << 24 | UInt32(bytes[start + 9 + length]) << 16
            | UInt32(bytes[start + 10 + length]) << 8 | UInt32(bytes[start + 11 + length])
        let base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let crc = gifx_crc32(0, base + start + 4, length + 4)
        guard crc == stored else {
            failedType = type
            throw GifDecodeError(.malformed, at: start, "chunk \(Self.name(type)): CRC mismatch", format: .apng)
        }
        offset = start + 12 + length
        return PNGChunk(
            offset: start, type: type, data: UnsafeRawBufferPointer(rebasing: bytes[(start + 8)..<(start + 8 + length)]))
    }

    /// The chunk type as errors print it: its four letters, with any byte that is not an ASCII letter (a
    /// damaged type: a newline, a NUL) written `\xNN`, so an error stays one printable line.
    static func name(_ type: UInt32) -> String {
        [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: type >> $0) }.map { byte in
            (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
        }.joined()
    }
}

/// One APNG frame control chunk (fcTL).
struct FrameControl {
    var sequence: UInt32
    var rect: PixelRect
    var delayNumerator: UInt16
    var delayDenominator: UInt16
    /// 0 NONE, 1 BACKGROUND, 2 PREVIOUS.
    var dispose: UInt8
    /// 0 SOURCE, 1 OVER.
    var blend: UInt8

    init(sequence: UInt32, rect: PixelRect, delayNumerator: UInt16, delayDenominator: UInt16, dispose: UInt8, blend: UInt8) {
        self.sequence = sequence; self.rect = rect; self.delayNumerator = delayNumerator
        self.delayDenominator = delayDenominator; self.dispose = dispose; self.blend = blend
    }

    init(_ chunk: PNGChunk) throws {
        guard chunk.data.count == 26 else {
            throw GifDecodeError(.malformed, at: chunk.offset, "fcTL is \(chunk.data.count) bytes, not 26", format: .apng)
        }
        sequence = chunk.u32(0)
        rect = PixelRect(
            x: Int(chunk.u32(12)), y: Int(chunk.u32(16)), width: Int(chunk.u32(4)), height: Int(chunk.u32(8)))
        delayNumerator = chunk.u16(20)
        delayDenominator = chunk.u16(22)
        dispose = chunk.data[24]
        blend = chunk.data[25]
        guard dispose <= 2, blend <= 1 else {
            throw GifDecodeError(
                .malformed, at: chunk.offset, "fcTL dispose_op \(dispose) or blend_op \(blend) is not defined",
                format: .apng)
        }
    }
}

/// The image header fields a frame's PNG repeats.
struct PNGHeader {
    var width: Int
    var height: Int
    /// The 13 IHDR bytes (width and height are replaced per frame).
    var fields: [UInt8]

    init(_ chunk: PNGChunk) throws {
        guard chunk.data.count == 13 else {
            throw GifDecodeError(.malformed, at: chunk.offset, "IHDR is \(chunk.data.count) bytes, not 13", format: .apng)
        }
        width = Int(chunk.u32(0))
        height = Int(chunk.u32(4))
        fields = Array(chunk.data)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
