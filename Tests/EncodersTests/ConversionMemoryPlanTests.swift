import Foundation
import GifFixtures
@testable import GifxEncoders
import GifxFrames
@testable import GifxPipeline
import Testing

/// The conversion's memory plan (issue 37): made once, each sink's share found by the sink's position (not by its
/// label, which two outputs may share), the frame ring's by its own field; the report's ring capacity is the ring's.
@Suite struct ConversionMemoryPlanTests {
    /// A sink with a fixed demand that records the share it is given.
    final class DemandingSink: ConversionSink {
        let memoryDemand: MemoryDemand?
        private(set) var given: MemoryPlan.Share?
        init(_ demand: MemoryDemand?) { memoryDemand = demand }
        func useMemory(_ share: MemoryPlan.Share, of plan: MemoryPlan) { given = share }
        func open(in transaction: OutputTransaction) throws {}
        var plannedPasses: Int { 0 }
        func beginPass(_ pass: Int) throws -> Bool { false }
        func consume(_ canvas: Canvas) throws -> Bool { false }
        func endPass(delivered: Int) throws {}
        func finish() throws {}
        var result: any OutputResult { CanvasesResult(folder: nil, count: 0) }
    }

    /// Six 8x8 frames.
    static func input(_ name: String = #function) throws -> String {
        let folder = try mp4Folder(name)
        let path = folder.appendingPathComponent("in.gif").path
        try FixtureGIF.solidFrames(width: 8, height: 8, colorIndices: [1, 2, 3, 4, 5, 6], delays: [10, 10, 10, 10, 10, 10])
            .write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("two outputs with the same label get two shares, each its own; a sink without a demand gets none")
    func sharesBySinkPosition() throws {
        let metadata = try readAnimationMetadata(path: try Self.input())
        let first = DemandingSink(MemoryDemand(consumer: "verify", levels: [
            .init(bytes: 3 << 20, setting: "fast"), .init(bytes: 1 << 20, setting: "lean"),
        ]))
        let none = DemandingSink(nil)
        let second = DemandingSink(MemoryDemand(consumer: "verify", bytes: 7 << 20, setting: "read back"))
        let plan = try ConversionMemory.plan([first, none, second], metadata: metadata, settings: RunSettings())
        #expect(plan.sinkShares.count == 3)
        #expect(plan.sinkShares[1] == nil)
        let a = try #require(plan.sinkShares[0])
        let b = try #require(plan.sinkShares[2])
        // No budget binds an 8x8 GIF's plan on any machine that runs the tests: every consumer at its fastest.
        #expect(a.plannedBytes == 3 << 20 && a.setting == "fast")
        #expect(b.plannedBytes == 7 << 20 && b.setting == "read back")
        // The report lists both under the label, the ring last.
        #expect(plan.report.shares.filter { $0.consumer == "verify" }.count == 2)
        #expect(plan.report.shares.last?.consumer == "frame ring")
        #expect(plan.ring == plan.report.shares.last)
    }

    @Test("a verifying conversion hands each output its own share, under a tight budget too")
    func verifiedOutputsEachGetTheirShare() throws {
        let input = try Self.input()
        let folder = try mp4Folder()
        var settings = RunSettings()
        settings.verify = VerifySettings()
        settings.memoryBudget = 200 << 20
        let report = try Conversion(inputPath: input, settings: settings).run([
            .poster(target: .file(folder.appendingPathComponent("a.png").path), frame: .index(0)),
            .poster(target: .file(folder.appendingPathComponent("b.png").path), frame: .last),
        ])
        #expect(report.verifications.count == 2)
        #expect(report.verifications.allSatisfy { $0.passed })
        let posters = report.memory.shares.filter { $0.consumer.hasPrefix("poster ") }
        #expect(posters.count == 2)
        #expect(posters.allSatisfy { $0.consumer.hasSuffix(" + verify") })
    }

    @Test("at one thread the report's ring capacity is the one canvas the decoder lends, not a planned ring")
    func ringCapacityAtOneThread() throws {
        let input = try Self.input()
        let folder = try mp4Folder()
        var settings = RunSettings()
        settings.threads = 1
        let report = try Conversion(inputPath: input, settings: settings).run([
            .webp(target: .file(folder.appendingPathComponent("a.webp").path), options: WebPOptions()),
        ])
        #expect(report.cacheCapacity == 1)
        #expect(report.peakCacheBytes == 8 * 8 * 4)
    }

    @Test("with a producer thread the reported capacity holds every canvas the ring held at once")
    func ringCapacityHoldsThePeak() throws {
        let input = try Self.input()
        let folder = try mp4Folder()
        var settings = RunSettings()
        settings.threads = 2
        let report = try Conversion(inputPath: input, settings: settings).run([
            .webp(target: .file(folder.appendingPathComponent("a.webp").path), options: WebPOptions()),
        ])
        #expect(report.cacheCapacity >= 1)
        #expect(report.peakCacheBytes <= report.cacheCapacity * 8 * 8 * 4)
    }
}
