import ArgumentParser
import GifxEncoders
import GifxTimeline

/// One `-o` value: a path (`-` for standard output), optionally after a prefix that names the format and
/// this output's own settings, the way ImageMagick names a format (`png:-`):
///
///     -o out.mp4                  format by extension
///     -o mp4:-                    MP4 to standard output (the format must be named when there is no extension)
///     -o width=480:small.mp4      this output 480 px wide, the others as the command line says
///     -o webp,width=100:-         a 100 px wide WebP to standard output
///
/// The prefix is the text before the first `:`, a comma-separated list of a format name and `key=value`
/// settings; a value whose prefix is not such a list is a plain path (`./a:b.mp4` is always a path).
struct OutputSpec: Hashable {
    var path: String
    /// The format named in the prefix, if any (else the path's extension says it).
    var namedFormat: ConvertOutputFormat?
    /// This output's own settings, applied over the command's options.
    var settings: OutputSettings

    /// Whether the output goes to standard output.
    var isStandardOutput: Bool { StandardOutput.isTarget(path) }

    /// The format: named, or by extension; `nil` when neither says.
    var format: ConvertOutputFormat? { namedFormat ?? (isStandardOutput ? nil : ConvertOutputFormat(path: path)) }

    init(path: String, namedFormat: ConvertOutputFormat? = nil, settings: OutputSettings = OutputSettings()) {
        self.path = path; self.namedFormat = namedFormat; self.settings = settings
    }

    /// Parses an `-o` value; throws `ValidationError` for a prefix that looks like settings but is wrong.
    static func parse(_ value: String) throws -> OutputSpec {
        guard let colon = value.firstIndex(of: ":") else { return OutputSpec(path: value) }
        let prefix = value[..<colon]
        let path = String(value[value.index(after: colon)...])
        let items = prefix.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        // A prefix is a format name or key=value items; anything else is part of the path (`a:b.mp4`).
        let looksLikePrefix = items.allSatisfy { ConvertOutputFormat(name: $0) != nil || $0.contains("=") }
        guard looksLikePrefix, !path.isEmpty else { return OutputSpec(path: value) }
        var spec = OutputSpec(path: path)
        for item in items {
            if let format = ConvertOutputFormat(name: item) {
                if spec.namedFormat != nil { throw ValidationError("'\(value)': two formats in one output") }
                spec.namedFormat = format
                continue
            }
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw ValidationError("'\(value)': '\(item)' is not key=value") }
            try spec.settings.set(parts[0], parts[1], in: value)
        }
        return spec
    }
}

/// Per-output settings of a `-o` prefix (renditions): each replaces the command's option of the same name
/// for that output only.
struct OutputSettings: Hashable {
    var size: SizeRequest?
    var codec: VideoCodec?
    var crf: Double?
    var timing: OutputTimingChoice?
    var maxFps: Rational?
    var quality: Float?
    var targetSize: ByteCount?

    /// Keys accepted in a prefix, for help and errors.
    static let keys = ["width", "height", "scale", "codec", "crf", "fps", "max-fps", "quality", "target-size"]

    var isEmpty: Bool { self == OutputSettings() }

    mutating func set(_ key: String, _ text: String, in value: String) throws {
        func bad(_ what: String) -> ValidationError { ValidationError("'\(value)': \(key)=\(text): \(what)") }
        switch key {
        case "width", "height":
            guard let pixels = Int(text), (1...16384).contains(pixels) else { throw bad("must be 1...16384") }
            try setSize(key == "width" ? .width(pixels) : .height(pixels), value)
        case "scale":
            guard let factor = Double(text), factor > 0, factor <= 64 else { throw bad("must be > 0 and <= 64") }
            try setSize(.scale(factor), value)
        case "codec":
            guard let codec = VideoCodec(rawValue: text) else {
                throw bad("one of \(VideoCodec.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            self.codec = codec
        case "crf":
            guard let crf = Double(text) else { throw bad("not a number") }
            self.crf = crf
        case "fps":
            if text == "vfr" { timing = .vfr; return }
            guard let choice = FrameRateChoice(argument: text) else { throw bad("auto, vfr, tick or a rate") }
            switch choice {
            case .auto: timing = .auto
            case .tick: timing = .tick
            case .rate(let rate): timing = .rate(rate)
            }
        case "max-fps":
            guard let rate = FrameRate(argument: text) else { throw bad("not a rate") }
            maxFps = rate.rate
        case "quality":
            guard let quality = Float(text), (0...100).contains(quality) else { throw bad("must be 0...100") }
            self.quality = quality
        case "target-size":
            guard let bytes = ByteCount(argument: text) else { throw bad("a size such as 10M") }
            targetSize = bytes
        default:
            throw ValidationError("'\(value)': unknown setting '\(key)' (known: \(Self.keys.joined(separator: ", ")))")
        }
    }

    private mutating func setSize(_ request: SizeRequest, _ value: String) throws {
        if size != nil { throw ValidationError("'\(value)': give only one of width, height, scale") }
        size = request
    }
}

/// A rendition's `fps=`: the timing modes of `--fps` and `--vfr`.
enum OutputTimingChoice: Hashable {
    case tick, auto, vfr
    case rate(Rational)

    var request: OutputPlan.Request {
        switch self {
        case .tick: .tick
        case .auto: .auto
        case .vfr: .vfr
        case .rate(let rate): .rate(rate)
        }
    }
}
