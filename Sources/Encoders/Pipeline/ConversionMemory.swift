import GifxFrames
import GifxSystem

/// The memory plan of one conversion: the process's fixed cost, the decoder's compositor, every output's
/// encoder and buffers, and the frame ring, all planned against one budget (`MemoryPlanner`).
enum ConversionMemory {
    /// The Swift runtime, gifx and its C libraries, before any pixel: 24 MiB (peak RSS of a 16×16 GIF to a
    /// PNG sheet, docs/memory.md).
    static let runtimeBytes = 24 << 20
    /// libavcodec and libavformat with their ~125 dependent libraries, once an encoder is opened: 28 MiB
    /// (a 16×16 JPEG poster: 52 MiB of peak RSS).
    static let libavBytes = 28 << 20

    /// The plan for `sinks` over `metadata` under `settings.memoryBudget` (or the process's default budget), each
    /// sink's demand asked once. Throws `MemoryBudgetTooSmall` when even the leanest settings do not fit.
    static func plan(
        _ sinks: [any ConversionSink], metadata: AnimationMetadata, settings: RunSettings,
        available: AvailableMemory? = nil
    ) throws -> ConversionMemoryPlan {
        let budget = ProcessMemoryBudget.resolve(given: settings.memoryBudget, available: available)
        let demand = Demand(sinks, metadata: metadata, settings: settings)
        let (canvasBytes, frames, threads) = (metadata.canvasBytes, max(1, metadata.images.count), demand.decodeThreads)
        let plan = try MemoryPlanner.plan(
            budget: budget.bytes, source: budget.source, demands: demand.demands, ringMinimum: demand.ringMinimum,
            ringWanted: demand.ringWanted
        ) { bytes in
            let ring = CacheCapacity.plan(canvasBytes: canvasBytes, frameCount: frames, memoryBudget: bytes, threads: threads)
            return "\(ring.canvases) canvases, \(ring.decodeWindow) frames decoded ahead"
        }
        return ConversionMemoryPlan(report: plan, sinkShares: demand.demandIndex.map { $0.map(plan.share(ofDemand:)) })
    }

    /// The smallest budget `plan` accepts for `sinks` over `metadata` (every consumer at its leanest level): the
    /// figure its `MemoryBudgetTooSmall` names, found without planning against a budget.
    static func smallestBudget(_ sinks: [any ConversionSink], metadata: AnimationMetadata, settings: RunSettings) -> Int {
        let demand = Demand(sinks, metadata: metadata, settings: settings)
        return MemoryPlanner.smallestBudget(demands: demand.demands, ringMinimum: demand.ringMinimum)
    }

    /// What the consumers of a run ask for: the fixed cost, the decoder, each sink (in order), the frame ring.
    private struct Demand {
        var demands: [MemoryDemand]
        /// Per sink, the index of its demand in `demands`; `nil` for a sink without one.
        var demandIndex: [Int?] = []
        var ringMinimum: Int
        var ringWanted: Int
        var decodeThreads: Int

        init(_ sinks: [any ConversionSink], metadata: AnimationMetadata, settings: RunSettings) {
            let canvasBytes = metadata.canvasBytes
            let indexBytes = max(1, canvasBytes / 4)
            let frames = max(1, metadata.images.count)
            demands = [
                MemoryDemand(
                    consumer: "gifx and its libraries",
                    bytes: runtimeBytes + (sinks.contains(where: \.usesLibav) ? libavBytes : 0), setting: "fixed"),
                MemoryDemand(
                    consumer: "decoder and compositor", bytes: 2 * canvasBytes + indexBytes + metadata.decoderWorkingBytes,
                    setting: metadata.decoderWorkingBytes > 0
                        ? "screen and previous screen, the format library's pictures" : "screen and previous screen"),
            ]
            // Each sink's demand is the next one planned: its share is found by that position.
            for sink in sinks {
                guard let demand = sink.memoryDemand else {
                    demandIndex.append(nil)
                    continue
                }
                demandIndex.append(demands.count)
                demands.append(demand)
            }
            decodeThreads = settings.decodeThreads(for: metadata)
            let wanted = CacheCapacity.plan(canvasBytes: canvasBytes, frameCount: frames, threads: decodeThreads)
            ringWanted = wanted.canvases * canvasBytes + wanted.decodeWindow * indexBytes
            ringMinimum = canvasBytes + (wanted.threads > 1 ? wanted.threads * indexBytes : 0)
        }
    }
}

/// A conversion's memory plan, made once before anything is opened: the plan `--stats` reports, each sink's share
/// by the sink's position among the run's sinks, and the frame ring's share.
struct ConversionMemoryPlan {
    /// The plan as reported (`ConversionReport.memory`).
    let report: MemoryPlan
    /// The share of sink `i` (the run's sinks in request order); `nil` for a sink without a `memoryDemand`.
    let sinkShares: [MemoryPlan.Share?]
    /// The frame ring's share.
    var ring: MemoryPlan.Share { report.ring }
}
