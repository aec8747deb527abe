import Foundation

/// `format=auto` (docs/serve.md, "format=auto"): the answer's format chosen from the request's `Accept`, as an
/// image CDN chooses for an `<img>` tag: AVIF where `image/avif` is acceptable, else WebP where `image/webp` is,
/// else the source itself, passed through with its own type.
///
/// - q-values are honoured: the one of the range that names the type exactly; `q=0` is "not acceptable"; the higher
///   of AVIF's and WebP's wins, a tie goes to AVIF (the smaller at the same quality).
/// - Wildcards (`image/*`, `*/*`) do not choose AVIF or WebP by themselves: every browser sends one, including those
///   that decode neither (Safari 13's `image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5`), so only a type named
///   outright is taken as a promise to play it.
/// - A range with a `q` that is not a number from 0 to 1 is ignored, as RFC 9110 leaves a malformed weight.
enum AutoFormat: String, Sendable, Equatable {
    case avif, webp
    /// Neither is acceptable: the source, as it came.
    case source

    /// `format=`'s value that asks for this choice.
    static let formatName = "auto"

    /// The choice for an `Accept` field's value (`nil` when the request has none: neither AVIF nor WebP is named).
    static func choose(accept: String?) -> AutoFormat {
        let weights = AcceptWeights(accept ?? "")
        let avif = weights.weight(of: "image/avif"), webp = weights.weight(of: "image/webp")
        if avif > 0 && avif >= webp { return .avif }
        if webp > 0 { return .webp }
        return .source
    }
}

/// An `Accept` value's media ranges with their weights (RFC 9110 §12.5.1), as far as `format=auto` reads them: the
/// weight of a type named outright.
struct AcceptWeights: Sendable {
    /// Each range named (lower case, parameters other than `q` dropped) and its weight, in the order given.
    private(set) var ranges: [(type: String, weight: Double)] = []

    init(_ value: String) {
        for element in value.split(separator: ",") {
            let parts = element.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let type = parts.first?.lowercased(), !type.isEmpty else { continue }
            var weight = 1.0
            var malformed = false
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard pair.count == 2, pair[0].lowercased() == "q" else { continue }
                if let q = Self.qvalue(pair[1]) { weight = q } else { malformed = true }
            }
            if !malformed { ranges.append((type, weight)) }
        }
    }

    /// The weight of `type` named outright (the highest, if it is named twice); 0 when it is not named.
    func weight(of type: String) -> Double {
        ranges.filter { $0.type == type }.map(\.weight).max() ?? 0
    }

    /// `qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )`.
    static func qvalue(_ text: String) -> Double? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, whole == "0" || whole == "1" else { return nil }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard fraction.count <= 3, fraction.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        if whole == "1" && fraction.contains(where: { $0 != "0" }) { return nil }
        return Double("\(whole).\(fraction)0")
    }
}
