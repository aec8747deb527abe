import GifxKit
import GifxTimeline

/// A convert request's query, read once: the format, the output's own settings, read by the library's parser of
/// `convert`'s `-o` prefix (`OutputSettings`), and the edits, read by the parser of the command line's edit
/// options (`EditSettings`), so a setting or an edit is refused here in the same words (an edit named as the
/// query names it: `from=1.555`, where the command line says `--from 1.555`). What it yields is the typed job,
/// `ConversionOrder`: the service keys its cache on it and hands it, encoded once, to the process that converts,
/// which reads no query.
struct ConvertQuery: Sendable, Equatable {
    /// What `format=` names: one kind the service converts to (`OutputKind.served`), or `auto`: AVIF, WebP or the
    /// source, chosen per request from its `Accept` (`AutoFormat`).
    enum Format: Sendable, Equatable {
        case named(OutputKind)
        case auto
    }

    var format: Format
    /// The output's own settings, the edit, and `stream=1` (mp4 and webm only; docs/serve.md, "Streamed responses").
    var settings: OutputSettings
    var edit: TimelineEdit?
    var stream: Bool

    /// A named format's typed job, its rules checked when the query was read; `nil` for `auto`, whose job is made
    /// once the format is chosen (`order(for:)`).
    var order: ConversionOrder? {
        guard case .named(let kind) = format else { return nil }
        return order(for: kind)
    }

    /// The typed job for `kind`, with the query's settings, edit and stream.
    func order(for kind: OutputKind) -> ConversionOrder {
        ConversionOrder(kind: kind, settings: settings, edit: edit, stream: stream)
    }

    /// The kinds `format=auto` chooses between, from the registry.
    static var autoKinds: (avif: OutputKind, webp: OutputKind) {
        (OutputKind.served.first { $0.name == AutoFormat.avif.rawValue }!, OutputKind.served.first { $0.name == AutoFormat.webp.rawValue }!)
    }

    /// Every `format=` value: the served kinds' names, then `auto`.
    static var formatList: String { OutputKind.servedList + ", " + AutoFormat.formatName }

    /// The query's own items, beside the format, the output's settings and the edits.
    static let ownKeys = ["stream"]

    /// Parses `format=mp4&width=480&crf=28` (already split into pairs, in order).
    init(_ pairs: [(key: String, value: String)]) throws(ServiceError) {
        var format: Format?
        var settings = OutputSettings()
        var edits = EditSettings()
        var editKeys: Set<String> = []
        var stream = false
        var streamGiven = false
        for (key, value) in pairs {
            let item = "\(key)=\(value)"
            if EditSettings.keys.contains(key) {
                guard editKeys.insert(key).inserted else { throw .badQuery("'\(item)': \(key) is given twice") }
                try Self.setEdit(key, value, item: item, in: &edits)
                continue
            }
            if key == "stream" {
                guard !streamGiven else { throw .badQuery("'\(item)': stream is given twice") }
                streamGiven = true
                stream = try Self.switchValue(key, value, item: item)
                continue
            }
            if key == "format" {
                guard format == nil else { throw .badQuery("'\(item)': two formats in one request") }
                if value.lowercased() == AutoFormat.formatName {
                    format = .auto
                } else if let named = OutputKind.served.first(where: { $0.name == value.lowercased() }) {
                    format = .named(named)
                } else {
                    throw .badQuery("'\(item)': unknown format (one of \(Self.formatList))")
                }
                continue
            }
            do { try settings.set(key, value, in: item) } catch { throw .badQuery(error.description) }
        }
        guard let format else {
            throw .badQuery("name the output with format= (one of \(Self.formatList))")
        }
        self.format = format
        self.settings = settings
        self.stream = stream
        do throws(EditSettingsError) { edit = try edits.edit(.query) } catch { throw .badQuery(error.description) }
        switch format {
        case .named(let kind):
            try Self.check(order(for: kind))
        case .auto:
            // Whatever Accept chooses, the same query is valid: the settings both kinds take, within both's rules.
            let (avif, webp) = Self.autoKinds
            let common = avif.settings.filter { webp.settings.contains($0) }
            if let setting = settings.givenNames.first(where: { !common.contains($0) }) {
                throw .badQuery(
                    "format=auto: \(setting.rawValue)= is not taken: auto answers AVIF or WebP, and takes the settings both take ("
                        + OutputKind.phrase(common.map(\.rawValue)) + ")")
            }
            for kind in [avif, webp] { try Self.checkRules(order(for: kind), named: "format=auto (as \(kind.name))") }
        }
    }

    /// `from=1.5`, `speed=3/2`, `crop=WxH+X+Y`; `reverse` and `boomerang` are switches: `reverse`, `reverse=1`
    /// (or `true`), `reverse=0` (or `false`).
    private static func setEdit(_ key: String, _ value: String, item: String, in edits: inout EditSettings) throws(ServiceError) {
        switch key {
        case "from": edits.from = value
        case "to": edits.to = value
        case "speed": edits.speed = value
        case "crop": edits.crop = value
        default:
            let on = try switchValue(key, value, item: item)
            if key == "reverse" { edits.reverse = on } else { edits.boomerang = on }
        }
    }

    /// A switch's value: `key`, `key=1` (or `true`) is on, `key=0` (or `false`) off.
    private static func switchValue(_ key: String, _ value: String, item: String) throws(ServiceError) -> Bool {
        switch value.lowercased() {
        case "", "1", "true": return true
        case "0", "false": return false
        default: throw .badQuery("'\(item)': \(key) is a switch: give \(key), \(key)=1 or \(key)=0")
        }
    }

    /// The settings that do not apply to the format, or that its encoder cannot take, and a stream of a format that
    /// does not stream: the kind's rules (`OutputKind.request`, run once here on placeholder targets), worded with
    /// the query's names.
    static func check(_ order: ConversionOrder) throws(ServiceError) {
        try checkStream(order)
        try checkRules(order, named: "format=\(order.kind.name)")
    }

    /// `stream=1` of a kind that does not stream.
    static func checkStream(_ order: ConversionOrder) throws(ServiceError) {
        if order.stream && !order.kind.streams {
            throw .badQuery("format=\(order.kind.name): stream is for \(streamingKinds)")
        }
    }

    /// "mp4 and webm": the kinds `stream=1` is for.
    static var streamingKinds: String { OutputKind.phrase(OutputKind.served.filter(\.streams).map(\.name)) }

    private static func checkRules(_ order: ConversionOrder, named: String) throws(ServiceError) {
        do throws(OutputRuleError) {
            _ = try order.request(target: .file(""), description: .file(""))
        } catch {
            throw .badQuery("\(named): \(error.wording(.query))")
        }
    }
}

extension ConversionOrder {
    /// The library's request for the output at `path` (a sheet's description goes to `jsonPath`); an output
    /// `streamingTo` a descriptor is written there as it is encoded (`OutputTarget.fileDescriptor`). The rules were
    /// checked when the query was read; a refusal here is worded as that one was.
    func request(path: String, jsonPath: String, streamingTo descriptor: Int32? = nil) throws(ServiceError) -> OutputRequest {
        do throws(OutputRuleError) {
            return try request(target: descriptor.map { .fileDescriptor($0) } ?? .file(path), description: .file(jsonPath))
        } catch {
            throw .badQuery("format=\(kind.name): \(error.wording(.query))")
        }
    }
}

/// The options segment of a signed URL: the query's items written `key:value` and joined by commas,
/// `format:mp4,width:320,from:1.5,reverse` (an item without a value is a switch). Each item is percent-decoded
/// after the split, so a value with a `/` (`speed:3%2F2`, `fps:30000%2F1001`) or a `,` can be written. The pairs
/// go to `ConvertQuery`, so every option is read, and refused, as the query's.
enum SignedOptions {
    static func pairs(_ segment: Substring) -> [(key: String, value: String)] {
        segment.split(separator: ",").map { item in
            let parts = item.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String { String(text).removingPercentEncoding ?? String(text) }
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }
}

extension ConvertQuery {
    /// `a=1&b=2`, percent-decoded, in order.
    static func pairs(fromQuery query: String) -> [(key: String, value: String)] {
        query.split(separator: "&").map { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String {
                String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
            }
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }
}

extension EditSpelling {
    /// The query's (and the signed options'): `from`, `from=1.5`.
    static let query = EditSpelling(name: { $0 }, item: { "\($0)=\($1)" })
}
