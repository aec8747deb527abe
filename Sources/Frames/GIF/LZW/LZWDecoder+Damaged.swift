/// The decoding state handed from the fast path to the damaged-stream path (giflib's counters).
struct LZWDamagedState {
    let codeSize: Int
    let total: Int
    var running: Int
    var codeWidth: Int
    var widthLimit: Int
    var last: Int
    var produced: Int
}

/// The rest of an image after a code the table does not define. giflib 5.2.1 does not stop there: it
/// emits the previous code's string followed by the byte 0x02 (its "no such code" marker, 4098, stored in
/// a byte), adds that as a table entry, and fails only later, when a string's chain reaches an undefined
/// code. Browsers differ here; gifx keeps giflib's reading so that damaged files decode as they always
/// have (docs/conformance.md, "a code beyond the table"). This path walks prefix chains code by code like
/// the spec's reference decoder: slow, but only damaged images take it.
extension LZWDecoder {
    func decodeDamaged(
        from firstCode: Int?, state: inout LZWDamagedState, nextFree: Int, data: ImageDataBlocks,
        reader: inout LZWBitReader, rows: inout LZWRowCursor, row: (Int, UnsafePointer<UInt8>) -> Void
    ) throws {
        let clear = 1 << state.codeSize, endCode = clear + 1
        let frame = UnsafeMutablePointer(output + Self.literalArea)
        // The fast path's table as prefix chains: each defined code's prefix and last byte.
        prefixes.update(repeating: UInt16(Self.noCode), count: Self.tableSize)
        if nextFree > clear + 2 {
            for code in (clear + 2)..<nextFree {
                let entry = table[code]
                prefixes[code] = entry.prefix
                suffixes[code] = output[Int(entry.position) + Int(entry.length) - 1]
            }
        }
        var pendingCode = firstCode
        while true {
            let code: Int
            if let first = pendingCode {
                code = first
                pendingCode = nil
            } else {
                code = reader.read(state.codeWidth)
                if reader.exhausted { throw data.dataEndError }
                if state.running < Self.tableSize + 1 {
                    state.running += 1
                    if state.running > state.widthLimit && state.codeWidth < 12 {
                        state.widthLimit <<= 1
                        state.codeWidth += 1
                    }
                }
            }
            try step(code, clear: clear, endCode: endCode, state: &state, frame: frame, data: data, reader: reader)
            if state.produced >= rows.nextEnd { rows.advance(to: state.produced, frame: frame, row) }
            if state.produced >= state.total { break }
        }
        try finishImage(data, rows: &rows, frame: frame, row)
    }

    /// One code, as giflib's line decoder treats it.
    private func step(
        _ code: Int, clear: Int, endCode: Int, state: inout LZWDamagedState, frame: UnsafeMutablePointer<UInt8>,
        data: ImageDataBlocks, reader: LZWBitReader
    ) throws {
        let newest = state.running - 2  // the entry this code defines
        if code == endCode {
            throw GifDecodeError(.malformed, at: data.fileOffset(afterByte: reader.lastByteIndex), LZWMessages.endTooSoon)
        }
        if code == clear {
            prefixes.update(repeating: UInt16(Self.noCode), count: Self.tableSize)
            state.running = endCode + 1
            state.codeWidth = state.codeSize + 1
            state.widthLimit = 1 << state.codeWidth
            state.last = -1
            return
        }
        let last = state.last < 0 ? Self.noCode : state.last
        if code < clear {
            frame[state.produced] = UInt8(truncatingIfNeeded: code)
            state.produced += 1
        } else {
            var depth = 0
            var chain: Int
            if Int(prefixes[code]) == Self.noCode {
                chain = last
                let first = firstByte(of: code == newest ? last : code, clear: clear)
                suffixes[newest] = UInt8(truncatingIfNeeded: first)
                stack[depth] = UInt8(truncatingIfNeeded: first)
                depth += 1
            } else {
                chain = code
            }
            while depth < Self.tableSize - 1 && chain > clear && chain < Self.tableSize {
                stack[depth] = suffixes[chain]
                depth += 1
                chain = Int(prefixes[chain])
            }
            if depth >= Self.tableSize - 1 || chain >= Self.tableSize {
                throw GifDecodeError(.malformed, at: data.fileOffset(afterByte: reader.lastByteIndex), LZWMessages.defect)
            }
            stack[depth] = UInt8(truncatingIfNeeded: chain)
            depth += 1
            let kept = Swift.min(depth, state.total - state.produced)
            for index in 0..<kept { frame[state.produced + index] = stack[depth - 1 - index] }
            state.produced += kept
        }
        if last != Self.noCode && newest < Self.tableSize && Int(prefixes[newest]) == Self.noCode {
            prefixes[newest] = UInt16(last)
            suffixes[newest] = UInt8(truncatingIfNeeded: firstByte(of: code == newest ? last : code, clear: clear))
        }
        state.last = code
    }

    /// The first byte of `code`'s string by its prefix chain: giflib's walk, bounded at 4096 steps, giving
    /// `noCode` when the chain leaves the table.
    private func firstByte(of start: Int, clear: Int) -> Int {
        var code = start
        var steps = 0
        while code > clear {
            if steps > Self.tableSize - 1 { break }
            steps += 1
            if code >= Self.tableSize { return Self.noCode }
            code = Int(prefixes[code])
        }
        return code
    }
}
