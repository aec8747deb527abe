import CMalloc
import ChildProcesses
import Foundation
@testable import GifxPipeline
import Testing
@testable import GifxEncoders

/// `HeapPolicy`: once a tight plan fixes glibc's mmap threshold, a large block is mapped on its own (and so
/// unmapped when freed) even after a larger block has been freed, which without the policy raises glibc's
/// dynamic threshold past it and puts it in a thread's heap, where it stays resident after `free`. Judged by
/// glibc's own mark on the block (IS_MMAPPED in its size word). glibc serves any request from free memory the
/// heap already holds, mapped or not, so the check only means something in a fresh heap: the test runs itself
/// again in a child process of this test bundle (GIFX_HEAP_POLICY_CHILD=1), where no other test has freed
/// anything; in the whole suite's process it once failed for that reason alone.
@Suite struct HeapPolicyTests {
    static let childVariable = "GIFX_HEAP_POLICY_CHILD"

    @Test("after the policy, a 1 MiB block is mapped even once a 24 MiB block was freed")
    func largeBlocksStayMapped() throws {
        guard ProcessInfo.processInfo.environment[Self.childVariable] == "1" else {
            var environment = ProcessInfo.processInfo.environment
            environment[Self.childVariable] = "1"
            let run = try CapturedRun.run(
                CommandLine.arguments[0],
                ["--testing-library", "swift-testing", "--filter", "HeapPolicyTests"],
                environment: environment, timeout: 120)
            #expect(run.status == 0, "the child's run: \(String(decoding: run.stdout + run.stderr, as: UTF8.self).suffix(2000))")
            #expect(String(decoding: run.stdout + run.stderr, as: UTF8.self).contains("Test run with 1 test in 1 suite passed"))
            return
        }
        #expect(HeapPolicy.returnLargeBlocksToTheKernel())
        // Freeing a mapped 24 MiB block is what raises the dynamic threshold to 24 MiB (glibc's free()).
        let big = try #require(malloc(24 << 20))
        #expect(gifx_block_is_mapped(big) == 1)
        memset(big, 1, 24 << 20)
        free(big)

        let frame = try #require(malloc(1 << 20))
        defer { free(frame) }
        #expect(gifx_block_is_mapped(frame) == 1)
        let small = try #require(malloc(Int(HeapPolicy.largeBlockBytes) / 4))
        defer { free(small) }
        #expect(gifx_block_is_mapped(small) == 0)
    }
}
