import CMalloc

/// How the C heap hands back large blocks once a run's memory plan is tight (`MemoryPlan.isTight`).
///
/// glibc serves a block of 128 KiB or more with its own mmap, returned to the kernel when freed, but raises
/// that threshold to the size of each such block freed (up to 32 MiB). After the first frame, the encoders'
/// per-frame buffers (libwebp's hash chain and backward references, the sinks' frame-sized arrays) come from
/// the heap of whichever thread asked, and the sinks are fed side by side on pool threads (`SinkFanOut`), each
/// with its own arena: freed blocks stay resident in every arena a sink has run on. Measured on
/// 1280×720×250 to MP4, WebM, WebP, JPEG and a sheet under `--memory-budget 256M`: 289 MiB of peak RSS for a
/// plan of 246 MiB; with the threshold fixed, the same run's peak is under the plan (docs/memory.md,
/// "The heap"). Fixing the threshold costs one mmap and page faults per large block, so it is done only when
/// the budget binds; it lasts for the rest of the process (glibc has no way back to the dynamic threshold).
enum HeapPolicy {
    /// glibc's own starting threshold (`M_MMAP_THRESHOLD`'s default).
    static let largeBlockBytes: Int32 = 128 << 10

    /// From now on, blocks of `largeBlockBytes` or more are mapped on their own and unmapped when freed.
    /// Returns whether glibc took the setting.
    @discardableResult
    static func returnLargeBlocksToTheKernel() -> Bool { gifx_fix_mmap_threshold(largeBlockBytes) == 1 }
}
