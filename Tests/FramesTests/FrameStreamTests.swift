import Foundation
import GifFixtures
import Testing
import GifxTimeline

@testable import GifxFrames

@Suite struct FrameStreamTests {
    static let mebibyte = 1024 * 1024

    @Test func capacityFollowsTheReferencePlayersCategories() {
        let mib = Self.mebibyte
        #expect(CacheCapacity.capacity(canvasBytes: 40_000, frameCount: 10) == 10)  // 0.4 MB: all
        #expect(CacheCapacity.capacity(canvasBytes: mib, frameCount: 10) == 10)  // exactly 10 MiB: all
        #expect(CacheCapacity.capacity(canvasBytes: mib, frameCount: 11) == 5)  // over 10 MiB: 5
        #expect(CacheCapacity.capacity(canvasBytes: mib, frameCount: 75) == 5)  // exactly 75 MiB: 5
        #expect(CacheCapacity.capacity(canvasBytes: mib, frameCount: 76) == 1)  // over 75 MiB: 1
        #expect(CacheCapacity.capacity(canvasBytes: 8 * mib, frameCount: 3) == 3)  // 24 MiB but only 3 frames
        #expect(CacheCapacity.capacity(canvasBytes: 1 << 30, frameCount: 1 << 40) == 1)  // overflow-safe
    }

    @Test func memoryBudgetOverridesTheCategories() {
        let mib = Self.mebibyte
        #expect(CacheCapacity.capacity(canvasBytes: mib, frameCount: 100, memoryBudget: 3 * mib + mib / 2) == 3)
        #expect(CacheCapacity.capacity(canvasBytes: mib, frameCount: 100, memoryBudget: 0) == 1)
        #expect(CacheCapacity.capacity(canvasBytes: mib, frameCount: 100, memoryBudget: 1 << 40) == 100)
        #expect(CacheCapacity.capacity(canvasBytes: 40_000, frameCount: 10, memoryBudget: 80_000) == 2)
    }

    @Test func streamReportsCapacityAndPeakBytes() throws {
        let path = try temporaryGIF(.solidFrames(width: 8, height: 4, colorIndices: [1, 2, 3, 4], delays: [1, 2, 3, 4]))
        let all = try FrameStream(path: path)
        #expect(all.capacity == 4)
        let canvases = try collectCanvases(all)
        #expect(canvases.map { Array($0.prefix(4)) } == [Pixel.red, Pixel.green, Pixel.blue, Pixel.yellow])
        #expect(all.peakCacheBytes <= 4 * 8 * 4 * 4)
        let budgeted = try FrameStream(path: path, memoryBudget: 8 * 4 * 4 * 2, threads: 1)
        #expect(budgeted.capacity == 2)
        #expect(try collectCanvases(budgeted) == canvases)
        #expect(budgeted.peakCacheBytes == 2 * 8 * 4 * 4)
    }

    @Test func producerErrorSurfacesOnTheConsumersCallForThatFrame() throws {
        // Frame 2 uses index 3 with a 2-entry palette (LZW codes are at least 2 bits wide, so 3 survives
        // giflib's encoder): strict decoding fails there, after frames 0 and 1.
        let gif = FixtureGIF(
            width: 2, height: 1, globalPalette: [RGB(1, 1, 1), RGB(2, 2, 2)],
            frames: [.solid(0, width: 2, height: 1), .solid(1, width: 2, height: 1), .solid(3, width: 2, height: 1)])
        let stream = try FrameStream(path: temporaryGIF(gif), limits: DecodeLimits(strict: true), memoryBudget: 8)
        #expect(try stream.nextCanvas { $0.index } == 0)
        #expect(try stream.nextCanvas { $0.index } == 1)
        let error = #expect(throws: GifDecodeError.self) { try stream.nextCanvas { $0.index } }
        #expect(error?.failureClass == .malformedData)
    }

    // The limit only guards against a hang: a loaded 2-core machine can keep a test waiting for minutes.
    @Test(.timeLimit(.minutes(hangGuardMinutes)), arguments: [1, 2])
    func closingEarlyStopsTheBlockedProducer(threads: Int) throws {
        let frames = (0..<60).map { FixtureFrame.solid(UInt8($0 % 8), width: 16, height: 16) }
        let path = try temporaryGIF(FixtureGIF(width: 16, height: 16, frames: frames))
        // The producer is held before frame 2 until closed: once frame 0 is released, it publishes frame 1
        // into the freed slot and stops at the gate, so close() always meets an undelivered published frame
        // (it once handed out frame 1 when the producer won this race).
        let stream = try FrameStream(
            path: path, metadata: nil, limits: .default, memoryBudget: 1, threads: threads, holdingProducerAt: 2)
        #expect(stream.capacity == 1)
        #expect(try stream.nextCanvas { $0.index } == 0)
        stream.waitUntilProducerIsHeld()
        stream.close()  // the producer is held at the gate: must wake, stop and be joined
        #expect(throws: GifDecodeError.self) { try stream.nextCanvas { $0.index } }
        for _ in 0..<20 { _ = try FrameStream(path: path, memoryBudget: 1, threads: threads) }  // deinit joins
    }

    /// The gate itself: held, the producer publishes nothing past it; released, every frame arrives.
    @Test(.timeLimit(.minutes(hangGuardMinutes)))
    func heldProducerPublishesNothingPastTheGate() throws {
        let path = try temporaryGIF(.solidFrames(width: 2, height: 2, colorIndices: [1, 2, 3, 4], delays: [5, 5, 5, 5]))
        let stream = try FrameStream(
            path: path, metadata: nil, limits: .default, memoryBudget: nil, threads: 2, holdingProducerAt: 2)
        #expect(stream.capacity == 4)
        stream.waitUntilProducerIsHeld()
        #expect(stream.peakCacheBytes == 2 * 2 * 2 * 4)  // frames 0 and 1 only
        stream.releaseProducer()
        #expect(try collectCanvases(stream).count == 4)
    }

    @Test func consumerErrorReleasesTheCanvas() throws {
        struct Stop: Error {}
        let path = try temporaryGIF(.solidFrames(width: 2, height: 2, colorIndices: [1, 2, 3], delays: [5, 5, 5]))
        let stream = try FrameStream(path: path, memoryBudget: 16)
        #expect(throws: Stop.self) { try stream.nextCanvas { _ in throw Stop() } }
        #expect(try stream.nextCanvas { $0.index } == 1)
        #expect(try stream.nextCanvas { $0.index } == 2)
        #expect(try stream.nextCanvas { $0.index } == nil)
    }
}
