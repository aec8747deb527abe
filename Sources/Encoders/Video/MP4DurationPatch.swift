import Foundation

/// Rewrites the durations in a finished faststart MP4's `moov` so that they agree with its sample table.
///
/// libavformat takes both the last `stts` delta and the presentation end from the last packet's duration
/// (dts + duration, pts + duration). With B-frames the last packet in decode order has dts < pts, so no one
/// duration makes both right: gifx stretches the packet so the samples reach the presentation end (see
/// `VideoMuxer.finish`), and then sets, in place (same box sizes), the edit list's segment, `tkhd` and `mvhd`
/// durations to the presentation (`presentationUnits`, in the track's time scale) and `mdhd` to the `stts` sum.
/// (An animated AVIF is rewritten by `AVIFRepetition` instead: it needs an edit list added, which moves offsets.)
enum MP4DurationPatch {
    private static let containers: Set<String> = ["moov", "trak", "mdia", "edts"]

    /// `presentationUnits` is the presentation's length in the track time scale `trackScale`.
    static func apply(path: String, presentationUnits: Int64, trackScale: Int32) throws {
        guard let file = FileHandle(forUpdatingAtPath: path) else { throw LibavError("reopening the MP4", path: path) }
        defer { try? file.close() }
        // find the top-level moov (in front of mdat with +faststart)
        var offset: UInt64 = 0
        let end = try file.seekToEnd()
        var moov: (offset: UInt64, size: Int)?
        while offset + 8 <= end {
            try file.seek(toOffset: offset)
            let header = try file.read(upToCount: 16) ?? Data()
            guard header.count >= 8 else { break }
            var size = UInt64(Self.u32(header, 0))
            if size == 1, header.count == 16 { size = Self.u64(header, 8) } else if size == 0 { size = end - offset }
            guard size >= 8 else { break }
            if String(decoding: header[4..<8], as: UTF8.self) == "moov" { moov = (offset, Int(size)); break }
            offset += size
        }
        guard let moov else { throw LibavError("no moov box in the MP4", path: path) }
        try file.seek(toOffset: moov.offset)
        guard var box = try file.read(upToCount: moov.size), box.count == moov.size else {
            throw LibavError("reading the moov box", path: path)
        }
        var movieScale: Int64 = 0
        var sttsSum: Int64 = 0
        var fields: [(kind: String, body: Int)] = []
        func walk(_ start: Int, _ stop: Int) {
            var pos = start
            while pos + 8 <= stop {
                let size = Int(Self.u32(box, pos))
                guard size >= 8, pos + size <= stop else { return }
                let kind = String(decoding: box[pos + 4..<pos + 8], as: UTF8.self)
                if containers.contains(kind) {
                    walk(pos + 8, pos + size)
                } else if kind == "minf" || kind == "stbl" {
                    walk(pos + 8, pos + size)
                } else if kind == "stts" {
                    let count = Int(Self.u32(box, pos + 12))
                    for i in 0..<count {
                        sttsSum += Int64(Self.u32(box, pos + 16 + 8 * i)) * Int64(Self.u32(box, pos + 20 + 8 * i))
                    }
                } else if ["mvhd", "tkhd", "mdhd", "elst"].contains(kind) {
                    if kind == "mvhd" { movieScale = Int64(Self.u32(box, pos + 8 + (box[pos + 8] == 1 ? 20 : 12))) }
                    fields.append((kind, pos + 8))
                }
                pos += size
            }
        }
        walk(8, box.count)
        // not the one-track file gifx writes: one mvhd, tkhd and mdhd, and at most one edit list (none in AVIF)
        let kinds = fields.map(\.kind)
        guard movieScale > 0, trackScale > 0, kinds.count == Set(kinds).count,
              Set(kinds).isSuperset(of: ["mvhd", "tkhd", "mdhd"]) else { return }
        // the muxer rounds the movie-scale durations up (AV_ROUND_UP)
        let movieUnits = (presentationUnits * movieScale + Int64(trackScale) - 1) / Int64(trackScale)
        for (kind, body) in fields {
            let version1 = box[body] == 1
            switch kind {
            case "mvhd": Self.put(&box, at: body + (version1 ? 24 : 16), movieUnits, wide: version1)
            case "tkhd": Self.put(&box, at: body + (version1 ? 28 : 20), movieUnits, wide: version1)
            case "mdhd": Self.put(&box, at: body + (version1 ? 24 : 16), sttsSum, wide: version1)
            default:  // elst: the last entry is the media segment (an empty edit may come first)
                let count = Int(Self.u32(box, body + 4))
                guard count > 0 else { continue }
                let entry = body + 8 + (count - 1) * (version1 ? 20 : 12)
                Self.put(&box, at: entry, movieUnits, wide: version1)
            }
        }
        try file.seek(toOffset: moov.offset)
        try file.write(contentsOf: box)
    }

    private static func u32(_ data: Data, _ at: Int) -> UInt32 {
        let base = data.startIndex + at
        return data[base..<base + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func u64(_ data: Data, _ at: Int) -> UInt64 {
        UInt64(u32(data, at)) << 32 | UInt64(u32(data, at + 4))
    }

    private static func put(_ data: inout Data, at: Int, _ value: Int64, wide: Bool) {
        let bytes = wide ? 8 : 4
        for i in 0..<bytes {
            data[data.startIndex + at + i] = UInt8(truncatingIfNeeded: value >> (8 * (bytes - 1 - i)))
        }
    }
}
