import GifxKit
import GifxTimeline

extension RateReason {
    /// The reason in the command line's terms: a requested rate or a cap is named by its flag (`--stats`' `timing`
    /// and `timeline --plan` word it so).
    var commandLineWording: String {
        switch self {
        case .requestedRate(let rate): return "--fps \(rate)"
        case .capped(let limit, let asked, let chosen):
            return "--max-fps \(limit): " + RateReason.cappedDetail(asked: asked, chosen: chosen)
        default: return description
        }
    }
}

/// `--stats`' words for the facts a kind's figures carry: a video's reason for its rate names the flag that asked
/// for it (`--fps 30`, `--max-fps 60: …`, `--level 3.1 (at most … fps at WxH): …`).
struct CommandLineStatsWording: StatsWording {
    func rateReason(_ choice: VideoRateChoice) -> String {
        switch choice {
        case .plan(let reason): return reason.commandLineWording
        case .levelCap(let level, let limit, let size, let asked, let chosen):
            return "--level \(level) (at most \(limit) fps at \(size.width)x\(size.height)): "
                + RateReason.cappedDetail(asked: asked, chosen: chosen)
        }
    }
}
