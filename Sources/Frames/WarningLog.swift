/// Warnings about damaged data, kept to a fixed number of lines: a hostile file can damage every one of
/// a million frames, and one line per frame would grow memory and stderr with the frame count (and a
/// copied array per frame made decoding quadratic). The first `limit` lines are kept; the rest are counted
/// and summarised in one closing line.
struct WarningLog: Hashable, Sendable {
    /// Lines kept before the rest are only counted.
    static let limit = 100

    private var kept: [String] = []
    /// Warnings added beyond `limit`.
    private(set) var suppressed = 0

    /// Every warning added so far (kept or not): changes exactly when `lines` does.
    var total: Int { kept.count + suppressed }

    mutating func append(_ line: String) {
        if kept.count < Self.limit { kept.append(line) } else { suppressed += 1 }
    }

    /// The kept lines, plus a summary line when some were dropped.
    var lines: [String] {
        suppressed == 0 ? kept : kept + ["\(suppressed) more warnings like these not shown"]
    }
}
