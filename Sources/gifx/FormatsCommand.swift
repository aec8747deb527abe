import ArgumentParser
import Foundation
import GifxKit

/// `gifx formats`: the registries of output kinds and input formats, as `ffmpeg -formats` lists its muxers and
/// demuxers. The table a person reads and
/// the JSON that docs/openapi.yaml is generated from (packaging/openapi_gen.py) are the same list the commands and
/// the service read.
struct FormatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "formats",
        abstract: "List the output formats: names, file endings, media types, the settings each takes.")

    @Flag(help: "Print the list as JSON (what docs/openapi.yaml is generated from).") var json = false

    func run() throws {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            FileHandle.standardOutput.write(try encoder.encode(Registry()))
            print()
            return
        }
        for kind in OutputKind.all {
            let names = kind.prefixNames.isEmpty ? kind.commandLineLabel : kind.extensions.joined(separator: " ")
            print("\(kind.name.padding(toLength: 9, withPad: " ", startingAt: 0)) \(names.padding(toLength: 15, withPad: " ", startingAt: 0)) \(kind.mediaType)")
            print("    \(kind.summary)")
            print("    settings: \(kind.settings.isEmpty ? "none" : kind.settings.map(\.rawValue).joined(separator: ", "))"
                + (kind.isServed ? "; served\(kind.streams ? ", streams" : "")" : ""))
        }
    }

    /// The registry as JSON.
    struct Registry: Encodable {
        struct Kind: Encodable {
            var name, displayName, summary, mediaType, storedExtension: String
            var prefixNames, extensions, settings: [String]
            var served, streams: Bool
        }
        struct Setting: Encodable { var name, help, schema: String }
        /// An input format (`InputFormat.all`): its schedule name (`timeline --json`'s `format`), display name and media
        /// type (the service's `format=auto` passes a source through with it).
        struct Input: Encodable { var name, displayName, mediaType: String }
        var outputs = OutputKind.all.map {
            Kind(name: $0.name, displayName: $0.displayName, summary: $0.summary, mediaType: $0.mediaType,
                 storedExtension: $0.storedExtension, prefixNames: $0.prefixNames, extensions: $0.extensions,
                 settings: $0.settings.map(\.rawValue), served: $0.isServed, streams: $0.streams)
        }
        var settings = OutputSettingName.allCases.map { Setting(name: $0.rawValue, help: $0.help, schema: $0.schema) }
        /// What the conformance matrix (Tests/ConformanceMatrix) crosses with the outputs.
        var inputs = InputFormat.all.map { Input(name: $0.source.rawValue, displayName: $0.source.displayName, mediaType: $0.mediaType) }
    }
}

extension OutputKind {
    /// How this command line names the kind in a message: its first ending, or, for the kind no `-o` prefix names,
    /// the option of `convert` that writes it (the sprite sheet's `--sheet`). The registry names no option.
    var commandLineLabel: String { name == OutputKind.sheet.name ? "--sheet" : extensions[0] }
}
