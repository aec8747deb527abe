import Foundation
import GifFixtures
import GifxKit
import Synchronization
import Testing

/// SVT-AV1 1.4 creates its threads with SCHED_FIFO priority 99 whenever the process may (root, as CI runs): 70
/// real-time threads for one AVIF, and threads they start inherit the policy. Two of those spinning on a 2-core
/// machine leave every other process 5 % of the CPU: stop 52's CI ran out of its 90 minutes that way (a test's
/// busy-loop threads inherited SCHED_FIFO from the test process's pool). gifx never lets an encoder run at
/// real-time priority; here every thread of this process is checked while an AVIF is being encoded in it.
@Suite struct RealtimePriorityTests {
    /// The scheduling policy of every thread of this process (/proc/self/task/*/stat, field 41: 0 normal,
    /// 1 SCHED_FIFO, 2 SCHED_RR), by thread id.
    static func policies() -> [String: Int] {
        var result: [String: Int] = [:]
        for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? [] {
            guard let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            // Fields after the command name start at field 3 (state); the policy is field 41.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 38, let policy = Int(fields[38]) { result[task] = policy }
        }
        return result
    }

    @Test(.enabled(if: geteuid() == 0, "not root: an encoder cannot ask for real-time priority, so there is nothing to refuse"))
    func anAVIFEncodeRunsNoThreadAtRealtimePriority() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gifx-rt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // 96x64: SVT-AV1 (libaom takes frames under 64 pixels a side).
        let gif = try FixtureGIF.solidFrames(width: 96, height: 64, colorIndices: Array(1...12), delays: Array(repeating: 4, count: 12)).encode()
        let target = folder.appendingPathComponent("out.avif").path
        var options = VideoSettings()
        options.container = .avif
        options.codec = .av1
        let seen = Mutex<(checks: Int, realtime: [String: Int])>((0, [:]))
        _ = try await GifConverter(settings: RunSettings(threads: 2)).convert(
            .bytes(gif), to: [.video(target: .file(target), options: options)]
        ) { _ in
            // While the encoder is open (every canvas after the first is fed to it), its threads exist.
            let realtime = Self.policies().filter { $0.value != 0 }
            seen.withLock { $0.checks += 1; $0.realtime.merge(realtime) { a, _ in a } }
        }
        let (checks, realtime) = seen.withLock { $0 }
        #expect(checks >= 12)
        #expect(realtime.isEmpty, "threads at real-time priority (tid: policy): \(realtime)")
        #expect(Self.policies().values.allSatisfy { $0 == 0 })
    }
}
