import GifxEncoders
import GifxKit
import GifxTimeline

/// The formats `POST /v1/convert?format=` names.
package enum ServedFormat: String, Sendable, CaseIterable {
    case mp4, webm, webp, avif, jpg, sheet, timeline

    package var contentType: String {
        switch self {
        case .mp4: "video/mp4"
        case .webm: "video/webm"
        case .webp: "image/webp"
        case .avif: "image/avif"
        case .jpg: "image/jpeg"
        case .sheet: "image/png"
        case .timeline: "application/json"
        }
    }

    /// The cached file's extension.
    var fileExtension: String {
        switch self {
        case .sheet: "png"
        case .timeline: "timeline.json"
        default: rawValue
        }
    }

    var container: VideoContainer? {
        switch self {
        case .mp4: .mp4
        case .webm: .webm
        case .avif: .avif
        default: nil
        }
    }
}

/// A convert request's query: the format, the output's own settings, read by the library's parser of
/// `convert`'s `-o` prefix (`OutputSettings`), and the edits, read by the parser of the command line's edit
/// options (`EditSettings`), so a setting or an edit is refused here in the same words (an edit named as the
/// query names it: `from=1.555`, where the command line says `--from 1.555`).
struct ConvertQuery: Sendable, Equatable {
    var format: ServedFormat
    var settings: OutputSettings
    /// The edit of the schedule (from, to, speed, crop, reverse, boomerang); `nil`: none.
    var edit: TimelineEdit?
    /// `stream=1`: a conversion (a cache miss) is answered as it is encoded, chunked (mp4 and webm only: a
    /// fragmented MP4, a WebM without cues; docs/serve.md, "Streamed responses").
    var stream = false

    /// The query's own items, beside the format, the output's settings and the edits.
    static let ownKeys = ["stream"]

    /// Parses `format=mp4&width=480&crf=28` (already split into pairs, in order).
    init(_ pairs: [(key: String, value: String)]) throws(ServiceError) {
        var format: ServedFormat?
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
                guard let named = ServedFormat(rawValue: value.lowercased()) else {
                    throw .badQuery("'\(item)': unknown format (one of \(ServedFormat.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                format = named
                continue
            }
            do { try settings.set(key, value, in: item) } catch { throw .badQuery(error.description) }
        }
        guard let format else {
            throw .badQuery("name the output with format= (one of \(ServedFormat.allCases.map(\.rawValue).joined(separator: ", ")))")
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

    /// The settings that do not apply to the format, or that its encoder cannot take: `convert`'s rules for
    /// a `-o` prefix, in its words.
    private func check() throws(ServiceError) {
        let own = settings
        let named = "format=\(format.rawValue)"
        if stream && format != .mp4 && format != .webm { throw .badQuery("\(named): stream is for mp4 and webm") }
        if let container = format.container {
            if own.quality != nil { throw .badQuery("\(named): quality= is for webp and jpg; use crf=") }
            let video = videoSettings(container)
            if let problem = video.problem ?? video.timingProblem { throw .badQuery("\(named): \(problem.description)") }
            return
        }
        if own.targetSize != nil && format != .webp { throw .badQuery("\(named): target-size= is for mp4, webm and webp") }
        if own.codec != nil || own.crf != nil || own.timing != nil || own.maxFps != nil || own.keyframeInterval != nil {
            throw .badQuery("\(named): codec, crf, fps, max-fps and keyframe-interval are for mp4, webm and avif")
        }
        switch format {
        case .timeline where !own.isEmpty: throw .badQuery("\(named): the timeline JSON takes no settings")
        case .jpg where own.size != nil:
            throw .badQuery("\(named): a poster is written at the GIF's size; width/height/scale are for mp4, webm, webp and sheet")
        case .jpg where (own.quality ?? 1) < 1: throw .badQuery("\(named): quality must be 1...100 for a JPEG")
        case .sheet where own.quality != nil: throw .badQuery("\(named): a sprite sheet is lossless; quality= is for webp and jpg")
        default: return
        }
    }

    /// A video's settings: the command line's defaults (the tick; one frame per GIF frame for AVIF, as
    /// `convert` does) with the query's over them.
    func videoSettings(_ container: VideoContainer) -> VideoSettings {
        let own = settings
        let defaultTiming: OutputPlan.Request = container == .avif && own.maxFps == nil ? .vfr : .tick
        var video = VideoSettings(
            container: container, codec: own.codec, size: own.size ?? .original,
            timing: own.timing?.request ?? defaultTiming, maxFrameRate: own.maxFps, targetSize: own.targetSize)
        if let crf = own.crf { video.crf = crf }
        if let seconds = own.keyframeInterval { video.keyframeInterval = seconds }
        return video
    }

    /// The library's request for an output at `path` (a sheet's description goes to `jsonPath`); a video
    /// `streamingTo` a descriptor is written there as it is encoded (`OutputTarget.fileDescriptor`).
    func request(path: String, jsonPath: String, streamingTo descriptor: Int32? = nil) -> OutputRequest {
        let own = settings
        switch format {
        case .mp4, .webm, .avif:
            return .video(target: descriptor.map { .fileDescriptor($0) } ?? .file(path), options: videoSettings(format.container!))
        case .webp: return .webp(target: .file(path), options: WebPOptions(quality: own.quality, size: own.size ?? .original, targetSize: own.targetSize))
        case .jpg:
            return .jpegPoster(target: .file(path), frame: .index(0), options: JPEGOptions(quality: own.quality.map { Int($0.rounded()) } ?? 90))
        case .sheet:
            var options = SpriteOptions(png: .file(path), json: .file(jsonPath))
            options.size = own.size ?? .original
            return .spriteSheet(options)
        case .timeline: return .timelineJSON(target: .file(path))
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
        let base = "format=\(format.rawValue);\(settings.canonicalText)"
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
