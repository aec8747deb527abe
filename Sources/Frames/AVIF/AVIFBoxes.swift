/// The few ISO BMFF boxes the AVIF reader reads itself, from the mapped file: the `ftyp` brands (the probe) and,
/// in the colour track, `tkhd` and `edts/elst` (the loop count: libavif 0.11 has no `repetitionCount`, which came
/// in libavif 1.0). Everything else (items, samples, the AV1 bitstream) is libavif's.
package enum AVIFBoxes {
    /// Whether `head` (a file's first bytes) starts with an `ftyp` box naming `avif` or `avis`, as the major
    /// brand or as one of the compatible brands read past it (a `mif1` or `msf1` major brand with `avis`
    /// compatible is an AVIF sequence too).
    static func probe(_ head: [UInt8]) -> Bool {
        guard head.count >= 12, head[4] == 0x66, head[5] == 0x74, head[6] == 0x79, head[7] == 0x70 else { return false }
        let size = Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
        func isAVIFBrand(_ at: Int) -> Bool {
            head[at] == 0x61 && head[at + 1] == 0x76 && head[at + 2] == 0x69
                && (head[at + 3] == 0x66 || head[at + 3] == 0x73)  // "avif", "avis"
        }
        if isAVIFBrand(8) { return true }
        // Compatible brands from byte 16 (after major_brand and minor_version) to the box's end.
        var at = 16
        while at + 4 <= Swift.min(size, head.count) {
            if isAVIFBrand(at) { return true }
            at += 4
        }
        return false
    }

    /// One box: its type and where its payload (after the header) lies in the file.
    struct Box {
        var type: UInt32
        var offset: Int
        var payload: Range<Int>
    }

    static func fourCC(_ text: StaticString) -> UInt32 {
        let p = text.utf8Start
        return UInt32(p[0]) << 24 | UInt32(p[1]) << 16 | UInt32(p[2]) << 8 | UInt32(p[3])
    }

    /// The boxes inside `range` of `bytes`, in order; stops (without throwing) at a box that does not fit: libavif
    /// has parsed the file already and refuses what is malformed, this walk only has to stay inside the bytes.
    static func children(of range: Range<Int>, in bytes: UnsafeRawBufferPointer) -> [Box] {
        var boxes: [Box] = []
        var at = range.lowerBound
        while at + 8 <= range.upperBound {
            var size = Int(be32(bytes, at))
            let type = be32(bytes, at + 4)
            var header = 8
            if size == 1 {
                guard at + 16 <= range.upperBound else { break }
                let large = be64(bytes, at + 8)
                guard large <= UInt64(Int.max) else { break }
                size = Int(large)
                header = 16
            } else if size == 0 {
                size = range.upperBound - at
            }
            guard size >= header, size <= range.upperBound - at else { break }
            boxes.append(Box(type: type, offset: at, payload: (at + header)..<(at + size)))
            at += size
        }
        return boxes
    }

    static func be32(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
        UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }

    static func be64(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> UInt64 {
        UInt64(be32(bytes, at)) << 32 | UInt64(be32(bytes, at + 4))
    }

    /// The loop of an AVIF image sequence as its colour track's edit list says it (ISO/IEC 23008-12 §9.6.1), read
    /// the way the browsers read it (docs/conformance.md, "AVIF in").
    package enum Loop: Equatable {
        /// No `moov`, or no picture track: a still image (one play, no loop field).
        case still
        /// This many plays in all (at least 1).
        case plays(Int)
        case forever
    }

    /// The loop of the file in `bytes`, with a warning where the edit list is one gifx reads in part.
    ///
    /// - No `edts` in the colour track: forever (Chromium and Firefox play such a sequence forever; libavif 1.x
    ///   reports `AVIF_REPETITION_COUNT_UNKNOWN`).
    /// - `elst` with flags exactly 1 (repeat, mp4parse's test; libavif tests bit 0 alone): the edit list repeats to
    ///   fill the track's duration, so the plays are `ceil(tkhd duration / segment_duration)` (libavif and
    ///   mp4parse both round up). A track duration of all ones (version 1's `UInt64.max`, or version 0's
    ///   `0xFFFFFFFF`, which libavif reads as indefinite) is forever; so is a count beyond `Int32.max` (libavif) and a
    ///   segment_duration of 0 (mp4parse; libavif refuses the file). A list of more than one entry is read by its
    ///   first (libavif 1.x refuses the file), with a warning.
    /// - `elst` with other flags: one play.
    /// The loop an AVIF file declares, `nil` when `path` is not an AVIF (`gifx verify` compares it with the schedule's
    /// plays: one reader of edit lists for inputs and outputs).
    package static func declaredLoop(path: String) throws -> Loop? {
        let file = try MappedFile(path: path, format: .avif)
        guard probe(Array(file.bytes.prefix(InputFormat.probeLength))) else { return nil }
        return loop(in: file.bytes).loop
    }

    static func loop(in bytes: UnsafeRawBufferPointer) -> (loop: Loop, warning: String?) {
        let all = 0..<bytes.count
        guard let moov = children(of: all, in: bytes).first(where: { $0.type == fourCC("moov") }) else {
            return (.still, nil)
        }
        let tracks = children(of: moov.payload, in: bytes).filter { $0.type == fourCC("trak") }
        // The colour track: the first picture track that is no auxiliary (alpha) track.
        var colour: [Box]?
        for trak in tracks {
            let inner = children(of: trak.payload, in: bytes)
            let isPicture = inner.first { $0.type == fourCC("mdia") }.map { mdia in
                children(of: mdia.payload, in: bytes).contains { box in
                    box.type == fourCC("hdlr") && box.payload.count >= 12 && be32(bytes, box.payload.lowerBound + 8) == fourCC("pict")
                }
            } ?? false
            let isAuxiliary = inner.first { $0.type == fourCC("tref") }.map { tref in
                children(of: tref.payload, in: bytes).contains { $0.type == fourCC("auxl") }
            } ?? false
            if isPicture && !isAuxiliary {
                colour = inner
                break
            }
        }
        guard let colour else { return (.still, nil) }
        guard let edts = colour.first(where: { $0.type == fourCC("edts") }),
            let elst = children(of: edts.payload, in: bytes).first(where: { $0.type == fourCC("elst") }),
            elst.payload.count >= 8
        else { return (.forever, nil) }
        let p = elst.payload.lowerBound
        let version = bytes[p]
        let flags = be32(bytes, p) & 0xFF_FFFF
        guard flags == 1 else { return (.plays(1), nil) }
        let entries = Int(be32(bytes, p + 4))
        let entrySize = version == 1 ? 20 : 12
        guard entries >= 1, version <= 1, elst.payload.count >= 8 + entrySize else {
            return (.plays(1), "the edit list asks to repeat but holds no entry gifx can read; playing once")
        }
        let segment = version == 1 ? be64(bytes, p + 8) : UInt64(be32(bytes, p + 8))
        let warning = entries > 1 ? "the edit list has \(entries) entries; the loop is read from the first" : nil
        // The track's duration (in the movie's timescale, as segment_duration is).
        guard let tkhd = colour.first(where: { $0.type == fourCC("tkhd") }), tkhd.payload.count >= 4 else {
            return (.forever, warning)
        }
        let t = tkhd.payload.lowerBound
        let duration: UInt64
        if bytes[t] == 1 {
            guard tkhd.payload.count >= 36 else { return (.forever, warning) }
            duration = be64(bytes, t + 28)
        } else {
            guard tkhd.payload.count >= 24 else { return (.forever, warning) }
            let short = be32(bytes, t + 20)
            duration = short == UInt32.max ? UInt64.max : UInt64(short)
        }
        if duration == UInt64.max || segment == 0 { return (.forever, warning) }
        if duration == 0 { return (.plays(1), warning) }
        let plays = duration / segment + (duration % segment == 0 ? 0 : 1)
        if plays > UInt64(Int32.max) { return (.forever, warning) }
        return (.plays(Int(plays)), warning)
    }
}
