import GifxEncoders
import GifxKit
import GifxPipeline
import GifxTimeline

/// A convert request's query: the format, the output's own settings, read by the library's parser of
/// `convert`'s `-o` prefix (`OutputSettings`), and the edits, read by the parser of the command line's edit
/// options (`EditSettings`), so a setting or an edit is refused here in the same words (an edit named as the
/// query names it: `from=1.555`, where the command line says `--from 1.555`).
struct ConvertQuery: Sendable, Equatable {
    /// The output's kind, named by `format=` (one the service converts to: `OutputKind.served`).
    var format: OutputKind
    var settings: OutputSettings
    /// The edit of the schedule (from, to, speed, crop, reverse, boomerang); `nil`: none.
    var edit: TimelineEdit?
    /// `stream=1`: a conversion (a cache miss) is answered as it is encoded, chunked (mp4 and webm only: a
    /// fragmented MP4, a WebM without cues; docs/serve.md, "Streamed responses").
    var stream = false

    /// The pairs as given, in order: what a `ConversionJob` carries, to be parsed again where it runs.
    var items: [QueryItem]

    /// The query's own items, beside the format, the output's settings and the edits.
    static let ownKeys = ["stream"]

    /// Parses `format=mp4&width=480&crf=28` (already split into pairs, in order).
    init(_ pairs: [(key: String, value: String)]) throws(ServiceError) {
        items = pairs.map { QueryItem(key: $0.key, value: $0.value) }
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
        self.format = format
        self.settings = settings
        self.stream = stream
        do throws(EditSettingsError) { edit = try edits.edit(.query) } catch { throw .badQuery(error.description) }
        try check()
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

    /// The settings that do not apply to the format, or that its encoder cannot take: the kind's rules
    /// (`OutputKind.request`), worded with the query's names.
    private func check() throws(ServiceError) {
        let named = "format=\(format.name)"
        if stream && !format.streams {
            throw .badQuery("\(named): stream is for \(OutputKind.phrase(OutputKind.served.filter(\.streams).map(\.name)))")
        }
        _ = try request(path: "", jsonPath: "")
    }

    /// The library's request for an output at `path` (a sheet's description goes to `jsonPath`); an output
    /// `streamingTo` a descriptor is written there as it is encoded (`OutputTarget.fileDescriptor`).
    func request(path: String, jsonPath: String, streamingTo descriptor: Int32? = nil) throws(ServiceError) -> OutputRequest {
        let build = OutputBuild(
            target: descriptor.map { .fileDescriptor($0) } ?? .file(path), description: .file(jsonPath), own: settings,
            defaults: OutputDefaults())
        do throws(OutputRuleError) {
            return try format.request(build)
        } catch {
            throw .badQuery("format=\(format.name): \(error.wording(.query))")
        }
    }

    /// The settings as they enter the cache key: the same for the same output however the query spelled it.
    /// The edit, when there is one, follows as `;from=150,to=300,speed=3/2,crop=WxH+X+Y,reverse,boomerang`
    /// (times in cs, the speed reduced): requests without an edit keep the keys they had before edits existed.
    /// A streamed output (`stream=1`: a fragmented MP4, a WebM without cues, other bytes than the file's) ends in
    /// `;stream`, after the edit if there is one.
    var canonicalText: String {
        let text = editedText
        return stream ? text + ";stream" : text
    }

    private var editedText: String {
        let base = "format=\(format.name);\(settings.canonicalText)"
        guard let edit else { return base }
        var items: [String] = []
        if let from = edit.from { items.append("from=\(from)") }
        if let to = edit.to { items.append("to=\(to)") }
        if edit.speed != Rational(1) { items.append("speed=\(edit.speed.num)/\(edit.speed.den)") }
        if let crop = edit.crop { items.append("crop=\(crop.width)x\(crop.height)+\(crop.x)+\(crop.y)") }
        if edit.reverse { items.append("reverse") }
        if edit.boomerang { items.append("boomerang") }
        return base + ";" + items.joined(separator: ",")
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

/// One `key=value` of a query, percent-decoded.
package struct QueryItem: Codable, Sendable, Equatable {
    package var key: String
    package var value: String
}
