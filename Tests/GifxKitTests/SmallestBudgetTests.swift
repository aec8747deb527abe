import Foundation
import GifFixtures
import GifxKit
import Testing

/// `GifConverter.smallestMemoryBudget`: the figure a service admits a request with. Judged by the
/// conversion itself, not by the planner's arithmetic: under that budget the conversion runs, 1 MiB less
/// is refused, and asking writes no file.
@Suite struct SmallestBudgetTests {
    static let gif = FixtureGIF.solidFrames(width: 64, height: 48, colorIndices: [1, 2, 3], delays: [5, 10, 5])

    @Test func theConversionRunsUnderItAndNotUnderLess() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gifx-smallest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = try Self.gif.encode()
        let target = folder.appendingPathComponent("out.mp4").path
        let outputs: [OutputRequest] = [.video(target: .file(target), options: VideoSettings())]
        let smallest = try GifConverter(settings: RunSettings(threads: 1)).smallestMemoryBudget(.bytes(data), to: outputs)
        // docs/memory.md: 24 MiB for gifx and 28 MiB for libav before any pixel.
        #expect(smallest >= 52 << 20)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)

        let tooSmall = RunSettings(memoryBudget: smallest - (1 << 20), threads: 1)
        await #expect(throws: MemoryBudgetTooSmall.self) {
            try await GifConverter(settings: tooSmall).convert(.bytes(data), to: outputs)
        }
        let enough = RunSettings(memoryBudget: smallest, threads: 1)
        _ = try await GifConverter(settings: enough).convert(.bytes(data), to: outputs)
        #expect(FileManager.default.fileExists(atPath: target))
    }

    /// `plan` gives the figure at each thread count from one read, without converting: judged again by the
    /// conversion at that thread count (it runs under the figure; 1 MiB less is refused, naming the same figure),
    /// and the figures never shrink with threads and grow from 1 to 8 (x264's frame threads: the service's fit needs that).
    @Test func thePlanGivesEachThreadCountsFigure() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gifx-plan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = try FixtureGIF.solidFrames(width: 640, height: 360, colorIndices: [1, 2, 3], delays: [5, 10, 5]).encode()
        let target = folder.appendingPathComponent("out.mp4").path
        let outputs: [OutputRequest] = [.video(target: .file(target), options: VideoSettings())]
        let plan = try GifConverter().plan(.bytes(data), to: outputs, threadCounts: [1, 2, 8])
        #expect(plan.timeline == (try GifConverter().timeline(of: .bytes(data))))
        #expect(plan.smallestMemoryBudget(threads: 4) == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        let figures = try [1, 2, 8].map { try #require(plan.smallestMemoryBudget(threads: $0)) }
        #expect(figures[0] <= figures[1] && figures[1] <= figures[2] && figures[0] < figures[2], "\(figures)")
        for (threads, figure) in zip([1, 2, 8], figures) {
            let refused = RunSettings(memoryBudget: figure - (1 << 20), threads: threads, overwrite: true)
            do {
                _ = try await GifConverter(settings: refused).convert(.bytes(data), to: outputs)
                Issue.record("\(threads) threads ran under \(figure - (1 << 20)) bytes")
            } catch let error as MemoryBudgetTooSmall {
                #expect(error.smallestBudget == figure)
            }
            let enough = RunSettings(memoryBudget: figure, threads: threads, overwrite: true)
            _ = try await GifConverter(settings: enough).convert(.bytes(data), to: outputs)
            #expect(FileManager.default.fileExists(atPath: target))
        }
        #expect(throws: RunSettingsProblem.threads(0)) {
            try GifConverter().plan(.bytes(data), to: outputs, threadCounts: [0])
        }
    }

    /// The WebP and sprite-sheet shares at 1280×720, each the smallest budget of that output alone less that
    /// of an output with no share (the timeline JSON), against figures worked by hand from docs/memory.md's
    /// estimates (each smallest budget is rounded up to a whole MiB, so the difference is within 1 MiB).
    /// The estimates were fitted to peak RSS measured alone (docs/memory.md, "Estimates").
    @Test func webpAndSheetSharesAt720p() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gifx-shares-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = try FixtureGIF.solidFrames(width: 1280, height: 720, colorIndices: [1, 2, 3, 4], delays: [4, 4, 4, 4])
            .encode()
        let converter = GifConverter(settings: RunSettings(threads: 1))
        func smallest(_ output: OutputRequest) throws -> Int { try converter.smallestMemoryBudget(.bytes(data), to: [output]) }
        let path = { (name: String) in folder.appendingPathComponent(name).path }
        let base = try smallest(.timelineJSON(target: .file(path("t.json"))))
        // A canvas C = 1280 × 720 × 4 = 3,686,400 bytes. WebP on one thread: 11 C + 4 MiB = 44,744,704 bytes
        // (measured alone: 40-44 MiB; the estimate before was 7 C + 4 MiB, 29,999,104 bytes).
        let webp = try smallest(.webp(target: .file(path("o.webp")), options: WebPOptions()))
        #expect(abs(webp - base - 44_744_704) < 1 << 20, "WebP share \(webp - base)")
        // The sheet, indexed (the GIF's palettes hold its colours): one row of slots, 4096 pixels wide (four
        // 1280-pixel cells would be 5120) × 720 rows × 1 byte, + 5 MiB of deflate blocks = 8,192,000 bytes
        // (measured: 7.9 MiB; four bytes a pixel estimated 17,039,360).
        let sheet = try smallest(.spriteSheet(SpriteOptions(png: .file(path("s.png")), json: .file(path("s.json")))))
        #expect(abs(sheet - base - 8_192_000) < 1 << 20, "sheet share \(sheet - base)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }
}
