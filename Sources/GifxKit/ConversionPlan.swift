import GifxEncoders
import GifxFrames
import GifxPipeline
import GifxTimeline

/// What converting one input into some outputs will need, worked out before any of it runs: the schedule the
/// outputs follow and the smallest memory budget the conversion accepts at each thread count.
///
/// A service plans each request once, admits it with ``smallestMemoryBudget(threads:)`` at one thread, then
/// grants it as many threads as fit the memory it was granted, all from this one value: the input's structure
/// is read once, no pixel is decoded, no output file is created and no conversion runs. The figures are those
/// a conversion refused for too small a budget names (``MemoryBudgetTooSmall``), from the same planner.
public struct ConversionPlan: Sendable {
    /// The schedule the outputs follow: the input's, or the edited one when `RunSettings.edit` is set.
    public let timeline: Timeline
    /// The smallest budget in bytes at each thread count planned for (a whole number of MiB).
    public let smallestMemoryBudgets: [Int: Int]

    /// The smallest budget at `threads` threads, `nil` when that count was not planned for.
    public func smallestMemoryBudget(threads: Int) -> Int? { smallestMemoryBudgets[threads] }
}

extension GifConverter {
    /// Plans converting `input` into `outputs` (``ConversionPlan``) for each of `threadCounts` (default: the
    /// settings' threads, else the cores this process may use). Throws what the conversion would throw before
    /// decoding: an input that is not an animation, a damaged header, an edit that does not fit, a request the
    /// encoder refuses, a thread count outside `RunSettings.threadRange`.
    public func plan(_ input: GifInput, to outputs: [OutputRequest], threadCounts: [Int]? = nil) throws -> ConversionPlan {
        if let problem = settings.problem { throw problem }
        let counts = threadCounts ?? [settings.resolvedThreads]
        if let bad = counts.first(where: { !RunSettings.threadRange.contains($0) }) { throw RunSettingsProblem.threads(bad) }
        return try InputSpool.withPath(input, scratchFolder: settings.resolvedScratchFolder) { path in
            let demand = try self.demand(path: path, to: outputs)
            var budgets: [Int: Int] = [:]
            for threads in counts where budgets[threads] == nil { budgets[threads] = try demand.smallestBudget(threads: threads) }
            return ConversionPlan(timeline: demand.timeline, smallestMemoryBudgets: budgets)
        }
    }

    /// The smallest memory budget under which `outputs` of `input` run at the settings' threads (their leanest
    /// settings): ``plan(_:to:threadCounts:)``'s figure, for a caller that needs only that one.
    public func smallestMemoryBudget(_ input: GifInput, to outputs: [OutputRequest]) throws -> Int {
        if let problem = settings.problem { throw problem }
        return try InputSpool.withPath(input, scratchFolder: settings.resolvedScratchFolder) { path in
            try demand(path: path, to: outputs).smallestBudget()
        }
    }

    /// The demand of converting the file at `path` (which must stay readable while the value is used): for a
    /// caller that owns its input file and asks for thread counts as it goes (`gifx serve`).
    package func demand(path: String, to outputs: [OutputRequest]) throws -> ConversionDemand {
        if let problem = settings.problem { throw problem }
        return try Conversion(inputPath: path, settings: settings).demand(outputs)
    }
}
