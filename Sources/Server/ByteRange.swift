import Foundation

/// The one range a `Range` header asks of an object of `size` bytes (RFC 9110 §14): the whole object (no range,
/// several ranges, or one that cannot be read), a part, or none at all (416).
enum ByteRange: Equatable {
    case whole, part(Range<Int>), unsatisfiable

    /// One `bytes=a-b`, `a-` or `-n` range (several ranges: the whole object, as RFC 9110 allows).
    init(_ text: String, size: Int) {
        self = Self.parse(text, size: size)
    }

    private static func parse(_ text: String, size: Int) -> ByteRange {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("bytes="), !trimmed.contains(",") else { return .whole }
        let spec = trimmed.dropFirst(6)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return .whole }
        if parts[0].isEmpty {
            guard let suffix = Int(parts[1]), suffix > 0 else { return .unsatisfiable }
            return size == 0 ? .unsatisfiable : .part(max(0, size - suffix)..<size)
        }
        guard let first = Int(parts[0]), first >= 0 else { return .whole }
        guard first < size else { return .unsatisfiable }
        if parts[1].isEmpty { return .part(first..<size) }
        guard let last = Int(parts[1]), last >= first else { return .whole }
        return .part(first..<min(size, last + 1))
    }
}

/// `If-None-Match` against an entity tag (weak comparison, `*`).
enum EntityTag {
    static func matches(_ ifNoneMatch: String, _ eTag: String) -> Bool {
        ifNoneMatch.split(separator: ",").contains { item in
            let tag = item.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == eTag || tag == "W/" + eTag
        }
    }
}
