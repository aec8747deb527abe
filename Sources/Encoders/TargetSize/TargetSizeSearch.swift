import Foundation

/// The search for the best quality whose output fits a size cap (`--target-size`): a pure plan over encodes
/// already made. Each encode is a rate factor (CRF, or WebP's quality turned into one) and the bytes it gave;
/// `next` says which factor to try next, or `nil` when the search is over.
///
/// The model is that of the encoders' rate control: an output's size falls geometrically with the rate factor
/// (x264 and x265 halve the bitrate about every 6 CRF). The first estimate uses that slope; once two encodes
/// are known, the slope between the two nearest the target replaces it (a secant on log size). The search
/// aims at 95 % of the cap and stops at the first encode within [90 %, 100 %] of it, when the best quality
/// allowed already fits, when the worst does not, or after `maximumEncodes`.
package struct TargetSizeSearch: Sendable, Hashable {
    /// One encode: the rate factor used and the bytes it wrote.
    package struct Attempt: Codable, Sendable, Hashable {
        package var factor: Double
        package var bytes: Int
        package init(factor: Double, bytes: Int) { self.factor = factor; self.bytes = bytes }
    }

    /// The cap in bytes.
    package let target: Int
    /// Rate factors allowed: the lower bound is the best quality worth its bytes, the upper the worst.
    package let range: ClosedRange<Double>
    /// Rate-factor change that halves the size, for the first estimate.
    package let halvingStep: Double
    /// Whether the encoder takes whole factors only (libvpx, SVT-AV1, libwebp quality).
    package let wholeSteps: Bool
    /// At most this many encodes in all (the bound: 3).
    package let maximumEncodes: Int
    package private(set) var attempts: [Attempt] = []

    package static let lowestShare = 0.90
    package static let aimedShare = 0.95

    package init(target: Int, range: ClosedRange<Double>, halvingStep: Double, wholeSteps: Bool, maximumEncodes: Int = 3) {
        self.target = target; self.range = range; self.halvingStep = halvingStep
        self.wholeSteps = wholeSteps; self.maximumEncodes = maximumEncodes
    }

    /// Records an encode.
    package mutating func record(_ attempt: Attempt) { attempts.append(attempt) }

    /// The encode to keep: the largest that fits (the best quality under the cap); `nil` when none fits.
    package var best: Attempt? { attempts.filter { $0.bytes <= target }.max { $0.bytes < $1.bytes } }

    /// Whether an encode is as good as the search can do: within [90 %, 100 %] of the cap.
    package func isWithinWindow(_ attempt: Attempt) -> Bool {
        attempt.bytes <= target && Double(attempt.bytes) >= Self.lowestShare * Double(target)
    }

    /// The next factor to try, or `nil`: the search is over (see the type's description).
    package var next: Double? {
        guard let last = attempts.last, attempts.count < maximumEncodes else { return nil }
        if let best, isWithinWindow(best) { return nil }
        // The best quality allowed already fits below the window: nothing better to try.
        if attempts.contains(where: { $0.factor <= range.lowerBound && $0.bytes <= target }) { return nil }
        // The worst quality allowed does not fit: nothing smaller to try.
        if attempts.contains(where: { $0.factor >= range.upperBound && $0.bytes > target }) { return nil }
        let aim = Self.aimedShare * Double(target)
        var slope = -log(2) / halvingStep  // d ln(bytes) / d factor
        // Two encodes: the secant through the two nearest the aim (in log size), when it falls as it should.
        let nearest = attempts.sorted { abs(log(Double($0.bytes) / aim)) < abs(log(Double($1.bytes) / aim)) }
        var anchor = last
        if nearest.count >= 2 {
            let a = nearest[0], b = nearest[1]
            anchor = a
            if a.factor != b.factor {
                let secant = (log(Double(a.bytes)) - log(Double(b.bytes))) / (a.factor - b.factor)
                if secant < 0 { slope = secant }
            }
        }
        var factor = anchor.factor + (log(aim) - log(Double(max(anchor.bytes, 1)))) / slope
        factor = min(max(factor, range.lowerBound), range.upperBound)
        // Within a step of a bound, the bound itself: an encode just inside it would tell nothing more.
        if factor < range.lowerBound + 1 { factor = range.lowerBound }
        if factor > range.upperBound - 1 { factor = range.upperBound }
        factor = wholeSteps ? factor.rounded() : (factor * 10).rounded() / 10
        // Keep between the tightest known fitting (lower bytes) and overflowing (higher bytes) factors.
        let fitting = attempts.filter { $0.bytes <= target }.map(\.factor)
        let overflowing = attempts.filter { $0.bytes > target }.map(\.factor)
        if let worse = overflowing.max(), factor <= worse {
            factor = worse + (wholeSteps ? 1 : 0.1)
        }
        if let fits = fitting.min(), factor >= fits, fits > range.lowerBound {
            factor = fits - (wholeSteps ? 1 : 0.1)
        }
        factor = min(max(factor, range.lowerBound), range.upperBound)
        if attempts.contains(where: { abs($0.factor - factor) < 0.05 }) { return nil }
        return factor
    }
}
