import ArgumentParser
import Foundation
import GifxKit
import GifxServer
import GifxTimeline

/// `gifx embed IN --source URL --base-url URL --signing-key-file PATH`: the HTML to paste for an animation served by
/// `gifx serve`, with signed URLs of its renditions (converted when first asked for); only IN's metadata is read.
struct EmbedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "embed",
        abstract: "Print the HTML to paste for an animation: a video (AV1, VP9, H.264) and a picture (AVIF, WebP, the GIF) whose sources are signed URLs of gifx serve.",
        discussion: """
            Nothing is converted: each source is a signed URL (GET /v1/SIGNATURE/OPTIONS/SOURCE) that gifx serve, \
            started with the same --signing-key-file and an --origin that holds --source, converts when a browser \
            first asks for it. IN is read for its size and loop count (metadata only): a GIF that loops forever \
            gets the video's loop attribute, one that plays N times a small script that replays it N - 1 times.
            """)

    @Argument(help: "The animation (\(InputFormat.helpPhrase())), or - for standard input: its size and loop count.")
    var input: String
    @Option(help: ArgumentHelp("The URL the service fetches the animation from (under one of its --origin).", valueName: "url"))
    var source: String
    @Option(help: ArgumentHelp("The service's address as browsers reach it, e.g. https://gifx.example.", valueName: "url"))
    var baseUrl: String
    @Option(help: ArgumentHelp(
        "A file holding the service's key of signed URLs (its --signing-key-file: at least 32 bytes).", valueName: "path"))
    var signingKeyFile: String
    @Option(help: ArgumentHelp("The image's text alternative (default: IN's file name).", valueName: "text"))
    var alt: String?
    @Option(name: .shortAndLong, help: ArgumentHelp("Write the HTML to this file instead of standard output.", valueName: "file"))
    var output: String?
    @Flag(help: "Replace an existing -o file.") var overwrite = false

    func validate() throws {
        guard let url = URL(string: source), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              url.host != nil
        else {
            throw ValidationError("--source must be an absolute http(s) URL")
        }
        if !SignedURLMaker.isServiceBase(baseUrl) {
            throw ValidationError("--base-url must be the service's absolute http(s) address, without query or fragment")
        }
        if overwrite && output == nil { throw ValidationError("--overwrite goes with -o") }
        _ = try signingKey()
    }

    /// The key as `gifx serve --signing-key-file` reads it: the file without its trailing line break, 32 bytes or more.
    func signingKey() throws -> [UInt8] {
        let key = try ServeCommand.secret(signingKeyFile, flag: "--signing-key-file")
        if key.count < 32 { throw ValidationError("the signing key (--signing-key-file) must be at least 32 bytes") }
        return key
    }

    func run() throws {
        let key = try signingKey()
        try reportingErrors(input: input) {
            let metadata = try InputSource.withPath(input) { path in
                try readAnimationMetadata(path: path, limits: DecodeLimits())
            }
            let timeline = Timeline(metadata.timelineInput)
            let name = input == "-" ? "animation" : URL(fileURLWithPath: input).lastPathComponent
            let markup = EmbedMarkup(
                timeline: timeline, source: source, alt: alt ?? name, signer: SignedURLMaker(base: baseUrl, key: key))
            if let output {
                try writeTextOutput(markup.html, to: output, overwrite: overwrite)
            } else {
                FileHandle.standardOutput.write(Data(markup.html.utf8))
            }
        }
    }
}
