import ChildProcesses
import Foundation
import GifFixtures
import Testing

/// Issue 38: without /proc (a minimal chroot, a build sandbox), the Swift runtime sees no arguments, static or
/// dynamic alike (it reads /proc/self/cmdline); gifx then printed the root help and exited 0, ignoring its
/// command line. Each run here is in a private mount namespace with an empty tmpfs over /proc (`unshare -m`),
/// so nothing of /proc/self is there; the debug binary beside the tests, and the `make dist` binary (the Swift
/// runtime linked statically) when it has been built.
@Suite(.enabled(if: EmptyProc.works, EmptyProc.reason))
struct ArgumentsWithoutProcTests {

    /// The binaries to check: the one the tests run, and the release binary of `make dist` when present and
    /// built after it (an older one was built from older sources than the ones under test).
    static var binaries: [String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let dist = root.appendingPathComponent(".build-dist/swift/release/gifx").path
        func modified(_ path: String) -> Date? {
            (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
        }
        let tested = gifxExecutable().path
        guard FileManager.default.isExecutableFile(atPath: dist), let built = modified(dist), let debug = modified(tested),
              built >= debug else { return [tested] }
        return [tested, dist]
    }

    /// 5 frames of 2, 3, 4, 5, 6 cs: 20 cs in all.
    static let fixture = FixtureGIF.solidFrames(
        width: 16, height: 16, colorIndices: [1, 2, 3, 4, 5], delays: [2, 3, 4, 5, 6])

    /// `binary arguments…` with an empty /proc, in `folder`.
    static func runWithoutProc(_ binary: String, _ arguments: [String], in folder: URL) throws -> CapturedRun {
        try CapturedRun.run(
            "/usr/bin/unshare",
            ["-m", "sh", "-c", "mount -t tmpfs none /proc && cd \"$0\" && exec \"$@\"", folder.path, binary] + arguments,
            timeout: 60 * testTimeScale)
    }

    static func isHelp(_ text: String) -> Bool { text.contains("USAGE:") || text.contains("OVERVIEW:") }

    @Test(arguments: binaries) func versionIsTheVersion(binary: String) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try Self.runWithoutProc(binary, ["--version"], in: folder)
        #expect(run.status == 0, "stderr: \(run.stderrText)")
        #expect(run.stdoutText.hasPrefix("gifx "), "stdout: \(run.stdoutText.prefix(200))")
        #expect(!Self.isHelp(run.stdoutText))
    }

    @Test(arguments: binaries) func timelineReadsTheGIFNamed(binary: String) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try writeGIF(Self.fixture, to: folder, name: "x.gif")
        let run = try Self.runWithoutProc(binary, ["timeline", "x.gif", "--json"], in: folder)
        #expect(run.status == 0, "stderr: \(run.stderrText)")
        let json = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        let frames = try #require(json["frames"] as? [[String: Any]])
        #expect(frames.map { $0["delay"] as? Int } == [2, 3, 4, 5, 6])
    }

    /// The batch starts its workers from its own file: /proc/self/exe, or without /proc the path the kernel
    /// ran (it failed every input, "cannot start a child process", before).
    @Test(arguments: binaries) func batchConvertsEveryInput(binary: String) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        _ = try writeGIF(Self.fixture, to: inputs, name: "a.gif")
        _ = try writeGIF(Self.fixture, to: inputs, name: "b.gif")
        let run = try Self.runWithoutProc(binary, ["batch", "timeline", "in", "--out-dir", "out", "--jobs", "2"], in: folder)
        #expect(run.status == 0, "stderr: \(run.stderrText)")
        for name in ["a", "b"] {
            let data = try Data(contentsOf: folder.appendingPathComponent("out/\(name).timeline.json"))
            let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect((json["frames"] as? [[String: Any]])?.map { $0["delay"] as? Int } == [2, 3, 4, 5, 6])
        }
    }

    @Test(.enabled(if: ffprobeAvailable(), "ffprobe (Debian package ffmpeg), the oracle, is not installed"),
          arguments: binaries)
    func toMP4WritesTheOutputNamed(binary: String) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try writeGIF(Self.fixture, to: folder, name: "x.gif")
        let run = try Self.runWithoutProc(binary, ["to-mp4", "x.gif", "-o", "out.mp4", "--quiet"], in: folder)
        #expect(run.status == 0, "stderr: \(run.stderrText)")
        #expect(!Self.isHelp(run.stdoutText + run.stderrText))
        let duration = try #require(probeDuration(folder.appendingPathComponent("out.mp4").path))
        #expect(abs(duration - 0.20) < 0.02)
    }

    /// A command line that is wrong is still refused (exit 64, one line), not answered with the help and 0.
    @Test(arguments: binaries) func aWrongCommandLineIsRefused(binary: String) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try Self.runWithoutProc(binary, ["to-mp4", "--no-such-option"], in: folder)
        #expect(run.status == 64)
        #expect(!Self.isHelp(run.stdoutText))
    }
}


/// Whether a private mount namespace with an empty /proc can be made here (root, or user namespaces).
enum EmptyProc {
    static let whyNot: String? = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else {
            return "unshare (util-linux) is not installed"
        }
        guard let run = try? CapturedRun.run(
            "/usr/bin/unshare", ["-m", "sh", "-c", "mount -t tmpfs none /proc && test ! -e /proc/self"], timeout: 30)
        else { return "unshare could not be started" }
        return run.status == 0 ? nil : "unshare -m with a tmpfs over /proc is not permitted here (needs root or user namespaces)"
    }()
    static var works: Bool { whyNot == nil }
    static var reason: Comment { Comment(rawValue: whyNot ?? "") }
}
