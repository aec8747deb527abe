import ChildProcesses
import Foundation
import GifFixtures
import Testing

/// `--memory-budget` bounds the whole process (issue 24), measured from outside: the child's peak RSS as
/// wait4 reports it, not its own `--stats`. Each output kind first asks for a budget too small to learn the
/// smallest that works (exit 78, one line naming it), then runs 24 MiB above it: the planner must have
/// chosen settings whose real peak stays within the budget + 10 %.
///
/// The peak is GNU time's (`%M`, from its own wait4), not this process's wait4 of a child it spawned:
/// Linux carries the spawning process's high-water mark into the child's ru_maxrss at exec, and the test
/// runner is several hundred MiB (every child then "peaked" at 832 MiB). GNU time is a 2 MiB process.
@Suite(.serialized) struct MemoryBudgetTests {
    /// 1920×1080, 6 frames: the encoders' buffers, not the runtime, decide the peak.
    private static let gif = FixtureGIF.solidFrames(
        width: 1920, height: 1080, colorIndices: [1, 2, 3, 4, 5, 6], delays: [4, 4, 8, 4, 4, 8])

    static let kinds: [(String, [String])] = [
        ("h264", ["to-mp4", "-o", "o.mp4"]),
        ("hevc", ["to-mp4", "-o", "o.mp4", "--codec", "hevc"]),
        ("av1", ["to-mp4", "-o", "o.mp4", "--codec", "av1", "--preset", "veryfast"]),
        ("vp9", ["convert", "-o", "o.webm"]),
        ("webp", ["convert", "-o", "o.webp"]),
        ("sheet", ["to-sprite", "-o", "o.png"]),
        ("convert", ["convert", "-o", "o.mp4", "-o", "o.webm", "-o", "o.webp", "-o", "o.jpg", "--sheet", "s.png"]),
    ]

    @Test("peak RSS (wait4) stays within the budget + 10 % just above the smallest budget", arguments: kinds.map(\.0))
    func peakWithinBudget(kind: String) throws {
        let folder = try temporaryFolder(kind)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(Self.gif, to: folder)
        let words = try #require(Self.kinds.first { $0.0 == kind }?.1)
        let arguments = [words[0], input] + words.dropFirst().map {
            $0.hasPrefix("o.") || $0.hasPrefix("s.") ? folder.appendingPathComponent($0).path : $0
        } + ["--threads", "2", "--quiet"]

        let refused = try runGifx(arguments + ["--memory-budget", "1M"], timeout: 60)
        #expect(refused.status == 78, "\(refused.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["in.gif"])
        let smallest = try #require(refused.stderrLines.first?.split(separator: " ").dropLast().last.flatMap { Int($0) })

        let budget = (smallest + 24) << 20
        let report = folder.appendingPathComponent("time.txt").path
        let run = try CapturedRun.run(
            "/usr/bin/time", ["-f", "%M", "-o", report, gifxExecutable().path] + arguments + ["--memory-budget", "\(budget)"],
            timeout: 180 * testTimeScale)
        #expect(run.status == 0, "\(run.stderrText)")
        let kibibytes = try #require(Int(String(contentsOfFile: report, encoding: .utf8).split(separator: "\n").last ?? ""))
        let peak = kibibytes << 10
        #expect(peak > 24 << 20)
        #expect(
            Double(peak) <= Double(budget) * 1.10, "\(kind): peak \(peak >> 20) MiB over a budget of \(budget >> 20) MiB")
    }
}
