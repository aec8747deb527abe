/// The access unit `bytes` (Annex B) with some NAL units' payloads replaced: the one loop of the H.264 and HEVC
/// splicers' rewrites (`H264RepeatSplicer`, `H264ReferenceRepeatSplicer`, `HEVCRepeatSplicer`). `replacement` is
/// called with each unit's range, in order, and returns the unit's new RBSP (its payload past the
/// `headerLength`-byte NAL header, unescaped), or `nil` to keep the unit as it is; the new RBSP is escaped again
/// behind the unit's own start code and header. Returns `nil` when no unit was replaced.
func replacingNALUnits(
    in bytes: UnsafeBufferPointer<UInt8>, headerLength: Int, _ replacement: (Range<Int>) throws -> [UInt8]?
) rethrows -> [UInt8]? {
    var out: [UInt8]?
    var copied = 0  // bytes of `bytes` already in `out`
    for unit in annexBUnits(bytes) {
        guard let rbsp = try replacement(unit) else { continue }
        if out == nil { out = []; out!.reserveCapacity(bytes.count + 8) }
        out!.append(contentsOf: bytes[copied..<(unit.lowerBound + headerLength)])  // up to and with the NAL header
        out!.append(contentsOf: escapeRBSP(rbsp))
        copied = unit.upperBound
    }
    if out != nil { out!.append(contentsOf: bytes[copied...]) }
    return out
}
