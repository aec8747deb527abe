import Foundation
import GifFixtures
import Testing

/// Results of concurrent runs, collected under a lock.
final class RunResults: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [(file: String, run: Result<GifxRun, any Error>)] = []
    private var next = 0

    /// The index of the next file to run, or nil when all are taken.
    func take(below count: Int) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard next < count else { return nil }
        next += 1
        return next - 1
    }

    func add(_ file: String, _ run: Result<GifxRun, any Error>) {
        lock.lock()
        results.append((file, run))
        lock.unlock()
    }

    var all: [(file: String, run: Result<GifxRun, any Error>)] {
        lock.lock()
        defer { lock.unlock() }
        return results.sorted { $0.file < $1.file }
    }
}

/// Runs `gifx arguments(file)` for every file, `parallel` at a time (each run is a child process).
func runGifxOnEach(
    _ files: [String], parallel: Int, timeout: TimeInterval, _ arguments: @escaping @Sendable (String) -> [String]
) -> [(file: String, run: Result<GifxRun, any Error>)] {
    let results = RunResults()
    let group = DispatchGroup()
    for _ in 0..<parallel {
        DispatchQueue.global().async(group: group) {
            while let index = results.take(below: files.count) {
                let file = files[index]
                results.add(file, Result { try runGifx(arguments(file), timeout: timeout) })
            }
        }
    }
    group.wait()
    return results.all
}

/// Every fuzzer-found file through `gifx timeline --json`: no crash, no hang, exit 0 or 65, and one
/// `gifx: ` line on stderr when it fails.
@Suite struct TimelineFuzzTests {
    @Test(.enabled(if: corpusDirectory("fuzz") != nil, "../shared/corpus/fuzz is absent or cannot be read"))
    func everyFuzzFileGivesATimelineOrOneClearError() throws {
        let directory = try #require(corpusDirectory("fuzz"))
        let files = corpusGIFs(in: directory)
        #expect(files.count > 250)
        let started = Date()
        let path = directory.path
        let results = runGifxOnEach(files, parallel: 4, timeout: 5) { ["timeline", "\(path)/\($0)", "--json"] }
        #expect(results.count == files.count)
        var ok = 0, refused = 0
        for (file, outcome) in results {
            let run: GifxRun
            switch outcome {
            case .success(let value): run = value
            case .failure(let error):
                Issue.record("\(file): could not run gifx: \(error)")
                continue
            }
            #expect(!run.timedOut, "\(file): still running after 5 s")
            #expect(run.status < 128, "\(file): killed by signal \(run.status - 128)")
            #expect(run.status == 0 || run.status == 65, "\(file): exit \(run.status): \(run.stderr)")
            if run.status == 0 {
                ok += 1
                let json = try? JSONSerialization.jsonObject(with: run.stdout) as? [String: Any]
                let frames = json?["frames"] as? [Any]
                #expect(frames?.isEmpty == false, "\(file): exit 0 without frames")
            } else {
                refused += 1
                #expect(run.stderrLines.count == 1, "\(file): \(run.stderr)")
                #expect(run.stderrLines.first?.hasPrefix("gifx: ") == true, "\(file): \(run.stderr)")
            }
        }
        let seconds = Date().timeIntervalSince(started)
        print("fuzz timeline: \(files.count) files, \(ok) exit 0, \(refused) exit 65, \(String(format: "%.1f", seconds)) s")
    }
}
