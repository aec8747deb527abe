import Foundation
import Synchronization
import Testing

/// The subcommands bad input is pushed through.
enum Subcommand: String, CaseIterable, Sendable {
    case timeline, toMP4 = "to-mp4", toSprite = "to-sprite"

    /// Arguments that read `input` and write any output into `folder` (which starts empty).
    func arguments(input: String, folder: URL, extra: [String] = []) -> [String] {
        switch self {
        case .timeline: return ["timeline", input] + extra
        case .toMP4: return ["to-mp4", input, "-o", folder.appendingPathComponent("out.mp4").path] + extra
        case .toSprite:
            return ["to-sprite", input, "-o", folder.appendingPathComponent("out.png").path,
                    "--json", folder.appendingPathComponent("out.json").path] + extra
        }
    }
}

/// One run of gifx on bad input, and what the contract (design.md "Bad input", issue 8) requires of it.
struct BadInputCase: Sendable {
    var label: String
    var input: String
    var command: Subcommand
    var extra: [String] = []
    var timeout: TimeInterval = 30

    /// Runs the case in a fresh output folder and returns every broken rule (empty when all hold):
    /// no crash (status < 128), no hang, exit 0 or 65 (to-sprite: 64 only for a frame wider than
    /// --max-size), on failure exactly one non-warning `gifx: ` line naming the input and an output
    /// folder left empty (no target, no hidden `.*.gifx-*` temporary), on success an output and no temporary.
    func check() -> [String] {
        let folder: URL
        do { folder = try temporaryFolder("rel-\(command.rawValue)") } catch { return ["\(label): \(error)"] }
        defer { try? FileManager.default.removeItem(at: folder) }
        let run: GifxRun
        do {
            run = try runGifx(command.arguments(input: input, folder: folder, extra: extra), timeout: timeout)
        } catch {
            return ["\(label) [\(command.rawValue)]: could not run gifx: \(error)"]
        }
        let name = "\(label) [\(command.rawValue)]"
        var problems: [String] = []
        if run.timedOut { problems.append("\(name): still running after \(Int(timeout)) s") }
        if run.status >= 128 { problems.append("\(name): killed by signal \(run.status - 128): \(run.stderr)") }
        let left = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let temporaries = left.filter { $0.hasPrefix(".") && $0.contains(".gifx-") }
        if !temporaries.isEmpty { problems.append("\(name): temporary files left: \(temporaries)") }
        let lines = run.stderrLines
        if let stray = lines.first(where: { !$0.hasPrefix("gifx: ") }) {
            problems.append("\(name): stderr line without the gifx: prefix: \(stray)")
        }
        switch run.status {
        case 0:
            if command != .timeline && left.filter({ !$0.hasPrefix(".") }).isEmpty {
                problems.append("\(name): exit 0 but no output written")
            }
        case 64 where command == .toSprite && run.stderr.contains("--max-size"):
            break  // documented: a frame wider than the sheet limit is a usage error (docs/reliability.md)
        case 65:
            break
        default:
            if !run.timedOut && run.status < 128 {
                problems.append("\(name): exit \(run.status), expected 0 or 65: \(run.stderr)")
            }
        }
        if run.status != 0 && !run.timedOut {
            let errors = lines.filter { !$0.contains(": warning: ") }
            if errors.count != 1 { problems.append("\(name): \(errors.count) error lines: \(run.stderr)") }
            if let line = errors.first, !line.hasPrefix("gifx: \(input): ") {
                problems.append("\(name): error line does not name the input first: \(line)")
            }
            if !left.isEmpty { problems.append("\(name): files left after failure: \(left)") }
        }
        return problems
    }
}

/// Hands out case indices and collects findings across the worker threads of `checkAll`.
private final class CheckQueue: Sendable {
    private let state = Mutex<(next: Int, found: [(Int, [String])])>((0, []))
    func take() -> Int { state.withLock { s in defer { s.next += 1 }; return s.next } }
    func add(_ index: Int, _ problems: [String]) { state.withLock { $0.found.append((index, problems)) } }
    var found: [String] { state.withLock { $0.found }.sorted { $0.0 < $1.0 }.flatMap(\.1) }
}

/// Runs `cases` a few at a time (each is a child process; 3 keeps 2 cores busy while one waits on I/O)
/// and returns the broken rules of all, in case order.
func checkAll(_ cases: [BadInputCase], parallel: Int = 3) -> [String] {
    let queue = CheckQueue()
    let group = DispatchGroup()
    for _ in 0..<parallel {
        DispatchQueue.global().async(group: group) {
            while case let index = queue.take(), index < cases.count {
                let problems = cases[index].check()
                if !problems.isEmpty { queue.add(index, problems) }
            }
        }
    }
    group.wait()
    return queue.found
}

/// Records each broken rule as its own issue (at most `limit`, then a count), so a failure says which file.
func expectNoProblems(_ problems: [String], limit: Int = 25) {
    for problem in problems.prefix(limit) { Issue.record(Comment(rawValue: problem)) }
    if problems.count > limit { Issue.record("… and \(problems.count - limit) more") }
}

/// Whether to run every file through every command instead of the deterministic sample.
var fullReliabilityRun: Bool { ProcessInfo.processInfo.environment["GIFX_RELIABILITY_FULL"] == "1" }
