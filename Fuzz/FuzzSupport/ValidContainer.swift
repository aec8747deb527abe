// What fuzz-webp and fuzz-apng do to an input before decoding it: the fuzzer mutates the chunks, and the
// harness makes the container around them valid (RIFF's size field; PNG's signature and every CRC), so
// that mutations reach the readers' chunk logic, the codecs and the compositors instead of dying at the
// first check. Those first checks are still fuzzed: fuzz-decoder takes WebP and APNG seeds unrepaired.
import CPng

/// `chunks` as an animated WebP: `RIFF`, the little-endian size of what follows, `WEBP`, then the chunks.
public func webpFile(chunks: UnsafeBufferPointer<UInt8>) -> [UInt8] {
    let size = UInt32(truncatingIfNeeded: 4 + chunks.count)
    var file: [UInt8] = Array("RIFF".utf8)
    file += [UInt8(size & 0xff), UInt8(size >> 8 & 0xff), UInt8(size >> 16 & 0xff), UInt8(size >> 24)]
    file += Array("WEBP".utf8)
    file += chunks
    return file
}

/// `chunks` as a PNG: the signature, then the chunks with the CRC of every complete chunk recomputed
/// (when `repairCRCs`; without it, a mutated CRC reaches the reader's check).
public func pngFile(chunks: UnsafeBufferPointer<UInt8>, repairCRCs: Bool) -> [UInt8] {
    var file: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
    file += chunks
    guard repairCRCs else { return file }
    var offset = 8
    file.withUnsafeMutableBufferPointer { bytes in
        while offset + 12 <= bytes.count {
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8
                | Int(bytes[offset + 3])
            let end = offset + 8 + length
            guard length <= 0x7fff_ffff, end + 4 <= bytes.count else { break }
            let crc = gifx_crc32(0, bytes.baseAddress! + offset + 4, length + 4)
            for index in 0..<4 { bytes[end + index] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * index)) }
            offset = end + 4
        }
    }
    return file
}

extension FuzzScratch {
    /// Replaces the file's contents with `bytes`.
    /// `bytes` is never empty here (a container header at least), so its buffer has a base address.
    public func write(_ bytes: [UInt8]) {
        precondition(!bytes.isEmpty, "a container has a header")
        bytes.withUnsafeBufferPointer { write($0.baseAddress!, $0.count) }
    }
}
