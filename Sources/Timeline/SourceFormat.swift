/// The container an animation was read from, which decides the unit of its stored delays
/// (docs/timeline.md, "Other formats"): GIF centiseconds, WebP milliseconds, APNG `num/den` seconds.
public enum SourceFormat: String, Codable, Sendable, CaseIterable {
    case gif, webp, apng

    /// What the error messages call it.
    public var displayName: String {
        switch self {
        case .gif: "GIF"
        case .webp: "WebP"
        case .apng: "PNG"
        }
    }
}

extension Timeline {
    /// `units` of this schedule (`delay`, `start`, `duration.units`) in milliseconds: × 10 for a GIF's
    /// cs, × 1 for WebP's ms, exact as a `Double` for a finer APNG time base.
    public func milliseconds(_ units: Int) -> Double {
        MediaTime(units, timescale: timescale).approximateMilliseconds
    }

    /// `units` in whole milliseconds, rounded to nearest (what a millisecond container such as WebP stores).
    public func wholeMilliseconds(_ units: Int) -> Int {
        // A schedule's units are at most a few hours at a 16-bit-denominator time base: ms always fit.
        (try? MediaTime(units, timescale: timescale).milliseconds()) ?? Int.max
    }

    /// `units` in whole centiseconds, rounded to nearest (outputs whose schema is in cs: sprite sheets' JSON).
    public func wholeCentiseconds(_ units: Int) -> Int {
        (try? MediaTime(units, timescale: timescale).centiseconds()) ?? Int.max
    }
}
