import Foundation
import GifFixtures
import GifxTimeline
import SystemPackage
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Every subcommand that reads a GIF takes `-` for standard input, which gifx copies to a temporary file
/// (the decoder reads its input twice) and removes when done (issue 28: to-mp4 let that spool go before
/// the conversion opened it). Each run here must read the whole GIF from its spool: with the CPUs kept
/// busy by other runs and spinning threads, and from a pipe whose writer stalls halfway and closes late.
/// The spool lands in a TMPDIR of the test's own, which must be empty once gifx exits.
@Suite struct StandardInputTests {
    /// Seven frames with distinct delays of 2 cs or more (kept as they are under either policy): the
    /// schedule is known without asking gifx, 85 cs in all.
    static let delays = [10, 20, 5, 7, 30, 10, 3]
    static let fixture = FixtureGIF.solidFrames(
        width: 16, height: 12, colorIndices: [1, 2, 3, 4, 5, 6, 7], delays: delays)

    @Test func everyCommandReadsStandardInputWhileTheCoresAreBusy() throws {
        let gif = try Self.fixture.encode()
        let load = BusyThreads(count: 2)
        defer { load.stop() }
        // Two rounds of every command at once: seven gifx processes and two spinning threads on
        // the machine's cores, besides whatever other suites run meanwhile.
        for round in 0..<2 {
            let runs = try InputCommand.allCases.concurrentMap { command in
                try StandardInputRun(command, name: "load\(round)", gif: gif)
            }
            for run in runs { run.verify() }
        }
    }

    @Test(.enabled(if: ffprobeAvailable(), "ffprobe (Debian package ffmpeg), the oracle, is not installed"),
          arguments: InputCommand.allCases)
    func commandReadsAPipeThatStallsAndClosesLate(_ command: InputCommand) throws {
        let gif = try Self.fixture.encode()
        try StandardInputRun.slowPipe(command, gif: gif).verify()
    }
}

/// A subcommand that takes an input, as run on `-`, and what its output must show.
enum InputCommand: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case timeline, timelineJSON, toMP4, toSprite, convert, frames, framesNull

    var testDescription: String { rawValue }

    func arguments(out folder: URL) -> [String] {
        let out = { folder.appendingPathComponent($0).path }
        switch self {
        case .timeline: return ["timeline", "-"]
        case .timelineJSON: return ["timeline", "--json", "-"]
        case .toMP4: return ["to-mp4", "-", "-o", out("clip.mp4"), "--quiet"]
        case .toSprite: return ["to-sprite", "-", "-o", out("sheet.png"), "--quiet"]
        case .convert: return ["convert", "-", "-o", out("all.timeline.json"), "-o", out("all.webp"), "--quiet"]
        case .frames: return ["frames", "-", "--out", out("frames"), "--quiet"]
        case .framesNull: return ["frames", "--null", "-", "--quiet"]
        }
    }

    /// The output holds the fixture's seven frames (and its 85 cs where the output tells its length).
    func verify(_ run: GifxRun, out folder: URL) {
        let frames = StandardInputTests.delays.count
        let total = StandardInputTests.delays.reduce(0, +)
        let path = { folder.appendingPathComponent($0).path }
        switch self {
        case .timeline:
            // A header row, one row per frame, the summary.
            let lines = run.stdoutText.split(separator: "\n")
            #expect(lines.count == frames + 2, "\(run.stdoutText)")
            #expect(lines.last?.hasPrefix("\(frames) frames, 0.\(total) s,") == true, "\(run.stdoutText)")
        case .timelineJSON:
            let timeline = try? JSONDecoder().decode(Timeline.self, from: run.stdout)
            #expect(timeline?.frames.map(\.delay) == StandardInputTests.delays, "\(run.stdoutText)")
        case .toMP4:
            #expect(fileSize(path("clip.mp4")) > 0)
            let seconds = probeDuration(path("clip.mp4"))
            #expect(seconds.map { abs($0 - Double(total) / 100) < 0.011 } == true, "ffprobe: \(String(describing: seconds))")
        case .toSprite:
            #expect(fileSize(path("sheet.png")) > 0)
            #expect(jsonFrameCount(path("sheet.json")) == frames)
        case .convert:
            #expect(fileSize(path("all.webp")) > 0)
            #expect(jsonFrameCount(path("all.timeline.json")) == frames)
        case .frames:
            let written = (try? FileManager.default.contentsOfDirectory(atPath: path("frames"))) ?? []
            #expect(written.filter { $0.hasSuffix(".png") }.count == frames, "\(written)")
        case .framesNull:
            #expect(run.stdoutText.hasPrefix("\(frames) frames "), "\(run.stdoutText)")
        }
    }
}

/// One run of a command on `-` with its own output folder and TMPDIR (where gifx spools stdin).
struct StandardInputRun: Sendable {
    let command: InputCommand
    let run: GifxRun
    let folder: URL
    /// What the TMPDIR held after the run: the spool must be gone.
    let leftInTemporary: [String]

    /// Runs `command` with `gif` as standard input: a file, or with `pipe` a pipe that `pipe` feeds.
    init(_ command: InputCommand, name: String, gif: Data, pipe: (@Sendable (FileDescriptor) -> Void)? = nil) throws {
        self.command = command
        folder = try temporaryFolder("stdin-\(name)-\(command.rawValue)")
        let temporary = folder.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("out"), withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = temporary.path
        let arguments = command.arguments(out: folder.appendingPathComponent("out"))
        run = try pipe.map { try runGifx(arguments, stdinPipe: $0, timeout: 60, environment: environment) }
            ?? runGifx(arguments, stdin: gif, timeout: 60, environment: environment)
        leftInTemporary = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
    }

    /// Exit 0, the outputs hold every frame, nothing left in TMPDIR; then the folder goes.
    func verify() {
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(run.status == 0 && !run.timedOut, "\(command.rawValue): exit \(run.status): \(run.stderr)")
        #expect(leftInTemporary.isEmpty, "\(command.rawValue) left \(leftInTemporary) in TMPDIR")
        command.verify(run, out: folder.appendingPathComponent("out"))
    }

    /// Runs `command` on a pipe fed half of `gif`, then, 0.3 s later, the rest, closed 0.3 s after that.
    static func slowPipe(_ command: InputCommand, gif: Data) throws -> StandardInputRun {
        try StandardInputRun(command, name: "pipe", gif: gif, pipe: { fd in
            // A failed write leaves gifx a truncated GIF, which the checks then catch.
            let half = gif.count / 2
            _ = try? fd.writeAll(gif.prefix(half))
            usleep(300_000)
            _ = try? fd.writeAll(gif.dropFirst(half))
            usleep(300_000)
        })
    }
}
