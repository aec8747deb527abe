import ArgumentParser
import CArguments
import GifxKit
import GifxServer

#if canImport(Glibc)
import Glibc
#endif

/// The root command: what gifx reads and writes, the subcommands, and the service.
@main
struct Gifx: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gifx",
        abstract: "Animated \(inputNames) to video, animated images and sprite sheets, with the exact timing of the reference players.",
        discussion: """
            Reads: \(inputNames), animated or still (told by their first bytes; a file, or - for standard input).
            Writes: \(EnglishList.phrase(OutputKind.all.map(\.displayName))) (gifx formats lists each with its \
            settings; video in H.264, HEVC, VP9 or AV1); convert writes any number of them from one decode.
            Serves: gifx serve does the same over HTTP, with a content-addressed cache (docs/serve.md).
            """,
        version: VersionText.short,
        subcommands: [
            ConvertCommand.self, ToMP4Command.self, ToSpriteCommand.self, TimelineCommand.self, BatchCommand.self, FramesCommand.self,
            VerifyCommand.self, FormatsCommand.self, EmbedCommand.self,
            ServeCommand.self,
        ])

    /// The input formats, from the registry (`InputFormat.all`): "GIF, WebP and PNG".
    static var inputNames: String { EnglishList.phrase(InputFormat.all.map(\.source.displayName)) }

    /// A worker of `gifx batch` or `gifx serve` (`WorkerChannel.adopt`) serves its jobs and exits (`BatchWorker`,
    /// `ServeWorker`); any other run parses its command line.
    static func main() {
        guard let arguments = ProcessArguments.all else {
            // Never the help and 0: a script would read that as success with its arguments ignored.
            ProcessArguments.refuse()
        }
        if arguments.dropFirst().elementsEqual(["--version"]) {
            print(VersionText.full)
            return
        }
        // SVT-AV1 prints its banner and configuration (16 lines at its default level) on stderr whenever an encoder
        // opens, by itself, not through av_log: its level is the environment variable SVT_LOG, read then. The tool
        // sets it here, before any thread starts and unless the user set it: errors only (1), or warnings too (2)
        // with GIFX_AV_LOG=1. The library leaves the process's environment alone.
        setenv("SVT_LOG", DeveloperSwitches.current.diagnostics.libavLogging ? "2" : "1", 0)
        BatchWorker.serveIfRequested()
        ServeWorker.serveIfRequested(progress: { DeveloperSwitches.current.progressed(done: $0) })
        do {
            var command = try parseAsRoot(Array(arguments.dropFirst()))
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
        let arguments = Array((ProcessArguments.all ?? []).dropFirst())
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

/// The command line, from whichever source has it. The Swift runtime linked statically (`make dist`) reads
/// `CommandLine.arguments` from /proc/self/cmdline, so in a chroot or sandbox without /proc it sees none;
/// the C constructor in CArguments kept argc/argv as glibc handed them over before any Swift code ran.
enum ProcessArguments {
    /// The arguments, program name first; nil when neither source has even the program name (then whether
    /// arguments were given cannot be told, and the run is refused rather than taken as a bare `gifx`).
    static let all: [String]? = resolve(swift: CommandLine.arguments, captured: captured)

    /// What the C constructor kept; nil when it never ran.
    static var captured: [String]? {
        let count = gifx_captured_argument_count()
        guard count >= 0 else { return nil }
        return (0..<count).map { String(cString: gifx_captured_argument(Int32($0))!) }
    }

    /// The longer of the two views (they agree wherever both are read; the Swift runtime's is empty when it
    /// had no /proc); nil when both are empty.
    static func resolve(swift: [String], captured: [String]?) -> [String]? {
        if let captured, captured.count > swift.count { return captured }
        return swift.isEmpty ? nil : swift
    }

    /// EX_OSERR: the system did not give the process its command line.
    static let unreadableExitCode: Int32 = 71

    /// One line on standard error and EX_OSERR.
    static func refuse() -> Never {
        let line = "gifx: cannot read the command line: no arguments from the C runtime and none in /proc/self/cmdline "
            + "(is /proc mounted?)\n"
        _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        exit(unreadableExitCode)
    }
}
