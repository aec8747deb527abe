import GifxFrames

/// What one consumer of memory can run with: its settings from the fastest (first) to the leanest (last),
/// each with the bytes it is estimated to hold at its peak. A consumer with one level has no choice.
package struct MemoryDemand: Sendable, Hashable {
    /// One way to run and its estimated peak bytes.
    package struct Level: Sendable, Hashable {
        package var bytes: Int
        /// What the level is, as `--stats` reports it (`x264 lookahead 10`).
        package var setting: String

        package init(bytes: Int, setting: String) {
            self.bytes = Swift.max(0, bytes)
            self.setting = setting
        }
    }

    /// Who holds the memory (`video out.mp4 (libx264)`, `frame ring`): a label for `--stats`, never a key (two
    /// outputs may share one; a share is found by its position in the plan).
    package var consumer: String
    /// Fastest first; never empty.
    package var levels: [Level]

    package init(consumer: String, levels: [Level]) {
        precondition(!levels.isEmpty)
        self.consumer = consumer
        self.levels = levels
    }

    /// A consumer with a single way to run.
    package init(consumer: String, bytes: Int, setting: String) {
        self.init(consumer: consumer, levels: [Level(bytes: bytes, setting: setting)])
    }
}

/// How a run's memory budget is shared: one share per consumer, planned before anything large is
/// allocated. `--stats` reports it beside the peak RSS the process reached.
package struct MemoryPlan: Codable, Sendable, Hashable {
    /// One consumer's share.
    package struct Share: Codable, Sendable, Hashable {
        package var consumer: String
        package var plannedBytes: Int
        /// The level chosen (`x264 lookahead 10`, `3 canvases`).
        package var setting: String
        /// 0 for the fastest level; higher when the budget made the consumer leaner.
        package var level: Int
    }

    /// The budget planned against; `nil` when no limit is known (every consumer at its fastest level).
    package var budgetBytes: Int?
    /// Where the budget came from: `--memory-budget`, `cgroup v2 limit`, `1/2 of MemAvailable`, `none known`.
    package var budgetSource: String
    /// Every consumer in the order its demand was given to `MemoryPlanner.plan` (the process's fixed cost first),
    /// then the frame ring, last.
    package var shares: [Share]

    /// The share of the `index`th demand given to `MemoryPlanner.plan`.
    package func share(ofDemand index: Int) -> Share { shares[index] }

    /// The frame ring's share (planned after every demand).
    package var ring: Share { shares[shares.count - 1] }

    /// The sum of the shares.
    package var plannedBytes: Int { shares.reduce(0) { $0 + $1.plannedBytes } }

    /// Whether the budget binds: some consumer runs leaner than its fastest level (the frame ring included),
    /// or the shares take more than 7/8 of the budget. Then the run also keeps large blocks out of the C
    /// heap (`HeapPolicy`): the heap's retention is not in any consumer's estimate.
    package var isTight: Bool {
        guard let budgetBytes else { return false }
        return shares.contains { $0.level > 0 } || plannedBytes > budgetBytes / 8 * 7
    }
}

/// The budget is too small for the leanest settings of this GIF and these outputs. `smallestBudget` is the
/// least that would do (rounded up to a whole MiB); nothing has been decoded or written when it is thrown.
public struct MemoryBudgetTooSmall: GifxError, Equatable {
    public var budget: Int
    public var smallestBudget: Int

    public init(budget: Int, smallestBudget: Int) {
        self.budget = budget
        self.smallestBudget = smallestBudget
    }

    public var failureClass: FailureClass { .budgetTooSmall }
    public var description: String {
        "a memory budget of \(MemoryPlanner.mebibytes(budget)) is too small for this GIF and these outputs: "
            + "the leanest settings need \(MemoryPlanner.mebibytes(smallestBudget))"
    }
}

/// Shares one memory budget among every consumer of a run (design: nothing plans against the whole
/// budget on its own).
///
/// Every consumer starts at its leanest level; if even that does not fit, the plan is refused with the
/// smallest budget that fits. Then all consumers step up together, one level at a time (a "stage"), while
/// the total fits; the frame ring, whose extra canvases only buy overlap, takes what is left after the
/// last stage. Each share therefore grows with the budget (monotone) and the shares add up to at most it.
package enum MemoryPlanner {
    /// The plan for `demands` (the process's fixed cost and every output's encoder) and a frame ring
    /// that needs `ringMinimum` bytes and would use up to `ringWanted`. `ringSetting` words a share in bytes.
    /// Without a budget, every consumer takes its fastest level and the ring what it wants. The plan's shares are
    /// the demands' in their order (`MemoryPlan.share(ofDemand:)`), then the ring's (`MemoryPlan.ring`).
    package static func plan(
        budget: Int?, source: String, demands: [MemoryDemand], ringMinimum: Int, ringWanted: Int,
        ringSetting: (Int) -> String
    ) throws -> MemoryPlan {
        let ringWanted = Swift.max(ringMinimum, ringWanted)
        let stages = demands.map(\.levels.count).max() ?? 1
        /// Level of `demand` at stage `stage` (0: all leanest).
        func level(_ demand: MemoryDemand, stage: Int) -> Int { Swift.max(0, demand.levels.count - 1 - stage) }
        func total(stage: Int) -> Int {
            demands.reduce(ringMinimum) { $0 + $1.levels[level($1, stage: stage)].bytes }
        }
        var stage = stages - 1
        var ring = ringWanted
        if let budget {
            let minimum = total(stage: 0)
            guard minimum <= budget else {
                throw MemoryBudgetTooSmall(
                    budget: budget, smallestBudget: smallestBudget(demands: demands, ringMinimum: ringMinimum))
            }
            stage = 0
            while stage + 1 < stages && total(stage: stage + 1) <= budget { stage += 1 }
            let spare = stage == stages - 1 ? budget - total(stage: stage) : 0
            ring = Swift.min(ringWanted, ringMinimum + spare)
        }
        var shares = demands.map { demand in
            let chosen = level(demand, stage: stage)
            return MemoryPlan.Share(
                consumer: demand.consumer, plannedBytes: demand.levels[chosen].bytes,
                setting: demand.levels[chosen].setting, level: chosen)
        }
        shares.append(.init(
            consumer: ringLabel, plannedBytes: ring, setting: ringSetting(ring), level: ring < ringWanted ? 1 : 0))
        return MemoryPlan(budgetBytes: budget, budgetSource: source, shares: shares)
    }

    /// The smallest budget `plan` accepts for `demands` and a ring of `ringMinimum` bytes: every consumer at its
    /// leanest level, rounded up to a whole MiB (what `MemoryBudgetTooSmall` names).
    package static func smallestBudget(demands: [MemoryDemand], ringMinimum: Int) -> Int {
        roundedUpToMebibyte(demands.reduce(ringMinimum) { $0 + ($1.levels.last?.bytes ?? 0) })
    }

    /// The frame ring's label in a plan (`--stats`).
    static let ringLabel = "frame ring"

    static func roundedUpToMebibyte(_ bytes: Int) -> Int { ((bytes + (1 << 20) - 1) >> 20) << 20 }

    /// `56 MiB`, or `100 KiB` below 1 MiB: every byte count gifx words for people (the planner's, the service's).
    /// `roundingUp`: part of a MiB counts as a whole one (a need stated as "at least"); else it is dropped.
    package static func mebibytes(_ bytes: Int, roundingUp: Bool = false) -> String {
        bytes < 1 << 20 ? "\(bytes >> 10) KiB" : "\((roundingUp ? roundedUpToMebibyte(bytes) : bytes) >> 20) MiB"
    }
}
