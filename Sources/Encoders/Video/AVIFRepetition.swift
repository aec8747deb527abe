import Foundation

/// Writes an animated AVIF's play count into its track's edit list (docs/conformance.md, "AVIF plays").
///
/// An image sequence carries its repetition in the edit list (ISO/IEC 23008-12 §9.6.1; ISO/IEC 14496-12 §8.6.6):
/// the `elst` flag 1 repeats the edit. FFmpeg's AVIF muxer (5.1, the version measured) writes no `edts` at all,
/// which Chromium's AVIF decoder reads as "loop forever" (it treats an unknown count as infinite, for
/// compatibility), so a GIF that plays three times became an AVIF that loops without end. The readers were read
/// before writing this (libavif 1.x `avifDecoderParse` of `elst`, mozilla/mp4parse-rust, Chromium's
/// `AVIFImageDecoder`); the one encoding they all read the same way:
/// - `mvhd`'s timescale = `mdhd`'s, so one play `D` (the `mdhd` duration, the `stts` sum) is an exact integer;
/// - one `edts/elst` entry: `segment_duration` D, `media_time` 0, rate 1 (libavif ≥ 1.0 fails a repeating list of
///   more than one entry);
/// - **once**: flags 0, and `tkhd` = `mvhd` = D;
/// - **N plays**: flags exactly 1 (mp4parse tests `flags == 1`, not bit 0), and `tkhd` = `mvhd` = N × D;
/// - **forever**: flags 1, with `tkhd` and `mvhd` at version 1 and duration all ones (`0xFFFFFFFFFFFFFFFF`: the
///   only infinite mp4parse reads, and libavif's `AVIF_REPETITION_COUNT_INFINITE`).
/// WebCodecs' `ImageDecoder` then reports `repetitionCount` 0, N − 1 and `Infinity`.
///
/// The boxes grow (an `edts` of 36 bytes or more, `mvhd` and `tkhd` by 12 bytes each at version 1), and `moov`
/// sits before `mdat` in an AVIF, so every offset into `mdat` moves by the growth: `stco`/`co64` in the track and
/// `iloc` in the `meta` box (the primary item: the first frame). The file is written anew: the boxes before
/// `mdat`, rebuilt, then the rest copied as it is.
enum AVIFRepetition {
    /// How many times the sequence plays.
    enum Plays: Hashable, Sendable {
        case once
        case times(Int)
        case forever

        /// The plays of a schedule: `nil` (forever) or a count; a count of 1 or less is once.
        init(_ plays: Int?) {
            guard let plays else { self = .forever; return }
            self = plays <= 1 ? .once : .times(plays)
        }
    }

    /// Rewrites the AVIF at `path` in place (through a sibling file renamed over it).
    static func apply(path: String, plays: Plays) throws {
        let url = URL(fileURLWithPath: path)
        guard let input = FileHandle(forReadingAtPath: path) else { throw LibavError("reopening the AVIF", path: path) }
        defer { try? input.close() }
        let prefix = try boxesBeforeMediaData(input, path: path)
        let rewritten: [UInt8]
        do { rewritten = try rewrite(prefix: prefix, plays: plays) } catch let error as BitstreamError {
            throw LibavError("writing the AVIF's play count: \(error)", failure: .internalError, path: path)
        }
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).elst")
        guard FileManager.default.createFile(atPath: temporary.path, contents: Data(rewritten)),
              let output = FileHandle(forWritingAtPath: temporary.path)
        else { throw LibavError("writing the AVIF's play count", path: path) }
        do {
            defer { try? output.close() }
            try output.seekToEnd()
            while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty { try output.write(contentsOf: chunk) }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw LibavError("writing the AVIF's play count: \(error)", path: path)
        }
        if rename(temporary.path, path) != 0 {
            try? FileManager.default.removeItem(at: temporary)
            throw LibavError("replacing the AVIF", path: path)
        }
    }

    /// The boxes before `mdat` (small: `ftyp`, `meta`, `moov`), read box by box; `input` is left at `mdat`.
    private static func boxesBeforeMediaData(_ input: FileHandle, path: String) throws -> [UInt8] {
        var prefix: [UInt8] = []
        while true {
            guard let header = try input.read(upToCount: 8), header.count == 8 else {
                throw LibavError("the AVIF has no mdat box", failure: .internalError, path: path)
            }
            let size = Int(UInt32(header[0]) << 24 | UInt32(header[1]) << 16 | UInt32(header[2]) << 8 | UInt32(header[3]))
            let kind = String(decoding: header[4..<8], as: UTF8.self)
            if kind == "mdat" {
                try input.seek(toOffset: UInt64(prefix.count))
                break
            }
            guard size >= 8, prefix.count + size < 1 << 28 else {
                throw LibavError("an AVIF box of \(size) bytes before mdat", failure: .internalError, path: path)
            }
            prefix += header
            guard let body = try input.read(upToCount: size - 8), body.count == size - 8 else {
                throw LibavError("the AVIF ends inside its \(kind) box", failure: .internalError, path: path)
            }
            prefix += body
        }
        return prefix
    }

    /// The boxes before `mdat` (`prefix`: `ftyp`, `meta`, `moov`, in any order) with the play count written and
    /// every offset into what follows moved by the growth.
    static func rewrite(prefix: [UInt8], plays: Plays) throws -> [UInt8] {
        var boxes = try Box.parse(prefix[...])
        guard let moovIndex = boxes.firstIndex(where: { $0.kind == "moov" }) else { throw BitstreamError("no moov box") }
        var moov = boxes[moovIndex]
        guard let trakIndex = moov.children.firstIndex(where: { $0.kind == "trak" }),
              moov.children.filter({ $0.kind == "trak" }).count == 1
        else { throw BitstreamError("the AVIF does not have exactly one track") }
        var trak = moov.children[trakIndex]
        guard let mdhd = trak.find(["mdia", "mdhd"]) else { throw BitstreamError("no mdhd box") }
        let (timescale, play) = try mdhd.mediaHeader()
        guard timescale > 0, play > 0 else { throw BitstreamError("a media header of \(play) in 1/\(timescale) s") }
        let total: UInt64
        switch plays {
        case .once: total = play
        case .times(let n):
            let (product, overflow) = play.multipliedReportingOverflow(by: UInt64(n))
            guard !overflow, product < .max else { throw BitstreamError("\(n) plays of \(play) units overflow") }
            total = product
        case .forever: total = .max
        }
        let repeats = plays != .once

        guard let mvhdIndex = moov.children.firstIndex(where: { $0.kind == "mvhd" }) else { throw BitstreamError("no mvhd") }
        moov.children[mvhdIndex] = try moov.children[mvhdIndex].withMovieHeader(timescale: timescale, duration: total)
        guard let tkhdIndex = trak.children.firstIndex(where: { $0.kind == "tkhd" }) else { throw BitstreamError("no tkhd") }
        trak.children[tkhdIndex] = try trak.children[tkhdIndex].withTrackDuration(total)
        trak.children.removeAll { $0.kind == "edts" }
        trak.children.insert(Box.editList(segment: play, repeats: repeats), at: tkhdIndex + 1)
        moov.children[trakIndex] = trak
        boxes[moovIndex] = moov

        let growth = boxes.reduce(0) { $0 + $1.size } - prefix.count
        // Every offset into mdat (after the prefix) moves by the growth.
        for index in boxes.indices {
            try boxes[index].moveOffsets(by: growth, past: prefix.count)
        }
        var out: [UInt8] = []
        out.reserveCapacity(prefix.count + growth)
        for box in boxes { box.write(into: &out) }
        guard out.count == prefix.count + growth else { throw BitstreamError("the rebuilt boxes are \(out.count) bytes") }
        return out
    }

    /// One ISO BMFF box: a container's children parsed, any other box's body kept as bytes (after the 8-byte header).
    struct Box {
        static let containers: Set<String> = ["moov", "trak", "mdia", "minf", "stbl", "edts", "dinf"]
        var kind: String
        var body: [UInt8] = []
        var children: [Box] = []
        var isContainer: Bool { Self.containers.contains(kind) }
        var size: Int { 8 + (isContainer ? children.reduce(0) { $0 + $1.size } : body.count) }

        static func parse(_ bytes: ArraySlice<UInt8>) throws -> [Box] {
            var boxes: [Box] = []
            var at = bytes.startIndex
            while at < bytes.endIndex {
                guard bytes.endIndex - at >= 8 else { throw BitstreamError("a box header is cut short") }
                let size = Int(read32(bytes, at))
                let kind = String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self)
                guard size >= 8, at + size <= bytes.endIndex else {
                    throw BitstreamError("the \(kind) box of \(size) bytes does not fit (64-bit or open-ended sizes are not written here)")
                }
                var box = Box(kind: kind)
                if Self.containers.contains(kind) {
                    box.children = try parse(bytes[(at + 8)..<(at + size)])
                } else {
                    box.body = Array(bytes[(at + 8)..<(at + size)])
                }
                boxes.append(box)
                at += size
            }
            return boxes
        }

        func write(into out: inout [UInt8]) {
            append32(&out, UInt32(size))
            out += Array(kind.utf8)
            if isContainer { for child in children { child.write(into: &out) } } else { out += body }
        }

        func find(_ path: [String]) -> Box? {
            guard let first = path.first else { return self }
            return children.first { $0.kind == first }?.find(Array(path.dropFirst()))
        }

        /// `mdhd`'s timescale and duration.
        func mediaHeader() throws -> (timescale: UInt32, duration: UInt64) {
            guard let version = body.first else { throw BitstreamError("an empty mdhd") }
            if version == 1 {
                guard body.count >= 32 else { throw BitstreamError("a short mdhd") }
                return (read32(body[...], 20), read64(body[...], 24))
            }
            guard body.count >= 20 else { throw BitstreamError("a short mdhd") }
            return (read32(body[...], 12), UInt64(read32(body[...], 16)))
        }

        /// `mvhd` with `timescale` and `duration`, at version 1 where the duration needs 64 bits.
        func withMovieHeader(timescale: UInt32, duration: UInt64) throws -> Box {
            let (created, modified, _, rest) = try times(timescaleOrTrack: true)
            var out: [UInt8] = []
            if duration > UInt64(UInt32.max) - 1 || created > UInt64(UInt32.max) || modified > UInt64(UInt32.max) {
                out += [1, 0, 0, 0]
                append64(&out, created); append64(&out, modified); append32(&out, timescale); append64(&out, duration)
            } else {
                out += [0, 0, 0, 0]
                append32(&out, UInt32(created)); append32(&out, UInt32(modified)); append32(&out, timescale)
                append32(&out, UInt32(duration))
            }
            return Box(kind: kind, body: out + rest)
        }

        /// `tkhd` with `duration` (flags kept), at version 1 where it needs 64 bits.
        func withTrackDuration(_ duration: UInt64) throws -> Box {
            let (created, modified, trackID, rest) = try times(timescaleOrTrack: false)
            guard rest.count >= 4 else { throw BitstreamError("a short tkhd") }
            let reserved = Array(rest.prefix(4)), tail = Array(rest.dropFirst(4))
            var out: [UInt8] = []
            if duration > UInt64(UInt32.max) - 1 || created > UInt64(UInt32.max) || modified > UInt64(UInt32.max) {
                out += [1] + body[1..<4]
                append64(&out, created); append64(&out, modified); append32(&out, trackID); out += reserved
                append64(&out, duration)
            } else {
                out += [0] + body[1..<4]
                append32(&out, UInt32(created)); append32(&out, UInt32(modified)); append32(&out, trackID); out += reserved
                append32(&out, UInt32(duration))
            }
            return Box(kind: kind, body: out + tail)
        }

        /// `mvhd`/`tkhd`: the creation and modification times, the timescale (mvhd) or track id (tkhd), and the
        /// bytes after the duration (tkhd: from the reserved word after the track id, before the duration).
        private func times(timescaleOrTrack: Bool) throws -> (UInt64, UInt64, UInt32, [UInt8]) {
            guard let version = body.first, body.count >= (version == 1 ? 36 : 24) else {
                throw BitstreamError("a short \(kind)")
            }
            let wide = version == 1
            let created = wide ? read64(body[...], 4) : UInt64(read32(body[...], 4))
            let modified = wide ? read64(body[...], 12) : UInt64(read32(body[...], 8))
            let third = wide ? 20 : 12
            let value = read32(body[...], third)
            if timescaleOrTrack {  // mvhd: timescale, duration, then the rest
                return (created, modified, value, Array(body[(third + 4 + (wide ? 8 : 4))...]))
            }
            // tkhd: track id, reserved, duration, then the rest; the reserved word is returned first
            let reserved = Array(body[(third + 4)..<(third + 8)])
            return (created, modified, value, reserved + Array(body[(third + 8 + (wide ? 8 : 4))...]))
        }

        /// `edts` with one `elst` entry: `segment` units of media from time 0 at rate 1, repeated when `repeats`.
        static func editList(segment: UInt64, repeats: Bool) -> Box {
            var elst: [UInt8] = []
            let wide = segment > UInt64(UInt32.max)
            elst += [wide ? 1 : 0, 0, 0, repeats ? 1 : 0]
            append32(&elst, 1)  // entry_count
            if wide { append64(&elst, segment); append64(&elst, 0) } else { append32(&elst, UInt32(segment)); append32(&elst, 0) }
            elst += [0, 1, 0, 0]  // media_rate_integer 1, media_rate_fraction 0
            return Box(kind: "edts", children: [Box(kind: "elst", body: elst)])
        }

        /// Adds `growth` to every offset at or past `end` (the old start of mdat): `stco`/`co64` entries and `iloc`
        /// extents of file-offset items.
        mutating func moveOffsets(by growth: Int, past end: Int) throws {
            if isContainer {
                for index in children.indices { try children[index].moveOffsets(by: growth, past: end) }
            } else if kind == "stco" || kind == "co64" {
                guard body.count >= 8 else { throw BitstreamError("a short \(kind)") }
                let count = Int(read32(body[...], 4)), width = kind == "co64" ? 8 : 4
                guard body.count >= 8 + count * width else { throw BitstreamError("a short \(kind)") }
                for k in 0..<count {
                    let at = 8 + k * width
                    let old = width == 8 ? read64(body[...], at) : UInt64(read32(body[...], at))
                    guard old >= UInt64(end) else { throw BitstreamError("a chunk offset before mdat") }
                    let new = old + UInt64(growth)
                    guard width == 8 || new <= UInt64(UInt32.max) else { throw BitstreamError("a chunk offset past 4 GiB") }
                    write(new, width: width, at: at)
                }
            } else if kind == "meta" {
                // A full box (version and flags), then boxes; iloc among them.
                guard body.count >= 4 else { throw BitstreamError("a short meta") }
                var inner = try Box.parse(body[4...])
                for index in inner.indices where inner[index].kind == "iloc" {
                    try inner[index].moveItemOffsets(by: growth, past: end)
                }
                var rebuilt = Array(body[0..<4])
                for box in inner { box.write(into: &rebuilt) }
                body = rebuilt
            }
        }

        /// `iloc` (ISO/IEC 14496-12 §8.11.3): each item stored in this file (construction method 0, data reference
        /// 0) has its base offset, or else each extent offset, moved.
        private mutating func moveItemOffsets(by growth: Int, past end: Int) throws {
            guard body.count >= 8 else { throw BitstreamError("a short iloc") }
            let version = body[0]
            let offsetSize = Int(body[4] >> 4), lengthSize = Int(body[4] & 15)
            let baseSize = Int(body[5] >> 4), indexSize = version >= 1 ? Int(body[5] & 15) : 0
            var at = 6
            func field(_ width: Int) throws -> (UInt64, Int) {
                guard at + width <= body.count else { throw BitstreamError("a short iloc") }
                let position = at
                var value: UInt64 = 0
                for k in 0..<width { value = value << 8 | UInt64(body[at + k]) }
                at += width
                return (value, position)
            }
            let count = try field(version < 2 ? 2 : 4).0
            for _ in 0..<count {
                _ = try field(version < 2 ? 2 : 4)  // item_ID
                var method: UInt64 = 0
                if version >= 1 { method = try field(2).0 & 15 }
                let reference = try field(2).0
                let (base, basePosition) = try field(baseSize)
                let extents = try field(2).0
                let inFile = method == 0 && reference == 0
                let moveBase = inFile && baseSize > 0 && base >= UInt64(end)
                if moveBase { write(base + UInt64(growth), width: baseSize, at: basePosition) }
                for _ in 0..<extents {
                    if indexSize > 0 { _ = try field(indexSize) }
                    let (offset, offsetPosition) = try field(offsetSize)
                    _ = try field(lengthSize)
                    if inFile && !moveBase && offsetSize > 0 && base + offset >= UInt64(end) {
                        write(offset + UInt64(growth), width: offsetSize, at: offsetPosition)
                    }
                }
            }
        }

        private mutating func write(_ value: UInt64, width: Int, at position: Int) {
            for k in 0..<width { body[position + k] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(width - 1 - k))) }
        }
    }
}

/// The big-endian 32-bit value at index `at` of `bytes` (an index of the slice's base, not an offset from its start).
private func read32(_ bytes: ArraySlice<UInt8>, _ at: Int) -> UInt32 {
    UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
}

private func read64(_ bytes: ArraySlice<UInt8>, _ at: Int) -> UInt64 {
    UInt64(read32(bytes, at)) << 32 | UInt64(read32(bytes, at + 4))
}

private func append32(_ out: inout [UInt8], _ value: UInt32) {
    out += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
}

private func append64(_ out: inout [UInt8], _ value: UInt64) {
    append32(&out, UInt32(value >> 32))
    append32(&out, UInt32(value & 0xFFFF_FFFF))
}
