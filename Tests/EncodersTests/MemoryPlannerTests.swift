import GifxEncoders
import GifxPipeline
import Testing

/// `MemoryPlanner` (issue 24): one budget shared by every consumer. Its shares add up to at most the
/// budget, each grows with it, and below the leanest settings it refuses with the smallest budget that fits.
@Suite struct MemoryPlannerTests {
    private let demands = [
        MemoryDemand(consumer: "fixed", bytes: 50, setting: "fixed"),
        MemoryDemand(consumer: "x264", levels: [
            .init(bytes: 400, setting: "preset"), .init(bytes: 200, setting: "lookahead 10"),
            .init(bytes: 120, setting: "lean"),
        ]),
        MemoryDemand(consumer: "vp9", levels: [.init(bytes: 300, setting: "lag"), .init(bytes: 100, setting: "no lag")]),
    ]

    private func plan(_ budget: Int?) throws -> MemoryPlan {
        try MemoryPlanner.plan(
            budget: budget, source: "given", demands: demands, ringMinimum: 10, ringWanted: 90) { "\($0) B" }
    }

    @Test("below the leanest settings: refused, naming the smallest budget, which then plans")
    func refusesBelowTheMinimum() throws {
        // 50 + 120 + 100 + a ring of 10 = 280 bytes, rounded up to a whole MiB.
        #expect(throws: MemoryBudgetTooSmall(budget: 279, smallestBudget: 1 << 20)) { try plan(279) }
        let minimum = try plan(280)
        #expect(minimum.plannedBytes == 280)
        #expect(minimum.share(ofDemand: 1).setting == "lean")
        #expect(minimum.share(ofDemand: 2).level == 1)
        #expect(minimum.ring.plannedBytes == 10)
    }

    @Test("the shares add up to at most the budget, and none shrinks as the budget grows")
    func sharesAreBoundedAndMonotone() throws {
        var previous: MemoryPlan?
        for budget in stride(from: 280, through: 1000, by: 7) {
            let plan = try plan(budget)
            #expect(plan.plannedBytes <= budget)
            #expect(plan.budgetBytes == budget)
            if let previous {
                for (share, before) in zip(plan.shares, previous.shares) {
                    #expect(share.plannedBytes >= before.plannedBytes, "\(share.consumer) at \(budget)")
                    #expect(share.level <= before.level)
                }
            }
            previous = plan
        }
    }

    @Test("consumers step up together; the ring takes what is left only once all are at their fastest")
    func stages() throws {
        // Stage 1 (lookahead 10 + lag): 50 + 200 + 300 + 10 = 560.
        let middle = try plan(600)
        #expect(middle.share(ofDemand: 1).setting == "lookahead 10")
        #expect(middle.share(ofDemand: 2).setting == "lag")
        #expect(middle.ring.plannedBytes == 10)
        // Everything fastest: 50 + 400 + 300 + 10 = 760; the ring grows to what it wants (90) by 840.
        #expect(try plan(800).ring.plannedBytes == 50)
        let rich = try plan(10_000)
        #expect(rich.shares.allSatisfy { $0.level == 0 })
        #expect(rich.plannedBytes == 840)
    }

    @Test("tight: a consumer leaner than its fastest, the ring short of what it wants, or over 7/8 of the budget")
    func tightness() throws {
        #expect(try plan(280).isTight)  // every consumer at its leanest
        #expect(try plan(800).isTight)  // all fastest (760), the ring at 50 of the 90 it wants
        // All fastest and the ring full: 840 bytes, over 7/8 of 900 (784) but not of 1000 (875).
        let full = try plan(900)
        #expect(full.shares.allSatisfy { $0.level == 0 })
        #expect(full.isTight)
        #expect(try !plan(1000).isTight)
        #expect(try !plan(nil).isTight)
    }

    @Test("no budget known: every consumer at its fastest and the ring what it wants")
    func noBudget() throws {
        let plan = try plan(nil)
        #expect(plan.budgetBytes == nil)
        #expect(plan.shares.allSatisfy { $0.level == 0 })
        #expect(plan.plannedBytes == 840)
    }
}
