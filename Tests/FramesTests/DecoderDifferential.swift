import Foundation
import GifFixtures
import GifxFrames

/// Decodes one file with giflib (the oracle, one thread) and with gifx's own decoder (`threads` threads)
/// in lockstep and says how they differ: a canvas that is not byte-identical, a different error (text,
/// kind, byte offset, frame), different warnings, or a different frame count. `nil` when they agree.
/// Files whose metadata cannot be read fail the same way for both (the metadata pass is shared).
func decoderDifference(_ path: String, strict: Bool, threads: Int = 1, maxCanvasBytes: Int = 64 << 20) -> String? {
    let reference = DecodeLimits(maxCanvasBytes: maxCanvasBytes, strict: strict, decoder: .giflib)
    var candidate = reference
    candidate.decoder = .gifx
    guard let metadata = try? readAnimationMetadata(path: path, limits: reference) else { return nil }
    let expected: FrameStream, actual: FrameStream
    do {
        expected = try FrameStream(path: path, metadata: metadata, limits: reference, threads: 1)
        actual = try FrameStream(path: path, metadata: metadata, limits: candidate, threads: threads)
    } catch {
        return nil  // the canvas memory check, before any decoder runs
    }
    defer { expected.close(); actual.close() }
    var frame = 0
    while true {
        let want = Result { try expected.nextCanvas { Array($0.pixels) } }
        let got = Result { try actual.nextCanvas { Array($0.pixels) } }
        switch (want, got) {
        case (.success(let a), .success(let b)):
            if a != b {
                let first = Array(zip(a ?? [], b ?? [])).firstIndex { $0.0 != $0.1 } ?? -1
                return "frame \(frame): canvases differ (first at byte \(first); giflib \(a == nil ? "ended" : "gave one"), gifx \(b == nil ? "ended" : "gave one"))"
            }
            if a == nil {
                return expected.warnings == actual.warnings
                    ? nil : "warnings differ:\n giflib \(expected.warnings)\n gifx   \(actual.warnings)"
            }
        case (.failure(let a), .failure(let b)):
            return "\(a)" == "\(b)" ? nil : "frame \(frame): errors differ:\n giflib \(a)\n gifx   \(b)"
        case (.failure(let a), .success):
            return "frame \(frame): giflib fails (\(a)), gifx does not"
        case (.success, .failure(let b)):
            return "frame \(frame): gifx fails (\(b)), giflib does not"
        }
        frame += 1
    }
}

/// The generated sweep: GIFs written by giflib's encoder over sizes 1–300, code sizes 2–8 (palettes of 4 to
/// 256 colours), interlaced or not, with and without a transparent index, every disposal method, frames
/// inside and overhanging the canvas, and content from flat runs (long strings, KwKwK codes) to noise
/// (table resets). `sizes` picks which; each size gives one file.
enum DifferentialSweep {
    static let allSizes = Array(1...300)
    static let sampleSizes = [1, 2, 3, 7, 8, 9, 16, 17, 63, 64, 65, 127, 200, 255, 256, 257, 300]

    static func gif(size: Int) -> FixtureGIF {
        var random = SplitMix64(seed: UInt64(size) &* 0x9E37_79B9)
        let codeSize = 2 + size % 7  // 2...8
        let colours = 1 << codeSize
        let palette: [RGB] = (0..<colours).map { (index: Int) -> RGB in
            let value = UInt8(truncatingIfNeeded: index)
            return RGB(value, value &* 37, 255 &- value)
        }
        let width = size, height = Swift.max(1, (size * 5 + 3) % 301)
        var frames: [FixtureFrame] = []
        for disposal in 0...3 {
            let inset = disposal == 2 ? -(size / 4) : size / 5  // frame 2 overhangs the canvas's top left
            let w = Swift.max(1, width - (disposal % 2) * (width / 3)), h = Swift.max(1, height - disposal * height / 5)
            let style = (size + disposal) % 3  // 0 runs, 1 noise, 2 gradient
            let indices: [UInt8] = (0..<(w * h)).map { i in
                switch style {
                case 0: return UInt8(truncatingIfNeeded: (i / Swift.max(1, w / 3 + 1)) % colours)
                case 1: return UInt8(truncatingIfNeeded: Int(random.next() % UInt64(colours)))
                default: return UInt8(truncatingIfNeeded: ((i % w) + (i / w) * 3) % colours)
                }
            }
            frames.append(
                FixtureFrame(
                    left: disposal == 2 ? width / 2 : Swift.max(0, inset), top: disposal == 2 ? 0 : Swift.max(0, inset / 2), width: w, height: h,
                    indices: indices, localPalette: disposal == 1 ? palette.reversed() : nil, delay: 5,
                    disposal: disposal, transparentIndex: (size + disposal) % 2 == 0 ? Int(indices[0]) : nil,
                    interlaced: (size / 2 + disposal) % 2 == 1))
        }
        return FixtureGIF(width: width, height: height, globalPalette: palette, frames: frames)
    }

    /// Offsets of every image's LZW minimum code size byte (walking the blocks as `cuts` does).
    static func codeSizeOffsets(_ data: Data) -> [Int] {
        let bytes = [UInt8](data)
        var offsets: [Int] = []
        var at = 13 + (bytes[10] & 0x80 != 0 ? 3 << (Int(bytes[10] & 7) + 1) : 0)
        func skipBlocks() {
            while at < bytes.count {
                let length = Int(bytes[at])
                at += 1 + length
                if length == 0 { return }
            }
        }
        while at < bytes.count {
            switch bytes[at] {
            case 0x21: at += 2; skipBlocks()
            case 0x2C where at + 9 < bytes.count:
                let packed = bytes[at + 9]
                at += 10 + (packed & 0x80 != 0 ? 3 << (Int(packed & 7) + 1) : 0)
                offsets.append(at)
                at += 1
                skipBlocks()
            default: at = bytes.count
            }
        }
        return offsets.filter { $0 < bytes.count }
    }

    /// Copies of `data` whose images' code size bytes are rewritten to every size from 0 to 8: sizes 0 and 1
    /// (which only damaged or hand-made files carry) and sizes that do not match the data.
    static func recoded(_ data: Data) -> [Data] {
        let offsets = codeSizeOffsets(data)
        return (0...8).map { size in
            var copy = data
            for (index, offset) in offsets.enumerated() where index % 2 == size % 2 { copy[offset] = UInt8(size) }
            return copy
        }
    }

    /// Where the file can be cut: every sub-block boundary of the image data, one byte into each block, and
    /// the other record boundaries (found by walking the blocks), plus the last byte.
    static func cuts(_ data: Data) -> [Int] {
        let bytes = [UInt8](data)
        var cuts: [Int] = []
        var at = 13 + (bytes[10] & 0x80 != 0 ? 3 << (Int(bytes[10] & 7) + 1) : 0)
        func blocks() {
            while at < bytes.count {
                cuts.append(at); cuts.append(at + 1)
                let length = Int(bytes[at])
                at += 1 + length
                if length == 0 { return }
            }
        }
        while at < bytes.count {
            cuts.append(at)
            switch bytes[at] {
            case 0x21: at += 2; blocks()
            case 0x2C:
                let packed = bytes[min(at + 9, bytes.count - 1)]
                at += 10 + (packed & 0x80 != 0 ? 3 << (Int(packed & 7) + 1) : 0) + 1
                blocks()
            default: at = bytes.count
            }
        }
        return cuts.filter { $0 > 13 && $0 < bytes.count } + [bytes.count - 1]
    }

    /// Copies of `data` with bytes inside the image data changed (bit flips, codes beyond the table,
    /// early end codes), deterministic per `seed`.
    static func damaged(_ data: Data, seed: UInt64, count: Int) -> [Data] {
        var random = SplitMix64(seed: seed)
        let headerEnd = Swift.min(data.count, 800)
        return (0..<count).map { _ in
            var copy = data
            let at = Int(random.next() % UInt64(Swift.max(1, data.count - headerEnd))) + headerEnd - 1
            guard at >= 0 && at < copy.count else { return copy }
            copy[at] ^= UInt8(truncatingIfNeeded: random.next() | 1)
            return copy
        }
    }
}
