import GifxFrames
import GifxPipeline

/// One kind of output, declared once, in its kind's own folder (as FFmpeg declares a muxer: `ff_webp_muxer`): its
/// names, file endings and media type, the settings it takes, the rules a request must keep and the request it
/// builds, how `verify` reads it back, and whether the service streams it. The registry (`OutputKind.all`,
/// OutputKinds.swift) lists them, one line each; the CLI (`convert -o`, batch `--formats`, `verify`, `--help`,
/// docs/cli.md), the service (`format=`, its query's rules, `Content-Type`, docs/openapi.yaml) and `--stats` read
/// that list and nothing else.
package struct OutputKind: Sendable {
    /// The kind's name: the service's `format=` value, batch's `--formats` entry, `gifx formats`.
    package let name: String
    /// Its name as the `kind` of `--stats` (and batch's report): `name`, except where `--stats` has always said
    /// otherwise (a PNG poster's `poster`).
    package let statsName: String
    /// The type of its own figures in `--stats`, beside those every output has (`OutputStats.figures`); `nil`: none.
    package let stats: (any OutputKindStats.Type)?
    /// The name in messages ("MP4", "sprite sheet").
    package let displayName: String
    /// One line for `--help`, docs/cli.md and docs/openapi.yaml.
    package let summary: String
    /// The names a `convert -o` prefix may give it (`mp4:-`); none for a kind the command line names by an option
    /// of its own (the sheet; the CLI knows which option).
    package let prefixNames: [String]
    /// The endings of a path that name it (lower case); the first is the one gifx gives a file it names.
    package let extensions: [String]
    /// Its media type (the service's `Content-Type`).
    package let mediaType: String
    /// The ending of the one file the service keeps and serves for it (`png` for a sheet: its page).
    package let storedExtension: String
    /// The output's own settings it takes (`width=480`, `crf=28`), in the table's order.
    package let settings: [OutputSettingName]
    /// Why it refuses a setting it does not take, beyond the settings' own rule ("a PNG poster is lossless"); a
    /// refusal of the frame size is keyed by `width`. Pairs, not a dictionary: every command builds the registry at
    /// start-up (`convert`'s help), and a dictionary keyed by `OutputSettingName` costs each process a protocol
    /// conformance lookup (`Hashable`, ≈ 0.6 M instructions) there (docs/benchmarks.md).
    package let refusals: KeyValuePairs<OutputSettingName, OutputRefusal>
    /// Whether `gifx serve` converts to it (`format=`).
    package let isServed: Bool
    /// Whether `gifx serve` can stream it as it is encoded (`stream=1`).
    package let streams: Bool
    /// How `verify` reads it back.
    package let reader: OutputReader
    /// Its files, named from one base path (batch names every output so).
    package let files: OutputFiles
    /// The format named when it is refused on a terminal (`-o -`); `nil` for text, which a terminal may show.
    package let binaryFormat: String?
    /// The request for one output of this kind; refuses settings its encoder cannot take.
    private let make: @Sendable (OutputBuild) throws(OutputRuleError) -> OutputRequest

    package init(
        name: String, statsName: String? = nil, displayName: String, summary: String, prefixNames: [String],
        extensions: [String],
        mediaType: String, storedExtension: String? = nil,
        settings: [OutputSettingName], refusals: KeyValuePairs<OutputSettingName, OutputRefusal> = [:],
        stats: (any OutputKindStats.Type)? = nil, isServed: Bool = true,
        streams: Bool = false, reader: OutputReader, files: OutputFiles? = nil, binaryFormat: String? = nil,
        isText: Bool = false,
        request: @escaping @Sendable (OutputBuild) throws(OutputRuleError) -> OutputRequest
    ) {
        self.name = name; self.statsName = statsName ?? name; self.stats = stats
        self.displayName = displayName; self.summary = summary; self.prefixNames = prefixNames
        self.extensions = extensions
        self.mediaType = mediaType; self.storedExtension = storedExtension ?? String(extensions[0].dropFirst())
        self.settings = settings; self.refusals = refusals; self.isServed = isServed; self.streams = streams
        self.reader = reader; make = request
        self.files = files ?? OutputFiles(main: extensions[0])
        self.binaryFormat = isText ? nil : binaryFormat ?? displayName
    }

    /// Why it refuses `setting`, if it says (`refusals`).
    package func refusal(of setting: OutputSettingName) -> OutputRefusal? {
        refusals.first { $0.key == setting }?.value
    }

    /// The request for one output of this kind: the output's own settings are checked against the kind's table
    /// first (each refusal worded from the registry), then the kind builds its request over `build.defaults`.
    package func request(_ build: OutputBuild) throws(OutputRuleError) -> OutputRequest {
        for setting in build.own.givenNames where !settings.contains(setting) {
            throw .notTaken(setting, by: self)
        }
        return try make(build)
    }
}

extension OutputKind {
    /// The kind a `convert -o` prefix names (any letter case).
    package static func named(prefix: String) -> OutputKind? {
        let name = prefix.lowercased()
        return all.first { $0.prefixNames.contains(name) }
    }

    /// The kind the service's `format=` or batch's `--formats` names: its name, a prefix name or its first ending
    /// without the dot (`timeline.json`), any letter case.
    package static func named(_ text: String) -> OutputKind? {
        let name = text.lowercased()
        return all.first { $0.name == name || $0.prefixNames.contains(name) || $0.extensions[0] == "." + name }
    }

    /// The kind a path's ending names (any letter case), `nil` when none does. Longer endings first, so
    /// `.timeline.json` is the timeline's before `.json` is the sheet's.
    package static func forPath(_ path: String) -> OutputKind? {
        let lower = path.lowercased()
        var best: (kind: OutputKind, length: Int)?
        for kind in all {
            for ending in kind.extensions where lower.hasSuffix(ending) && ending.count > (best?.length ?? 0) {
                best = (kind, ending.count)
            }
        }
        return best?.kind
    }

    /// The kinds the service converts to.
    package static var served: [OutputKind] { all.filter(\.isServed) }

    /// The prefix names `convert -o` takes, one per kind, for messages: `mp4, webm, avif, webp, png, jpg, timeline`.
    package static var prefixList: String { all.compactMap(\.prefixNames.first).joined(separator: ", ") }

    /// The endings `convert -o` names a kind by, for messages: `.mp4, .webm, …, .timeline.json`.
    package static var extensionList: String {
        all.filter { !$0.prefixNames.isEmpty }.map(\.extensions[0]).joined(separator: ", ")
    }

    /// The service's `format=` values, for messages.
    package static var servedList: String { served.map(\.name).joined(separator: ", ") }

    /// "a, b and c": `items` as one phrase.
    package static func phrase(_ items: [String]) -> String { EnglishList.phrase(items) }

    /// The kind's name as `naming` words it: its first ending (`.mp4`), or its `format=` name (`mp4`). A kind the
    /// command line names by an option of its own (no `prefixNames`) is named so by the CLI, which knows the option.
    package func label(_ naming: OutputNaming) -> String { naming == .commandLine ? extensions[0] : name }
}

/// The files of one output, named from a base path (`OUT/a`): its main file (`a.mp4`; a sheet's PNG, split into pages
/// `a-0.png`, `a-1.png`, … when it has several), and the description beside it (a sheet's `a.json`), whose existence
/// says the output is complete. `batch convert` puts `batchInfix` between the base and the endings, so that two kinds
/// with the same ending do not collide (`a.sheet.png` beside a poster's `a.png`).
package struct OutputFiles: Sendable {
    /// The main file's ending.
    package var main: String
    /// The description's ending; `nil` when the output is one file.
    package var description: String?
    /// Whether the main file is split into pages (`BASE-0.png`, …) when one does not hold it.
    package var pages: Bool
    package var batchInfix: String

    package init(main: String, description: String? = nil, pages: Bool = false, batchInfix: String = "") {
        self.main = main; self.description = description; self.pages = pages; self.batchInfix = batchInfix
    }

    /// The file whose existence (and modification time) says an output at `stem` is complete: the description, else
    /// the main file.
    package func marker(stem: String) -> String { stem + (description ?? main) }

    /// The pages of a main file at `stem` that exist: `stem.png`, or `stem-0.png`, `stem-1.png`… (`spritePagePaths`).
    package func existingPages(stem: String, exists: (String) -> Bool) -> [String] {
        if exists(stem + main) { return [stem + main] }
        var pages: [String] = []
        while exists("\(stem)-\(pages.count)\(main)") { pages.append("\(stem)-\(pages.count)\(main)") }
        return pages
    }
}

/// Who words a refusal: the command line names kinds by their endings (`.mp4`; it offers only the kinds a `-o`
/// prefix names), the service by its `format=` names (`mp4`).
package enum OutputNaming: Sendable { case commandLine, query }

/// Why a kind refuses a setting it does not take: said before the settings' own rule (`because`) and after it
/// (`instead`): "a PNG poster is lossless; quality= is for .webp and .jpg", "quality= is for .webp and .jpg; use crf=".
package struct OutputRefusal: Sendable {
    package var because: String?
    package var instead: String?
    package init(because: String? = nil, instead: String? = nil) { self.because = because; self.instead = instead }
}

/// A request the rules refuse, as facts; worded by whoever asked (`wording(_:)`), from the one table.
package enum OutputRuleError: Error, Sendable {
    /// `kind` does not take `setting`.
    case notTaken(OutputSettingName, by: OutputKind)
    /// The kind's encoder cannot take the value (its own words: "crf must be 0...51 for h264").
    case invalid(String)

    package func wording(_ naming: OutputNaming) -> String {
        switch self {
        case .invalid(let text): return text
        case .notTaken(let setting, let kind):
            if kind.settings.isEmpty && kind.refusals.isEmpty { return "the \(kind.displayName) takes no settings" }
            // The kinds that take it and that the asker can name: `-o`'s, or the service's formats.
            let takers = OutputKind.all.filter {
                $0.settings.contains(setting) && (naming == .commandLine ? !$0.prefixNames.isEmpty : $0.isServed)
            }
            let group = setting.group
            let named = group.count > 1 ? group.map(\.rawValue).joined(separator: "/") + " are" : setting.rawValue + "= is"
            let rule = "\(named) for " + OutputKind.phrase(takers.map { $0.label(naming) })
            let refusal = kind.refusal(of: group[0])
            return [refusal?.because, rule, refusal?.instead].compactMap { $0 }.joined(separator: "; ")
        }
    }
}

/// What a kind builds its request from: where the output goes, its own settings, and the defaults of whoever asks.
package struct OutputBuild: Sendable {
    package var target: OutputTarget
    /// A sprite sheet's description (JSON, or Godot's `.tres`).
    package var description: OutputTarget?
    /// The output's own settings (a `-o` prefix, the service's query).
    package var own: OutputSettings
    package var defaults: OutputDefaults

    package init(target: OutputTarget, description: OutputTarget? = nil, own: OutputSettings = OutputSettings(), defaults: OutputDefaults) {
        self.target = target; self.description = description; self.own = own; self.defaults = defaults
    }
}

/// The settings an output has unless its own say otherwise: the command's options, or the service's defaults. Each
/// kind's are its own type, declared in its folder; the frame size is the WebP's and the sheet's.
package struct OutputDefaults: Sendable {
    package var video: VideoDefaults
    /// The frame size of a WebP or a sheet.
    package var size: SizeRequest = .original
    package var webp = WebPDefaults()
    package var poster = PosterDefaults()
    package var sheet = SheetDefaults()

    /// `gifx serve`'s: the library's defaults (`VideoDefaults()`).
    package init() { video = VideoDefaults() }

    /// A video's settings before its own made by `video` (`VideoDefaults.settings`).
    package init(video: @escaping @Sendable (_ container: VideoContainer, _ own: OutputSettings) -> VideoSettings) {
        self.video = VideoDefaults(settings: video)
    }
}

/// How `verify` reads an output of a kind back and checks it against the GIF, declared by the kind (its read-back
/// lives in the kind's folder); the verifier knows kinds only through these.
package struct OutputReader: Sendable {
    /// The `kind` of its reports ("video", "webp", "apng", "poster", "sheet"), as `verify --json` prints it.
    package let name: String
    /// The `kind` of a report on one part of such an output (a sheet's page: "sheet page"), when it has parts.
    package let partName: String?
    /// The `kind` of the report on such an output that cannot be read: `name`, except where `verify` has always said
    /// otherwise (a PNG poster's `pngPoster`).
    package let unreadableName: String
    /// Which lines `verify`'s text report gives its reports.
    package let report: VerificationLines
    package let verify: @Sendable (Verifier, _ path: String, Verifier.Expectation) throws -> OutputVerification
    /// The reader of a file this kind's ending names but whose content is another kind's (a `.png` that is an
    /// animation is an APNG); `nil`: this reader.
    package let byContent: @Sendable (_ path: String) -> OutputReader?
    /// The parts an output names beside it (a sheet description's pages), with how one part given alongside it is
    /// verified (the frames the output cuts from that part); `nil` for an output of one file.
    package let parts: OutputParts?

    package init(
        name: String, partName: String? = nil, unreadableName: String? = nil,
        report: VerificationLines = VerificationLines(), parts: OutputParts? = nil,
        byContent: @escaping @Sendable (_ path: String) -> OutputReader? = { _ in nil },
        verify: @escaping @Sendable (Verifier, String, Verifier.Expectation) throws -> OutputVerification
    ) {
        self.name = name; self.partName = partName; self.unreadableName = unreadableName ?? name
        self.report = report; self.parts = parts
        self.byContent = byContent; self.verify = verify
    }

    /// The reader whose reports have `kind` (`OutputVerification.kind`), among the registry's.
    package static func reporting(_ kind: String) -> OutputReader? {
        OutputKind.all.lazy.map(\.reader).first { $0.name == kind || $0.partName == kind }
    }
}

/// What `verify`'s text report says of one output beyond its name, format and pixels.
package struct VerificationLines: Sendable {
    /// Its frames and their timing (a poster is one frame, shown at no time: its pixels' line names the GIF frame
    /// it shows instead).
    package var framesAndTiming: Bool
    /// Its duration against the schedule's (a sheet's frames are durations, it has no duration of its own).
    package var duration: Bool
    package init(framesAndTiming: Bool = true, duration: Bool = true) {
        self.framesAndTiming = framesAndTiming; self.duration = duration
    }
}

/// The files an output names as its parts (a sheet description's PNG pages), and how a part given to `verify`
/// alongside the output is checked: as that part of it, not as a file of its own.
package struct OutputParts: Sendable {
    /// The parts the output at `path` names (standardized paths); empty when it cannot be read.
    package let named: @Sendable (_ path: String) -> [String]
    /// Verifies the part at `part` (standardized) of the output at `path`, reported as `reportedAs`.
    package let verify:
        @Sendable (Verifier, _ path: String, _ part: String, _ reportedAs: String) throws -> OutputVerification
    package init(
        named: @escaping @Sendable (String) -> [String],
        verify: @escaping @Sendable (Verifier, String, String, String) throws -> OutputVerification
    ) {
        self.named = named; self.verify = verify
    }
}

extension OutputKind: Hashable {
    /// Kinds are one per name.
    package static func == (lhs: OutputKind, rhs: OutputKind) -> Bool { lhs.name == rhs.name }
    package func hash(into hasher: inout Hasher) { hasher.combine(name) }
}
