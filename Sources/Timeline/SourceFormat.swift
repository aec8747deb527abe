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
