/// Why an `OutputPlan` has its rate: what was asked, and what the search or a cap decided. Structured so a
/// caller can word it in its own terms (the CLI names its flags); `description` is the library's wording.
public enum RateReason: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The tick rate, every delay exact.
    case tick(centiseconds: Int)
    /// A constant rate the caller asked for.
    case requestedRate(Rational)
    /// The automatic search found a common rate below the tick that shows every frame within 10 ms.
    case automaticLowest
    /// The automatic search kept the tick: no lower common rate shows every frame within 10 ms.
    case automaticTick(units: Int)
    /// The automatic search kept the tick: no common rate at all shows every frame within 10 ms.
    case automaticNoCommonRate(tickCentiseconds: Int)
    /// The rate the request gave exceeded the cap; `chosen` has the smallest worst start error under it.
    case capped(limit: Rational, asked: Rational, chosen: Rational)
    /// Variable frame rate: one sample per GIF frame.
    case variable
    /// A WebP's or APNG's tick (issue 35): `units` of `1 / timescale` s, for the reason `why` (one of the
    /// three tick reasons above, which name a GIF's tick in cs).
    case tickOfOtherFormat(units: Int, timescale: Int, why: TickReason)

    /// Which tick reason a `tickOfOtherFormat` stands for.
    public enum TickReason: String, Hashable, Sendable, Codable {
        case tick, automaticTick, automaticNoCommonRate
    }

    public var description: String {
        switch self {
        case .tick(let cs): return "tick \(cs) cs: every delay exact"
        case .requestedRate(let rate): return "requested rate \(rate)"
        case .automaticLowest: return "auto: lowest rate showing every frame within 10 ms"
        case .automaticTick(let cs):
            return "auto: no lower common rate shows every frame within 10 ms; tick \(cs) cs"
        case .automaticNoCommonRate(let cs):
            return "auto: no common rate shows every frame within 10 ms; tick \(cs) cs"
        case .capped(let limit, let asked, let chosen):
            return "rate cap \(limit): " + Self.cappedDetail(asked: asked, chosen: chosen)
        case .variable: return "vfr: one sample per GIF frame, each lasting its delay"
        case .tickOfOtherFormat(let units, let timescale, let why):
            let milliseconds = Rational(units * 1000, timescale)
            let tick = "tick \(milliseconds) ms"
            switch why {
            case .tick: return "\(tick): every delay exact"
            case .automaticTick: return "auto: no lower common rate shows every frame within 10 ms; \(tick)"
            case .automaticNoCommonRate: return "auto: no common rate shows every frame within 10 ms; \(tick)"
            }
        }
    }

    /// The part of a cap's wording after the limit, shared by every wording of it.
    public static func cappedDetail(asked: Rational, chosen: Rational) -> String {
        "\(asked) fps capped to \(chosen) fps (smallest worst start error)"
    }
}
