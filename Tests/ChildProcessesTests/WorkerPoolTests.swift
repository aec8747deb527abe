import Foundation
import Testing

@testable import ChildProcesses

#if canImport(Glibc)
import Glibc
#endif

/// The worker pool on its own (batch's and serve's workers are tested through them: Tests/CLITests/Batch*Tests.swift,
/// Tests/ServerTests/WorkerTests.swift). Its workers here are `cat` (each job line comes back as its answer) and
/// small shell scripts, under a role of the tests' own.
@Suite struct WorkerPoolTests {
    /// A role of the tests': `arguments` after the executable.
    static func role(_ arguments: [String] = []) -> WorkerRole {
        WorkerRole(
            variable: "GIFX_TEST_WORKER", parentVariable: "GIFX_TEST_PARENT", memoryLimitVariable: "GIFX_TEST_MAX_MEMORY",
            arguments: arguments, parentDeathSignal: SIGKILL)
    }

    static func start(_ pool: WorkerPool) throws -> PoolWorker {
        try #require(pool.start(), "the pool is stopping").get()
    }

    static func line(_ text: String) -> Data { Data((text + "\n").utf8) }

    /// Waits (at most 10 s) until `worker` has ended; whether it did.
    static func ends(_ worker: PoolWorker, in pool: WorkerPool) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if pool.hasEnded(worker) { return true }
            usleep(5_000)
        }
        return false
    }

    @Test func eachJobGetsItsAnswerLine() throws {
        let pool = WorkerPool(role: Self.role(), executable: "/bin/cat")
        let worker = try Self.start(pool)
        #expect(worker.exchange(Self.line("first")) == Data("first".utf8))
        #expect(worker.exchange(Self.line("{\"a\": 2}")) == Data("{\"a\": 2}".utf8))
        // End of its jobs: an idle worker exits 0.
        let ending = pool.reap(worker)
        #expect(ending?.exitStatus == 0, "\(String(describing: ending))")
    }

    /// A worker's pipes are close-on-exec: a second worker does not hold the first's jobs pipe open, so closing it
    /// ends the first at once.
    @Test func aWorkersPipesAreItsOwn() throws {
        let pool = WorkerPool(role: Self.role(), executable: "/bin/cat")
        let first = try Self.start(pool), second = try Self.start(pool)
        first.closeJobs()
        #expect(Self.ends(first, in: pool), "the second worker holds the first's jobs pipe open")
        #expect(!pool.hasEnded(second))
        #expect(second.exchange(Self.line("still here")) == Data("still here".utf8))
        #expect(pool.reap(second)?.exitStatus == 0)
    }

    /// A worker that dies mid-job ends its answers: no answer, and the reaping says how it died; a signal to it
    /// afterwards is refused (its pid may be another process's by then).
    @Test func aWorkerThatDiesMidJobIsReapedWithItsSignal() throws {
        let pool = WorkerPool(role: Self.role(["-c", "read line; kill -SEGV $$"]), executable: "/bin/sh")
        let worker = try Self.start(pool)
        #expect(worker.exchange(Self.line("job")) == nil)
        let ending = pool.reap(worker)
        #expect(ending?.signal == SIGSEGV, "\(String(describing: ending))")
        #expect(!pool.signal(worker, SIGKILL))
        #expect(pool.reap(worker) == nil)
    }

    /// A stopped pool (a batch's SIGINT/SIGTERM) passes the signal on to every live worker and starts no more.
    @Test func aStoppedPoolForwardsItsSignalAndStartsNone() throws {
        let pool = WorkerPool(role: Self.role(), executable: "/bin/cat")
        let workers = [try Self.start(pool), try Self.start(pool)]
        pool.stop(forwarding: SIGTERM)
        #expect(pool.stoppingSignal == SIGTERM)
        #expect(pool.start() == nil)
        for worker in workers {
            let ending = pool.reap(worker)
            #expect(ending?.signal == SIGTERM, "\(String(describing: ending))")
        }
    }

    /// A worker's environment: this process's, the caller's additions and the role's variables.
    @Test func aWorkerIsToldItsRoleItsPoolAndItsLimit() throws {
        let script = "read line; echo \"$GIFX_TEST_WORKER $GIFX_TEST_PARENT $GIFX_TEST_MAX_MEMORY $EXTRA\""
        let pool = WorkerPool(
            role: Self.role(["-c", script]), executable: "/bin/sh", environment: ["EXTRA": "x"], memoryLimit: 1 << 30)
        let worker = try Self.start(pool)
        #expect(worker.exchange(Self.line("job")) == Data("1 \(getpid()) \(1 << 30) x".utf8))
        #expect(pool.reap(worker)?.exitStatus == 0)
    }

    /// Workers started from threads that end at once are still there: every spawn is on the pool's own thread, the
    /// one a worker's parent-death signal follows (serve's worker asking for it: Tests/ServerTests/WorkerTests.swift).
    @Test func workersStartedFromShortLivedThreadsWork() async throws {
        let pool = WorkerPool(role: Self.role(), executable: "/bin/cat")
        let workers = await withTaskGroup(of: PoolWorker?.self) { group in
            for _ in 0..<4 {
                group.addTask { try? await withCheckedThrowingContinuation { continuation in
                    Thread { continuation.resume(with: Result { try pool.start()!.get() }) }.start()
                } }
            }
            return await group.reduce(into: [PoolWorker]()) { if let worker = $1 { $0.append(worker) } }
        }
        #expect(workers.count == 4)
        for worker in workers { #expect(worker.exchange(Self.line("ok")) == Data("ok".utf8)) }
        for worker in workers { #expect(pool.reap(worker)?.exitStatus == 0) }
    }
}

@Suite struct LineReaderTests {
    /// Lines split across reads, several in one read, and a last line without its newline.
    @Test func linesAcrossReads() throws {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        var reader = LineReader(fd: ends[0])
        for part in ["ab", "c\nd\n", "\ne"] { _ = part.withCString { write(ends[1], $0, strlen($0)) } }
        close(ends[1])
        defer { close(ends[0]) }
        var lines: [String] = []
        while let line = reader.next() { lines.append(String(decoding: line, as: UTF8.self)) }
        #expect(lines == ["abc", "d", "", "e"])
    }

    /// `drain` returns what is readable now and says when the writer has closed its end.
    @Test func drainSaysWhenTheWriterHasGone() throws {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        var reader = LineReader(fd: ends[0])
        _ = "0\n12\n3".withCString { write(ends[1], $0, strlen($0)) }
        let first = reader.drain()
        #expect(first.lines.map { String(decoding: $0, as: UTF8.self) } == ["0", "12"] && !first.ended)
        close(ends[1])
        let second = reader.drain()
        #expect(second.lines.isEmpty && second.ended)
    }
}
