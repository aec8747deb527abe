import CMalloc
import Foundation
import Testing
@testable import GifxEncoders

/// `HeapPolicy`: once a tight plan fixes glibc's mmap threshold, a large block is mapped on its own (and so
/// unmapped when freed) even after a larger block has been freed, which without the policy raises glibc's
/// dynamic threshold past it and puts it in a thread's heap, where it stays resident after `free`. Judged by
/// glibc's own mark on the block (IS_MMAPPED in its size word), per block, so other tests running beside this
/// one cannot disturb it.
@Suite struct HeapPolicyTests {
    @Test("after the policy, a 1 MiB block is mapped even once a 24 MiB block was freed")
    func largeBlocksStayMapped() throws {
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
