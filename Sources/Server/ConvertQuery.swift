import GifxKit
import GifxTimeline

/// A convert request's query, read once: the format, the output's own settings, read by the library's parser of
/// `convert`'s `-o` prefix (`OutputSettings`), and the edits, read by the parser of the command line's edit
/// options (`EditSettings`), so a setting or an edit is refused here in the same words (an edit named as the
/// query names it: `from=1.555`, where the command line says `--from 1.555`). What it yields is the typed job,
/// `ConversionOrder`: the service keys its cache on it and hands it, encoded once, to the process that converts,
/// which reads no query.
struct ConvertQuery: Sendable, Equatable {
    /// The output asked for: its kind (`format=`, one the service converts to: `OutputKind.served`), settings, edit
    /// and whether it is streamed (`stream=1`: mp4 and webm only; docs/serve.md, "Streamed responses").
    var order: ConversionOrder

    /// The query's own items, beside the format, the output's settings and the edits.
    static let ownKeys = ["stream"]

    /// Parses `format=mp4&width=480&crf=28` (already split into pairs, in order).
    init(_ pairs: [(key: String, value: String)]) throws(ServiceError) {
        var format: OutputKind?
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
                guard let named = OutputKind.served.first(where: { $0.name == value.lowercased() }) else {
                    throw .badQuery("'\(item)': unknown format (one of \(OutputKind.servedList))")
                }
                format = named
                continue
            }
            do { try settings.set(key, value, in: item) } catch { throw .badQuery(error.description) }
        }
        guard let format else {
            throw .badQuery("name the output with format= (one of \(OutputKind.servedList))")
        }
        let edit: TimelineEdit?
        do throws(EditSettingsError) { edit = try edits.edit(.query) } catch { throw .badQuery(error.description) }
        order = ConversionOrder(kind: format, settings: settings, edit: edit, stream: stream)
        try Self.check(order)
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
        let named = "format=\(order.kind.name)"
        if order.stream && !order.kind.streams {
            throw .badQuery("\(named): stream is for \(OutputKind.phrase(OutputKind.served.filter(\.streams).map(\.name)))")
        }
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
