/// A code's string in the code table: where it already stands in the decoder's output and how long it
/// is, so a code is emitted with one forward copy of its whole string (a string always appeared in full
/// earlier in the same image: a new code is the previous code's string plus the first byte of the next).
/// `prefix` (the code it extends) is kept for the rare damaged stream, see `LZWDecoder+Damaged.swift`.
struct LZWEntry {
    var position: UInt32
    var length: UInt16
    var prefix: UInt16
}

/// gifx's GIF LZW decoder (written from the GIF89a spec, appendix F): turns one image's joined sub-blocks
/// (`ImageDataBlocks`) into colour indices in decode order and hands each completed row, with its image row
/// (interlace resolved per row), to the caller while it is still in cache; the caller composites it.
///
/// Output goes to one buffer: 256 bytes holding 0...255 (the strings of the literal codes) followed by the
/// image's indices, so every code, literal or not, is a copy from earlier in the buffer, done 8 bytes at a
/// time. Codes beyond the table or a code table that stops making sense switch, for the rest of the image,
/// to a slower path that reproduces giflib 5.2.1's reading of damaged data exactly (the oracle; see
/// docs/conformance.md): what is kept, which error is given and at which byte, is the same as before.
final class LZWDecoder {
    /// Output offset of an image's first index (the literal strings come first).
    static let literalArea = 256
    /// Most codes a table holds (12-bit codes).
    static let tableSize = 4096
    /// giflib's "no such code" marker, also the first-byte value of a code with no string (truncated to
    /// a byte, 0x02, as giflib stores it).
    static let noCode = 4098

    let table: UnsafeMutablePointer<LZWEntry>
    /// The first 8 bytes of each code's string (zero after its end): a string of up to 8 bytes is written
    /// with one store and no load from the output (loads from just-written output stall on store
    /// forwarding); longer ones copy only their tail from the output.
    let heads: UnsafeMutablePointer<UInt64>
    private(set) var output: UnsafeMutablePointer<UInt8>
    private var outputCapacity: Int
    /// The damaged-stream path's tables (prefix code and last byte per code) and its string stack.
    let prefixes: UnsafeMutablePointer<UInt16>
    let suffixes: UnsafeMutablePointer<UInt8>
    let stack: UnsafeMutablePointer<UInt8>

    init() {
        table = .allocate(capacity: Self.tableSize)
        table.initialize(repeating: LZWEntry(position: 0, length: 1, prefix: 0), count: Self.tableSize)
        heads = .allocate(capacity: Self.tableSize)
        heads.initialize(repeating: 0, count: Self.tableSize)
        outputCapacity = 0
        output = .allocate(capacity: 0)
        prefixes = .allocate(capacity: Self.tableSize)
        prefixes.initialize(repeating: UInt16(Self.noCode), count: Self.tableSize)
        suffixes = .allocate(capacity: Self.tableSize)
        suffixes.initialize(repeating: 0, count: Self.tableSize)
        stack = .allocate(capacity: Self.tableSize + 2)
        stack.initialize(repeating: 0, count: Self.tableSize + 2)
    }

    deinit {
        table.deallocate(); heads.deallocate(); output.deallocate(); prefixes.deallocate(); suffixes.deallocate(); stack.deallocate()
    }

    /// Room for an image of `pixels` indices, the literal strings before it and one 8-byte copy past it.
    private func prepareOutput(pixels: Int) {
        let needed = Self.literalArea + pixels + 16
        if needed > outputCapacity {
            output.deallocate()
            output = .allocate(capacity: needed)
            output.initialize(repeating: 0, count: needed)
            outputCapacity = needed
            for byte in 0..<Self.literalArea { output[byte] = UInt8(byte) }
        }
    }

    /// Decodes a `width`×`height` image from `data`, calling `row(imageRow, indices)` for each row in decode
    /// order as soon as it is complete (`width` indices). Throws the damage giflib would report, after the
    /// rows giflib would have delivered: every complete row before the damage; the last row only when the
    /// sub-blocks end with their terminator.
    func decode(
        _ data: ImageDataBlocks, width: Int, height: Int, interlaced: Bool,
        row: (_ imageRow: Int, _ indices: UnsafePointer<UInt8>) -> Void
    ) throws {
        let total = width * height
        guard total > 0 else { return }
        prepareOutput(pixels: total)
        let base = output
        let frame = base + Self.literalArea
        let table = self.table, heads = self.heads
        let codeSize = data.codeSize
        let clear = 1 << codeSize, endCode = clear + 1
        for code in 0..<clear {
            table[code] = LZWEntry(position: UInt32(code), length: 1, prefix: 0)
            heads[code] = UInt64(code)
        }
        // Length 0 marks the two control codes, so one comparison (`code < nextFree`) finds every code the
        // table can copy.
        table[clear] = LZWEntry(position: 0, length: 0, prefix: 0)
        table[endCode] = LZWEntry(position: 0, length: 0, prefix: 0)
        var reader = LZWBitReader(data)
        var rows = LZWRowCursor(width: width, height: height, interlaced: interlaced)
        if codeSize < 2 {
            // giflib widens codes on the first code after a clear for these sizes, which GIF encoders never
            // write; the chain-walking path follows its counters exactly.
            var state = LZWDamagedState(
                codeSize: codeSize, total: total, running: endCode + 1, codeWidth: codeSize + 1,
                widthLimit: 1 << (codeSize + 1), last: -1, produced: 0)
            return try decodeDamaged(from: nil, state: &state, nextFree: clear + 2, data: data, reader: &reader, rows: &rows, row: row)
        }

        // Positions are absolute in `output`; the image runs from `literalArea` to `end`.
        let end = Self.literalArea + total
        var position = Self.literalArea
        var rowEnd = rows.nextEnd == Int.max ? Int.max : Self.literalArea + rows.nextEnd
        var codeWidth = codeSize + 1
        var nextFree = clear + 2
        /// Width doubles when `nextFree` reaches this (never past 12 bits).
        var widenAt = 1 << codeWidth
        /// The previous code, packed: where its string was written (low 32 bits), its length (next 16) and
        /// the code (top 16); and its head. The next code defines "previous string + one byte" from these.
        var previous: UInt64 = 0
        var previousHead: UInt64 = 0

        // After a clear code (and at the start) the first code is a literal and defines nothing.
        firstCode: while true {
            let code = reader.read(codeWidth)
            if reader.exhausted { throw data.dataEndError }
            if code == clear { continue }
            guard code < clear else {
                if code == endCode {
                    throw GifDecodeError(.malformed, at: data.fileOffset(afterByte: reader.lastByteIndex), LZWMessages.endTooSoon)
                }
                var state = LZWDamagedState(
                    codeSize: codeSize, total: total, running: endCode + 2, codeWidth: codeWidth,
                    widthLimit: 1 << codeWidth, last: -1, produced: position - Self.literalArea)
                return try decodeDamaged(from: code, state: &state, nextFree: nextFree, data: data, reader: &reader, rows: &rows, row: row)
            }
            base[position] = UInt8(truncatingIfNeeded: code)
            previous = UInt64(position) | 1 << 32 | UInt64(code) << 48
            previousHead = UInt64(code)
            position &+= 1
            if position >= rowEnd {
                rows.advance(to: position - Self.literalArea, frame: frame, row)
                rowEnd = rows.nextEnd == Int.max ? Int.max : Self.literalArea + rows.nextEnd
            }
            if position >= end { break }

            while true {
                let code = reader.read(codeWidth)
                if reader.exhausted { throw data.dataEndError }
                let previousLength = Int(truncatingIfNeeded: (previous >> 32) & 0xFFFF)
                var length: Int
                let head: UInt64
                let source: Int
                if code < nextFree {
                    let entry = table[code]
                    length = Int(entry.length)
                    if length == 0 {
                        if code == endCode {
                            throw GifDecodeError(.malformed, at: data.fileOffset(afterByte: reader.lastByteIndex), LZWMessages.endTooSoon)
                        }
                        codeWidth = codeSize + 1; nextFree = clear + 2; widenAt = 1 << codeWidth
                        continue firstCode
                    }
                    head = heads[code]
                    source = Int(entry.position)
                } else if code == nextFree {
                    // The code being defined: the previous string plus its own first byte.
                    length = previousLength &+ 1
                    head = previousLength < 8 ? previousHead | (previousHead & 0xFF) &<< UInt64(previousLength &* 8) : previousHead
                    source = Int(truncatingIfNeeded: previous & 0xFFFF_FFFF)
                } else {
                    // giflib's counters: `running` is two past the entry being defined (capped at 4097), and
                    // giflib widens on reading the code, where this path widens after defining its entry.
                    let running = Swift.min(nextFree + 2, Self.tableSize + 1)
                    let widens = running > 1 << codeWidth && codeWidth < 12
                    var state = LZWDamagedState(
                        codeSize: codeSize, total: total, running: running,
                        codeWidth: widens ? codeWidth + 1 : codeWidth, widthLimit: widens ? 2 << codeWidth : 1 << codeWidth,
                        last: Int(truncatingIfNeeded: previous >> 48), produced: position - Self.literalArea)
                    return try decodeDamaged(from: code, state: &state, nextFree: nextFree, data: data, reader: &reader, rows: &rows, row: row)
                }
                // The head with one store (the output has 16 bytes of room past the image), then the tail.
                UnsafeMutableRawPointer(base + position).storeBytes(of: head, as: UInt64.self)
                if length > end &- position { length = end &- position }
                if length > 8 { copyString(from: base + (source &+ 8), to: base + (position &+ 8), count: length &- 8) }
                if nextFree < Self.tableSize {
                    let first = head & 0xFF
                    heads[nextFree] = previousLength < 8 ? previousHead | first &<< UInt64(previousLength &* 8) : previousHead
                    table[nextFree] = LZWEntry(
                        position: UInt32(truncatingIfNeeded: previous), length: UInt16(truncatingIfNeeded: previousLength &+ 1),
                        prefix: UInt16(truncatingIfNeeded: previous >> 48))
                    nextFree &+= 1
                    if nextFree == widenAt && codeWidth < 12 { codeWidth &+= 1; widenAt &<<= 1 }
                }
                previous = UInt64(truncatingIfNeeded: position) | UInt64(truncatingIfNeeded: length) << 32 | UInt64(truncatingIfNeeded: code) << 48
                previousHead = head
                position &+= length
                if position >= rowEnd {
                    rows.advance(to: position - Self.literalArea, frame: frame, row)
                    rowEnd = rows.nextEnd == Int.max ? Int.max : Self.literalArea + rows.nextEnd
                }
                if position >= end { break firstCode }
            }
        }
        try finishImage(data, rows: &rows, frame: frame, row)
    }

    /// Every index is there: giflib then reads the remaining sub-blocks up to the terminator and only then
    /// delivers the last row, so a chain cut short costs that row.
    func finishImage(
        _ data: ImageDataBlocks, rows: inout LZWRowCursor, frame: UnsafePointer<UInt8>,
        _ row: (Int, UnsafePointer<UInt8>) -> Void
    ) throws {
        if let failure = data.readFailure { throw failure }
        rows.deliverLast(frame: frame, row)
    }
}

/// Copies `count` bytes forward, 8 at a time, possibly writing up to 7 bytes past the end (the output
/// buffer has room). Correct when `destination` is at least `count` bytes after `source`, which holds for
/// every string of the table: it stands in full before the position being written.
@inline(__always)
func copyString(from source: UnsafePointer<UInt8>, to destination: UnsafeMutablePointer<UInt8>, count: Int) {
    var from = UnsafeRawPointer(source)
    var to = UnsafeMutableRawPointer(destination)
    var left = count
    repeat {
        to.storeBytes(of: from.loadUnaligned(as: UInt64.self), as: UInt64.self)
        from += 8; to += 8; left &-= 8
    } while left > 0
}

/// Reads LSB-first codes from joined sub-blocks, refilling 64 bits at a time (the data is zero-padded).
struct LZWBitReader {
    private let bytes: UnsafePointer<UInt8>
    private let count: Int
    private var position = 0
    private var buffer: UInt64 = 0
    private var bitCount = 0

    init(_ data: ImageDataBlocks) {
        bytes = UnsafePointer(data.bytes)
        count = data.count
    }

    @inline(__always) mutating func read(_ width: Int) -> Int {
        if bitCount < width {
            let word = UInt64(littleEndian: UnsafeRawPointer(bytes + position).loadUnaligned(as: UInt64.self))
            buffer |= word &<< UInt64(bitCount)
            let taken = (63 &- bitCount) &>> 3
            position &+= taken
            bitCount &+= taken &<< 3
        }
        let code = Int(truncatingIfNeeded: buffer & ((1 &<< UInt64(width)) &- 1))
        buffer &>>= UInt64(width)
        bitCount &-= width
        return code
    }

    /// Bits taken by the codes read so far.
    var consumedBits: Int { position &* 8 &- bitCount }
    /// Whether the last code read needed bits beyond the data.
    var exhausted: Bool { position > count && consumedBits > count &* 8 }
    /// Index of the last data byte a byte-at-a-time reader would have fetched.
    var lastByteIndex: Int { (consumedBits + 7) / 8 - 1 }
}

/// Which rows of the decode-order output are complete and not yet handed out. The last row is held back
/// until the image's data is known to end properly (see `LZWDecoder.finishImage`).
struct LZWRowCursor {
    let width: Int
    let lastRow: Int
    let order: InterlacedRows
    private(set) var delivered = 0
    /// Indices needed before row `delivered` is complete (`Int.max` once only the last row is left).
    private(set) var nextEnd: Int

    init(width: Int, height: Int, interlaced: Bool) {
        self.width = width
        lastRow = height - 1
        order = InterlacedRows(height: height, interlaced: interlaced)
        nextEnd = height > 1 ? width : Int.max
    }

    /// Rows completed by `produced` indices (all but the last row).
    @inline(__always) mutating func advance(
        to produced: Int, frame: UnsafePointer<UInt8>, _ row: (Int, UnsafePointer<UInt8>) -> Void
    ) {
        while produced >= nextEnd {
            row(order.imageRow(delivered), frame + delivered &* width)
            delivered &+= 1
            nextEnd = delivered < lastRow ? (delivered &+ 1) &* width : Int.max
        }
    }

    mutating func deliverLast(frame: UnsafePointer<UInt8>, _ row: (Int, UnsafePointer<UInt8>) -> Void) {
        row(order.imageRow(lastRow), frame + lastRow * width)
        delivered = lastRow + 1
    }
}
