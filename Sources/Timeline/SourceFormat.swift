/// The container an animation was read from, which decides the unit of its stored delays
/// (docs/timeline.md, "Other formats"): GIF centiseconds, WebP milliseconds, APNG `num/den` seconds, or a
/// container's own time base (`TimelineInput.sourceTimescale`).
///
/// Open, not a closed enum: an input format declares its own value in its folder (`Sources/Frames/<format>/`,
/// beside its probe and reader), so adding a format touches no switch here. Two values are equal when their
/// `rawValue`s are; it is written to JSON as that string.
public struct SourceFormat: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible {
    /// The schedule's name for it (the timeline JSON's `format`): `gif`, `webp`, `apng`, ...
    public let rawValue: String
    /// What the error messages call it.
    public let displayName: String

    public init(rawValue: String, displayName: String) {
        self.rawValue = rawValue
        self.displayName = displayName
    }

    /// A format named in JSON: its display name from the formats this module knows, else the name in capitals.
    public init(rawValue: String) {
        self = Self.known.first { $0.rawValue == rawValue } ?? SourceFormat(rawValue: rawValue, displayName: rawValue.uppercased())
    }

    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static func == (a: SourceFormat, b: SourceFormat) -> Bool { a.rawValue == b.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    public var description: String { rawValue }

    public static let gif = SourceFormat(rawValue: "gif", displayName: "GIF")
    public static let webp = SourceFormat(rawValue: "webp", displayName: "WebP")
    public static let apng = SourceFormat(rawValue: "apng", displayName: "PNG")

    /// The formats whose units this module decides itself (GIF cs, WebP ms, APNG num/den).
    static let known: [SourceFormat] = [.gif, .webp, .apng]
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
