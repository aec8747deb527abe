import GifxEncoders
import GifxPipeline
import GifxTimeline

/// One output asked for by its kind's name and settings (`gifx serve`'s query, a signed URL's options), read once
/// by the asker's parser: the typed job a service plans, keys its cache on and hands to the process that converts,
/// encoded once (`Codable`; the kind travels as its name). The request is built from it where the conversion runs,
/// since an output's target (a descriptor) belongs to one process.
package struct ConversionOrder: Sendable, Hashable {
    /// The output's kind (one of the registry's, `OutputKind.all`).
    package var kind: OutputKind
    /// The output's own settings (`width=480`, `crf=28`), over the service's defaults (`OutputDefaults()`).
    package var settings: OutputSettings
    /// The edit of the schedule (from, to, speed, crop, reverse, boomerang); `nil`: none.
    package var edit: TimelineEdit?
    /// The output is written as it is encoded, to a descriptor that never seeks (a fragmented MP4, a WebM without
    /// cues): other bytes than the file form's.
    package var stream: Bool

    package init(kind: OutputKind, settings: OutputSettings = OutputSettings(), edit: TimelineEdit? = nil, stream: Bool = false) {
        self.kind = kind; self.settings = settings; self.edit = edit; self.stream = stream
    }

    /// The library's request for the output at `target` (a sheet's description at `description`), the kind's rules
    /// checked (`OutputKind.request`) over the service's defaults.
    package func request(target: OutputTarget, description: OutputTarget) throws(OutputRuleError) -> OutputRequest {
        try kind.request(OutputBuild(target: target, description: description, own: settings, defaults: OutputDefaults()))
    }

    /// The order as it enters a cache key: the same for the same output however it was spelled.
    /// `format=NAME;SETTINGS` (`OutputSettings.canonicalText`); an edit follows as
    /// `;from=150,to=300,speed=3/2,crop=WxH+X+Y,reverse,boomerang` (times in cs, the speed reduced), so orders without
    /// an edit keep the keys they had before edits existed; a streamed output ends in `;stream`, after the edit.
    package var canonicalText: String {
        var text = "format=\(kind.name);\(settings.canonicalText)"
        if let edit {
            var items: [String] = []
            if let from = edit.from { items.append("from=\(from)") }
            if let to = edit.to { items.append("to=\(to)") }
            if edit.speed != Rational(1) { items.append("speed=\(edit.speed.num)/\(edit.speed.den)") }
            if let crop = edit.crop { items.append("crop=\(crop.width)x\(crop.height)+\(crop.x)+\(crop.y)") }
            if edit.reverse { items.append("reverse") }
            if edit.boomerang { items.append("boomerang") }
            text += ";" + items.joined(separator: ",")
        }
        return stream ? text + ";stream" : text
    }
}

extension ConversionOrder: Codable {
    private enum CodingKeys: String, CodingKey { case format, settings, edit, stream }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .format)
        guard let kind = OutputKind.all.first(where: { $0.name == name }) else {
            throw DecodingError.dataCorruptedError(forKey: .format, in: container, debugDescription: "no output kind named \(name)")
        }
        self.kind = kind
        settings = try container.decode(OutputSettings.self, forKey: .settings)
        edit = try container.decodeIfPresent(TimelineEdit.self, forKey: .edit)
        stream = try container.decode(Bool.self, forKey: .stream)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind.name, forKey: .format)
        try container.encode(settings, forKey: .settings)
        try container.encodeIfPresent(edit, forKey: .edit)
        try container.encode(stream, forKey: .stream)
    }
}
