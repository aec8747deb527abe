/// An exact span (or instant) of media time: `value / timescale` seconds, kept reduced.
///
/// Every reader measures time in its own unit: a GIF in centiseconds, a WebP in milliseconds, an APNG in
/// `num/den` seconds per frame, and a video's plan in output frames at a rate. A bare integer of any of those
/// carries no unit, and a writer that multiplies it by the wrong constant declares a duration ten times too long
/// (a WebP's milliseconds read as centiseconds). A `MediaTime` carries its timescale, so the conversions to the
/// units a container wants (microseconds for libavformat's header, milliseconds, a container timescale) live
/// here, exact and checked, and nowhere else.
///
/// Arithmetic is exact. A result that does not fit in `Int` throws ``MediaTimeOverflow`` instead of wrapping.
public struct MediaTime: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The numerator: a whole number of `1 / timescale` s.
    public let value: Int
    /// Units per second (positive).
    public let timescale: Int

    /// `value / timescale` seconds, reduced. `timescale` must be positive.
    public init(_ value: Int, timescale: Int) {
        precondition(timescale > 0, "a timescale must be positive")
        let divisor = Swift.max(1, gcd(value, timescale))
        self.value = value / divisor
        self.timescale = timescale / divisor
    }

    /// `seconds` (a rational number of seconds) as a media time.
    public init(seconds: Rational) {
        self.init(seconds.num, timescale: seconds.den)
    }

    public static let zero = MediaTime(0, timescale: 1)

    /// The time in seconds as a rational.
    public var rationalSeconds: Rational { Rational(value, timescale) }

    /// The time in seconds, for people and for floating-point consumers (never for arithmetic on time).
    public var seconds: Double { Double(value) / Double(timescale) }

    /// This time `count` times over (a duration × plays). Throws where it does not fit.
    public func multiplied(by count: Int) throws(MediaTimeOverflow) -> MediaTime {
        let (product, overflow) = value.multipliedReportingOverflow(by: count)
        if overflow { throw MediaTimeOverflow(operation: "\(self) × \(count)") }
        return MediaTime(product, timescale: timescale)
    }

    /// The sum of two times, exact. Throws where it does not fit.
    public static func adding(_ a: MediaTime, _ b: MediaTime) throws(MediaTimeOverflow) -> MediaTime {
        let common = a.timescale / gcd(a.timescale, b.timescale)
        let (scale, o1) = common.multipliedReportingOverflow(by: b.timescale)
        let (left, o2) = a.value.multipliedReportingOverflow(by: scale / a.timescale)
        let (right, o3) = b.value.multipliedReportingOverflow(by: scale / b.timescale)
        let (sum, o4) = left.addingReportingOverflow(right)
        if o1 || o2 || o3 || o4 { throw MediaTimeOverflow(operation: "\(a) + \(b)") }
        return MediaTime(sum, timescale: scale)
    }

    /// Whole units of `1 / unitsPerSecond` s, rounded to the nearest (halves away from zero): a container's
    /// timescale, microseconds (`1_000_000`), milliseconds (`1000`). Throws where it does not fit.
    public func rounded(toUnitsPerSecond unitsPerSecond: Int) throws(MediaTimeOverflow) -> Int {
        precondition(unitsPerSecond > 0, "units per second must be positive")
        let (scaled, overflow) = value.multipliedReportingOverflow(by: unitsPerSecond)
        if overflow { throw MediaTimeOverflow(operation: "\(self) in 1/\(unitsPerSecond) s") }
        let (quotient, remainder) = scaled.quotientAndRemainder(dividingBy: timescale)
        // Halves away from zero (2 × |remainder| < 2 × timescale fits in UInt).
        if 2 * remainder.magnitude >= timescale.magnitude { return quotient + (scaled < 0 ? -1 : 1) }
        return quotient
    }

    /// Microseconds, rounded to the nearest (libavformat's `AVFormatContext.duration` unit).
    public func microseconds() throws(MediaTimeOverflow) -> Int { try rounded(toUnitsPerSecond: 1_000_000) }

    /// Milliseconds, rounded to the nearest (WebP's frame-duration unit).
    public func milliseconds() throws(MediaTimeOverflow) -> Int { try rounded(toUnitsPerSecond: 1000) }

    /// Centiseconds, rounded to the nearest (GIF's delay unit, and the JSON fields whose schema is in cs).
    public func centiseconds() throws(MediaTimeOverflow) -> Int { try rounded(toUnitsPerSecond: 100) }

    /// The time in milliseconds as a floating-point number (`value × 1000 / timescale`, one rounding), for the
    /// verifier's error figures and people; never for arithmetic on time.
    public var approximateMilliseconds: Double { Double(value) * 1000 / Double(timescale) }

    /// Seconds in decimal, as a header or a log line shows them: at least `minimumPlaces` decimals (`0.28`), more
    /// where the value needs them (`0.245`), up to six; a time finer than a microsecond (1/30 s) is rounded to
    /// the nearest microsecond (`0.033333`). Throws where the microseconds do not fit.
    public func decimalSeconds(minimumPlaces: Int = 2) throws(MediaTimeOverflow) -> String {
        let micro = try microseconds()
        let (whole, part) = micro.magnitude.quotientAndRemainder(dividingBy: 1_000_000)
        var fraction = String(part)
        fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
        while fraction.count > Swift.max(0, minimumPlaces) && fraction.hasSuffix("0") { fraction.removeLast() }
        return (micro < 0 ? "-" : "") + "\(whole)" + (fraction.isEmpty ? "" : ".\(fraction)")
    }

    public static func < (a: MediaTime, b: MediaTime) -> Bool {
        // Cross-multiplied in double width: exact for every pair of Int numerators and timescales.
        let left = a.value.multipliedFullWidth(by: b.timescale)
        let right = b.value.multipliedFullWidth(by: a.timescale)
        return (left.high, left.low) < (right.high, right.low)
    }

    public var description: String { timescale == 1 ? "\(value) s" : "\(value)/\(timescale) s" }
}

/// A media-time computation whose result does not fit in a 64-bit integer: a schedule too long to write.
public struct MediaTimeOverflow: Error, Hashable, Sendable, CustomStringConvertible {
    /// The computation, in words (`"1/100 s × 9223372036854775807"`).
    public var operation: String
    public var description: String { "the media time \(operation) does not fit in 64 bits" }
}
