import GifxFrames

/// The memory plan of one conversion: the process's fixed cost, the decoder's compositor, every output's
/// encoder and buffers, and the frame ring, all planned against one budget (`MemoryPlanner`).
enum ConversionMemory {
    /// The Swift runtime, gifx and its C libraries, before any pixel: 24 MiB (peak RSS of a 16×16 GIF to a
    /// PNG sheet, docs/memory.md).
    static let runtimeBytes = 24 << 20
    /// libavcodec and libavformat with their ~125 dependent libraries, once an encoder is opened: 28 MiB
    /// (a 16×16 JPEG poster: 52 MiB of peak RSS).
    static let libavBytes = 28 << 20

    /// The plan for `sinks` over `metadata` under `settings.memoryBudget` (or the process's default budget).
    /// Throws `MemoryBudgetTooSmall` when even the leanest settings do not fit.
    static func plan(
        _ sinks: [any ConversionSink], metadata: GifMetadata, settings: RunSettings,
        available: AvailableMemory? = nil
    ) throws -> MemoryPlan {
        let budget = ProcessMemoryBudget.resolve(given: settings.memoryBudget, available: available)
        let canvasBytes = metadata.canvasBytes
        let indexBytes = max(1, canvasBytes / 4)
        let frames = max(1, metadata.images.count)
        var demands = [
            MemoryDemand(
                consumer: "gifx and its libraries",
                bytes: runtimeBytes + (sinks.contains(where: usesLibav) ? libavBytes : 0), setting: "fixed"),
            MemoryDemand(
                consumer: "decoder and compositor", bytes: 2 * canvasBytes + indexBytes,
                setting: "screen and previous screen"),
        ]
        demands += sinks.compactMap(\.memoryDemand)
        let threads = settings.threads ?? metadata.defaultDecodeThreads
        let wanted = CacheCapacity.plan(canvasBytes: canvasBytes, frameCount: frames, threads: threads)
        let ringWanted = wanted.canvases * canvasBytes + wanted.decodeWindow * indexBytes
        let ringMinimum = canvasBytes + (wanted.threads > 1 ? wanted.threads * indexBytes : 0)
        return try MemoryPlanner.plan(
            budget: budget.bytes, source: budget.source, demands: demands, ringMinimum: ringMinimum,
            ringWanted: ringWanted
        ) { bytes in
            let ring = CacheCapacity.plan(canvasBytes: canvasBytes, frameCount: frames, memoryBudget: bytes, threads: threads)
            return "\(ring.canvases) canvases, \(ring.decodeWindow) frames decoded ahead"
        }
    }

    /// Whether `sink` loads libavcodec (videos, JPEG posters, and any output read back through libav).
    static func usesLibav(_ sink: any ConversionSink) -> Bool {
        if let verifying = sink as? VerifyingSink { return usesLibav(verifying.inner) }
        if sink is VideoSink { return true }
        if let poster = sink as? PosterSink, case .jpeg = poster.format { return true }
        return false
    }
}
