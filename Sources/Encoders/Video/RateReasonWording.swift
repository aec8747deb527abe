import GifxTimeline

extension RateReason {
    /// The reason in the command line's terms: a requested rate or a cap is named by its flag (`--stats`' `timing`
    /// and `timeline --plan` word it so).
    package var commandLineWording: String {
        switch self {
        case .requestedRate(let rate): return "--fps \(rate)"
        case .capped(let limit, let asked, let chosen):
            return "--max-fps \(limit): " + RateReason.cappedDetail(asked: asked, chosen: chosen)
        default: return description
        }
    }
}
