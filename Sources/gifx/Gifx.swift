import ArgumentParser
import GifxEncoders

/// The root command: GIF to MP4, to sprite sheet, or to its exact schedule.
@main
struct Gifx: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gifx",
        abstract: "GIF to MP4 and sprite sheets, with the exact timing of the reference iOS player.",
        version: VersionText.short,
        subcommands: [
            ConvertCommand.self, ToMP4Command.self, ToSpriteCommand.self, TimelineCommand.self, BatchCommand.self, FramesCommand.self,
            VerifyCommand.self,
        ])

    /// A conversion started by `gifx batch` first takes on the limits its batch set (no-op otherwise).
    static func main() {
        if CommandLine.arguments.dropFirst().elementsEqual(["--version"]) {
            print(VersionText.full)
            return
        }
        BatchChildSetup.applyFromEnvironment()
        main(nil)
    }
}
