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
        let outputs: [OutputRequest] = [.video(target: target, options: VideoSettings())]
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
}
