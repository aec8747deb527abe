import ArgumentParser
import GifxEncoders

#if canImport(Glibc)
import Glibc
#endif

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
            ServeCommand.self,
        ])

    /// A conversion started by `gifx batch` first takes on the limits its batch set (no-op otherwise).
    static func main() {
        if CommandLine.arguments.dropFirst().elementsEqual(["--version"]) {
            print(VersionText.full)
            return
        }
        BatchChildSetup.applyFromEnvironment()
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            endProgressOfRefusedCommandLine(exitCode: exitCode(for: error).rawValue)
            exit(withError: error)
        }
    }

    /// `--progress json` promises an end line on every exit: a command line refused before any command ran
    /// (a usage error found by the parser or a `validate()`) writes it here, from the raw arguments.
    private static func endProgressOfRefusedCommandLine(exitCode: Int32) {
        guard exitCode != 0, JSONProgress.active.withLock({ $0 == nil }) else { return }
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let batchSeparator = arguments.firstIndex(of: "--"), batchSeparator < arguments.count {
            // After `--`, the options are batch's children's.
            return endProgress(in: Array(arguments[..<batchSeparator]), exitCode: exitCode)
        }
        endProgress(in: arguments, exitCode: exitCode)
    }

    private static func endProgress(in arguments: [String], exitCode: Int32) {
        func value(of option: String) -> String? {
            if let i = arguments.firstIndex(of: option), i + 1 < arguments.count { return arguments[i + 1] }
            return arguments.first { $0.hasPrefix(option + "=") }.map { String($0.dropFirst(option.count + 1)) }
        }
        let fd = value(of: "--progress-fd").flatMap(Int32.init)
        guard value(of: "--progress") == "json" || fd != nil else { return }
        let target = fd.flatMap { fcntl($0, F_GETFL) != -1 ? $0 : nil } ?? STDERR_FILENO
        JSONProgress(fd: target).end(exitCode: exitCode, outputBytes: 0)
    }
}
