import GifxFrames
import GifxPOSIXFiles
import GifxPipeline

// The registry of output kinds: each kind is one `OutputKind`, declared in its own folder (its descriptor, its sink,
// its result, how it is verified), and one line of `OutputKind.all` below. Nothing else names a kind: the pipeline
// knows sinks through `ConversionSink`, the CLI and the service know kinds through this list.
// docs/registries.md ("Adding an output") shows the commit that added APNG.

extension OutputKind {
    /// Every kind of output, in the order every list of them shows (help texts, errors, docs).
    package static let all: [OutputKind] = [
        .mp4,
        .webm,
        .avif,
        .webp,
        .apng,
        .pngPoster,
        .jpegPoster,
        .timelineJSON,
        .sheet,
    ]
}

extension OutputReader {
    /// How `verify` reads a path whose ending no kind names (`.mkv`, `.mov`): as a video, anything libavformat opens.
    package static let unnamedPath = OutputReader.video
}

/// A result's figures for `--stats` (`OutputStats`), given by its kind.
package protocol ReportedOutput: OutputResult {
    var stats: OutputStats { get }
}

/// One output's figures in `--stats` (`convert`'s `outputs`, decoded again by `batch`): what it is, its files and
/// their bytes, frames written, its size and duration, and its kind's own figures, in the same JSON object.
package struct OutputStats: Codable, Sendable {
    /// The kind's name in `--stats` (`OutputKind.statsName`).
    package var kind: String
    package var paths: [String]
    package var bytes = 0
    /// Frames written: video samples, sheet cells, 1 for a poster; absent for the schedule's JSON.
    package var frames: Int?
    package var width: Int?
    package var height: Int?
    /// How long it plays, in seconds (every loop), where its kind says (a video).
    package var durationSeconds: Double?
    /// Its kind's own figures (`OutputKind.stats`: `VideoStats`, `WebPStats`, `SheetStats`); `nil` for a kind that has
    /// none (posters, APNG, timeline JSON).
    package var figures: (any OutputKindStats)?

    package init(kind: String, paths: [String]) {
        self.kind = kind
        self.paths = paths
    }

    /// The figures of `result`, its files' bytes counted now, its kind's facts in `wording`'s words.
    package init(_ result: any OutputResult, wording: some StatsWording) {
        self = (result as? any ReportedOutput)?.stats ?? OutputStats(kind: "output", paths: result.paths)
        bytes = paths.reduce(0) { $0 + (POSIXFiles.fileSize($1) ?? 0) }
        figures = figures?.worded(wording)
    }

    private enum CodingKeys: String, CodingKey { case kind, paths, bytes, frames, width, height, durationSeconds }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decode(String.self, forKey: .kind)
        paths = try container.decode([String].self, forKey: .paths)
        bytes = try container.decode(Int.self, forKey: .bytes)
        frames = try container.decodeIfPresent(Int.self, forKey: .frames)
        width = try container.decodeIfPresent(Int.self, forKey: .width)
        height = try container.decodeIfPresent(Int.self, forKey: .height)
        durationSeconds = try container.decodeIfPresent(Double.self, forKey: .durationSeconds)
        figures = try OutputKind.stats(named: kind)?.init(from: decoder)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(paths, forKey: .paths)
        try container.encode(bytes, forKey: .bytes)
        try container.encodeIfPresent(frames, forKey: .frames)
        try container.encodeIfPresent(width, forKey: .width)
        try container.encodeIfPresent(height, forKey: .height)
        try container.encodeIfPresent(durationSeconds, forKey: .durationSeconds)
        try figures?.encode(to: encoder)
    }
}

/// A kind's own figures in `--stats`, declared in its folder and written into the same JSON object as the figures
/// every output has (`OutputStats`), so their field names are the kind's to keep.
package protocol OutputKindStats: Codable, Sendable {
    /// The figures a command that writes this one output (`to-mp4`, `to-sprite`) also gives at the top level of its
    /// `--stats`: all of them, unless the kind leaves some out.
    var topLevel: Self { get }
    /// The figures with the facts they word in `wording`'s words (a video's reason for its rate): as they are, unless
    /// the kind has such facts.
    func worded(_ wording: some StatsWording) -> Self
}

extension OutputKindStats {
    package var topLevel: Self { self }
    package func worded(_ wording: some StatsWording) -> Self { self }
}

/// How whoever prints `--stats` words the facts the figures carry: the command line names its flags (`--fps 30`),
/// which no library names.
package protocol StatsWording {
    /// Why a video's plan has its rate.
    func rateReason(_ choice: VideoRateChoice) -> String
}

extension OutputKind {
    /// The type of the figures of the kind whose `--stats` name is `name`; `nil` when it has none of its own or no kind
    /// has that name (`canvases`).
    package static func stats(named name: String) -> (any OutputKindStats.Type)? {
        all.first { $0.statsName == name }?.stats
    }
}
