import ArgumentParser
import GifxKit
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
    /// The kind named in the prefix, if any (else the path's extension says it).
    var namedKind: OutputKind?
    /// This output's own settings, applied over the command's options.
    var settings: OutputSettings

    /// Whether the output goes to standard output.
    var isStandardOutput: Bool { StandardOutput.isTarget(path) }

    /// The kind: named, or by extension; `nil` when neither says. Only a kind with prefix names is an `-o`'s (a
    /// sheet is `--sheet`'s: its `.json` is an unknown -o format).
    var kind: OutputKind? {
        namedKind ?? (isStandardOutput ? nil : OutputKind.forPath(path).flatMap { $0.prefixNames.isEmpty ? nil : $0 })
    }

    init(path: String, namedKind: OutputKind? = nil, settings: OutputSettings = OutputSettings()) {
        self.path = path; self.namedKind = namedKind; self.settings = settings
    }

    /// Parses an `-o` value; throws `ValidationError` for a prefix that looks like settings but is wrong.
    static func parse(_ value: String) throws -> OutputSpec {
        guard let colon = value.firstIndex(of: ":") else { return OutputSpec(path: value) }
        let prefix = value[..<colon]
        let path = String(value[value.index(after: colon)...])
        let items = prefix.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        // A prefix is a format name or key=value items; anything else is part of the path (`a:b.mp4`).
        let looksLikePrefix = items.allSatisfy { OutputKind.named(prefix: $0) != nil || $0.contains("=") }
        guard looksLikePrefix, !path.isEmpty else { return OutputSpec(path: value) }
        var spec = OutputSpec(path: path)
        for item in items {
            if let kind = OutputKind.named(prefix: item) {
                if spec.namedKind != nil { throw ValidationError("'\(value)': two formats in one output") }
                spec.namedKind = kind
                continue
            }
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw ValidationError("'\(value)': '\(item)' is not key=value") }
            // The library's parser (`OutputSettings`, shared with `gifx serve`'s query), its words unchanged.
            do { try spec.settings.set(parts[0], parts[1], in: value) } catch { throw ValidationError(error.description) }
        }
        return spec
    }
}

/// An `-o` value, parsed once, as the command line is read: its `OutputSpec`, or the parse's error, which the
/// command's `validate` throws in its turn among its other checks (so the words and their order are unchanged).
struct OutputArgument: ExpressibleByArgument {
    /// The value as given.
    let text: String
    private let parsed: Result<OutputSpec, any Error>

    init(argument: String) {
        text = argument
        parsed = Result { try OutputSpec.parse(argument) }
    }

    /// The spec; throws the `ValidationError` of a value that did not parse.
    func parsedSpec() throws -> OutputSpec { try parsed.get() }

    /// The spec, or (a value that did not parse, refused by `validate`) the value as a plain path.
    var spec: OutputSpec { (try? parsed.get()) ?? OutputSpec(path: text) }
}
