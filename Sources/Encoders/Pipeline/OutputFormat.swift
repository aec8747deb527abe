/// Every kind of file gifx writes, by the names users give it: the one list that `convert -o` (its prefixes and
/// extensions), `batch convert --formats` and `verify` (which checks a file by its extension) read, so a new
/// kind is added here once.
package enum OutputFormat: String, CaseIterable, Sendable {
    // The order is the order every list of names shows them in (help texts and errors).
    case mp4, webm, avif, webp, png, jpg
    case timelineJSON = "timeline.json"
    /// A sprite sheet: PNG page(s) and the JSON or Godot `.tres` that describes them.
    case sheet

    /// The names a `convert -o` prefix may give it (`mp4:-`); none for the sheet, which has its own `--sheet`.
    package var prefixNames: [String] {
        switch self {
        case .jpg: ["jpg", "jpeg"]
        case .timelineJSON: ["timeline", "json"]
        case .sheet: []
        default: [rawValue]
        }
    }

    /// The prefix names `convert -o` takes, one per format, for messages: `mp4, webm, avif, webp, png, jpg, timeline`.
    package static var prefixList: String { allCases.compactMap(\.prefixNames.first).joined(separator: ", ") }

    /// A format by its `convert -o` prefix name (any letter case).
    package init?(prefixName: String) {
        let name = prefixName.lowercased()
        guard let format = Self.allCases.first(where: { $0.prefixNames.contains(name) }) else { return nil }
        self = format
    }

    /// The endings of a path that name it (any letter case); `.timeline.json` is the timeline's before the sheet's `.json`.
    package var extensions: [String] {
        switch self {
        case .jpg: [".jpg", ".jpeg"]
        case .timelineJSON: [".timeline.json"]
        case .sheet: [".json", ".tres"]
        default: ["." + rawValue]
        }
    }

    /// The format a path's ending names, `nil` when none does.
    package init?(path: String) {
        let lower = path.lowercased()
        guard let format = Self.allCases.first(where: { $0.extensions.contains(where: lower.hasSuffix) }) else { return nil }
        self = format
    }

    /// The format's name in messages.
    package var displayName: String {
        switch self {
        case .mp4: "MP4"
        case .webm: "WebM"
        case .avif: "AVIF"
        case .webp: "WebP"
        case .png: "PNG"
        case .jpg: "JPEG"
        case .timelineJSON: "timeline JSON"
        case .sheet: "sprite sheet"
        }
    }
}
