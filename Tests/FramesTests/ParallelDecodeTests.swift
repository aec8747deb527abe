import Foundation
import GifFixtures
import Testing
import GifxTimeline

@testable import GifxFrames

/// The decode-ahead path (LZW on worker threads, compositing in order) against the sequential decoder
/// (`threads: 1`): byte-identical canvases, the same warnings, the same error at the same frame.
@Suite struct ParallelDecodeTests {
    /// The ways a parallel stream is run against the sequential one: the smallest window (one frame per
    /// thread, one canvas, composited in place) and the default one, with one to three threads beside the
    /// producer, the canvas in the bands its size gives (`nil`: one for these small canvases), in 7, or in
    /// up to 64 (one row each on a small canvas), so bands with and without a frame's rows, disposals and
    /// saved areas cut by band edges, and interlaced rows are all compared. Each against the sequential
    /// decoder on its producer thread; the last has no thread at all (`producerThread: false`, a run limited
    /// to one thread: frames decoded on the consumer's thread).
    static let parallelSetups: [(threads: Int, memoryBudget: Int?, producerThread: Bool, bands: Int?)] = [
        (2, 1, true, nil), (2, nil, true, nil), (3, nil, true, 7), (4, 1, true, 64), (1, nil, false, nil),
    ]

    /// A 20-frame GIF using every feature the compositor distinguishes: partial and overhanging rects,
    /// interlacing, local palettes, transparency, and the four disposals.
    static func twentyFrames() -> FixtureGIF {
        let width = 24, height = 20
        let frames: [FixtureFrame] = (0..<20).map { i in
            let w = 4 + (i * 7) % 21, h = 3 + (i * 5) % 18
            let left = (i * 3) % 22, top = (i * 2) % 19  // some overhang the canvas
            let indices = (0..<(w * h)).map { UInt8(($0 * (i + 1) + i) % 8) }
            return FixtureFrame(
                left: left, top: top, width: w, height: h, indices: indices,
                localPalette: i % 5 == 3 ? (0..<8).map { RGB(UInt8($0 * 30), UInt8(i * 10), 77) } : nil,
                delay: 3, disposal: i % 4, transparentIndex: i % 3 == 1 ? i % 8 : nil, interlaced: i % 4 == 2)
        }
        return FixtureGIF(width: width, height: height, frames: frames)
    }

    @Test func planKeepsTheWindowInsideTheRingsBudget() {
        let mib = 1024 * 1024
        // One thread, or one frame: today's sequential decoder, no window, the same ring.
        #expect(CacheCapacity.plan(canvasBytes: mib, frameCount: 10, threads: 1)
            == .init(canvases: 10, threads: 1, decodeWindow: 0))
        #expect(CacheCapacity.plan(canvasBytes: mib, frameCount: 1, threads: 8)
            == .init(canvases: 1, threads: 1, decodeWindow: 0))
        // All-frames category (10 MiB): 8 canvases of 1 MiB, window 4 × 256 KiB beside them.
        #expect(CacheCapacity.plan(canvasBytes: mib, frameCount: 8, threads: 2)
            == .init(canvases: 8, threads: 2, decodeWindow: 4))
        // 10 canvases fill the 10 MiB: the window's 1 MiB costs the ring one canvas.
        #expect(CacheCapacity.plan(canvasBytes: mib, frameCount: 10, threads: 2)
            == .init(canvases: 9, threads: 2, decodeWindow: 4))
        // Default category: 5 canvases' worth, of which the window takes one.
        #expect(CacheCapacity.plan(canvasBytes: mib, frameCount: 40, threads: 2)
            == .init(canvases: 4, threads: 2, decodeWindow: 4))
        // Low-memory mode: a canvas per thread within 8 MiB and two frames per thread decoded ahead, or, for
        // canvases over 4 MiB, one canvas and one frame per thread.
        #expect(CacheCapacity.plan(canvasBytes: mib, frameCount: 100, threads: 2)
            == .init(canvases: 2, threads: 2, decodeWindow: 4))
        #expect(CacheCapacity.plan(canvasBytes: mib, frameCount: 100, threads: 16)
            == .init(canvases: 8, threads: 16, decodeWindow: 32))
        // The conversion's memory plan asks for those bytes explicitly and gets the same plan back.
        #expect(CacheCapacity.plan(canvasBytes: mib, frameCount: 100, memoryBudget: 8 * mib + 32 * mib / 4, threads: 16)
            == .init(canvases: 8, threads: 16, decodeWindow: 32))
        #expect(CacheCapacity.plan(canvasBytes: 9 * mib, frameCount: 100, threads: 16)
            == .init(canvases: 1, threads: 16, decodeWindow: 16))
        #expect(CacheCapacity.plan(canvasBytes: 1 << 30, frameCount: 1 << 40, threads: 4)
            == .init(canvases: 1, threads: 4, decodeWindow: 4))
        // An explicit budget: 3 canvases + 4 index buffers fit in 4 MiB.
        #expect(CacheCapacity.plan(canvasBytes: mib, frameCount: 100, memoryBudget: 4 * mib, threads: 2)
            == .init(canvases: 3, threads: 2, decodeWindow: 4))
        // Too small for any window: one canvas and one frame per thread, like the ring's floor of one.
        #expect(CacheCapacity.plan(canvasBytes: mib, frameCount: 100, memoryBudget: 1, threads: 2)
            == .init(canvases: 1, threads: 2, decodeWindow: 2))
    }

    /// The default thread count follows the work (issue 39), the figures worked out by hand from the rule:
    /// one thread per 2^20 composited pixels, at most the cores, one for canvases under 32 Ki pixels.
    @Test func defaultThreadsFollowTheWork() {
        // 64×64 (4 Ki pixels) is under the floor: one thread for 5,000 frames as for one.
        #expect(CacheCapacity.defaultThreads(canvasBytes: 64 * 64 * 4, frameCount: 5000, cores: 16) == 1)
        // 480×270×200: 25.9 M pixels, 24 threads' worth: every one of 16 cores, both of 2.
        #expect(CacheCapacity.defaultThreads(canvasBytes: 480 * 270 * 4, frameCount: 200, cores: 16) == 16)
        #expect(CacheCapacity.defaultThreads(canvasBytes: 480 * 270 * 4, frameCount: 200, cores: 2) == 2)
        // 333×187×100: 6,227,100 pixels, 5.9 threads' worth: 5.
        #expect(CacheCapacity.defaultThreads(canvasBytes: 333 * 187 * 4, frameCount: 100, cores: 16) == 5)
        // 256×256×10: 655,360 pixels, under one thread's worth; any single frame: one thread.
        #expect(CacheCapacity.defaultThreads(canvasBytes: 256 * 256 * 4, frameCount: 10, cores: 16) == 1)
        #expect(CacheCapacity.defaultThreads(canvasBytes: 3840 * 2160 * 4, frameCount: 1, cores: 16) == 1)
        // 4K × 60: 498 M pixels; overflow-safe for absurd sizes.
        #expect(CacheCapacity.defaultThreads(canvasBytes: 3840 * 2160 * 4, frameCount: 60, cores: 16) == 16)
        #expect(CacheCapacity.defaultThreads(canvasBytes: 1 << 40, frameCount: 1 << 40, cores: 8) == 8)
    }

    /// Bands: one per 8 Ki canvas pixels, at most 64 and one per row.
    @Test func bandsFollowTheCanvas() {
        #expect(CacheCapacity.bands(width: 64, height: 64) == 1)
        #expect(CacheCapacity.bands(width: 480, height: 270) == 15)  // 129,600 / 8,192 = 15.8
        #expect(CacheCapacity.bands(width: 333, height: 187) == 7)  // 62,271 / 8,192 = 7.6
        #expect(CacheCapacity.bands(width: 3840, height: 2160) == 64)  // 1,012 bands' worth
        #expect(CacheCapacity.bands(width: 100_000, height: 3) == 3)  // one per row at most
    }

    @Test func streamReportsItsThreadsAndWindow() throws {
        let path = try temporaryGIF(Self.twentyFrames())
        let banded = try FrameStream(path: path, threads: 3, bands: 7)
        _ = try collectCanvases(banded)
        banded.close()
        #expect(banded.decodeStats.bands == 7 && banded.decodeStats.threads == 3)
        #expect(banded.decodeStats.compositeSeconds > 0 && banded.decodeStats.serialFraction < 1)
        let parallel = try FrameStream(path: path, memoryBudget: 1, threads: 2)
        #expect(parallel.threads == 2 && parallel.decodeWindow == 2 && parallel.capacity == 1)
        _ = try collectCanvases(parallel)
        parallel.close()  // the figure is final once the producer has stopped
        // Index buffers are canvas width × height bytes; never more than the window's worth.
        #expect(parallel.peakDecodeAheadBytes > 0 && parallel.peakDecodeAheadBytes <= 2 * 24 * 20)
        let sequential = try FrameStream(path: path, threads: 1)
        _ = try collectCanvases(sequential)
        #expect(sequential.threads == 1 && sequential.decodeWindow == 0 && sequential.peakDecodeAheadBytes == 0)
    }

    @Test func twentyFramesMatchTheSequentialDecoder() throws {
        let gif = Self.twentyFrames()
        let path = try temporaryGIF(gif)
        #expect(gif.frames.contains { $0.interlaced } && gif.frames.contains { $0.left + $0.width > gif.width })
        let outcome = try expectParallelMatchesSequential(path)
        #expect(outcome.frames == 20 && outcome.error == nil && outcome.warnings.isEmpty)
    }

    /// Cut at every frame's first byte and in the middle of every frame's data, lenient and strict.
    @Test func truncationAtEveryFrameBoundaryMatchesTheSequentialDecoder() throws {
        let data = try Self.twentyFrames().encode()
        let offsets = try readAnimationMetadata(path: temporaryFile(data)).images.map(\.byteOffset)
        #expect(offsets.count == 20)
        let nextOffsets = offsets.dropFirst() + [data.count - 1]
        for (start, next) in zip(offsets, nextOffsets) {
            for cut in [start, start + 1, (start + next) / 2, next - 1] {
                let path = try temporaryFile(data.prefix(cut))
                for strict in [false, true] {
                    let outcome = try expectParallelMatchesSequential(path, limits: DecodeLimits(strict: strict))
                    if !strict && cut > offsets[0] + 11 { #expect(outcome.frames > 0, "cut at \(cut)") }
                }
            }
        }
    }

    /// Frame 10's LZW data replaced by codes beyond the table: the frame keeps no rows and warns (lenient),
    /// or the stream fails at frame 10 after delivering frames 0-9 (strict); the same in parallel.
    @Test func brokenLZWInTheMiddleFrameMatchesTheSequentialDecoder() throws {
        var data = try Self.twentyFrames().encode()
        let path0 = try temporaryFile(data)
        let image = try readAnimationMetadata(path: path0).images[10]
        // Separator (1) + descriptor (9) + local palette, then the code size byte and the first block's length.
        let dataStart = image.byteOffset + 10 + 3 * (image.localPaletteSize ?? 0) + 2
        let blockLength = Int(data[dataStart - 1])
        #expect(blockLength > 4)
        for k in dataStart..<(dataStart + blockLength) { data[k] = 0xFF }
        let path = try temporaryFile(data)

        let lenient = try expectParallelMatchesSequential(path)
        #expect(lenient.frames == 20 && lenient.error == nil)
        #expect(lenient.warnings.contains { $0.hasPrefix("frame 10: malformed GIF at byte") })
        let strict = try expectParallelMatchesSequential(path, limits: DecodeLimits(strict: true))
        #expect(strict.frames == 10)
        #expect(strict.error?.kind == .malformed && strict.error?.byteOffset.map { $0 > image.byteOffset } == true)
    }

    @Test(.enabled(if: corpusDirectory("pygif") != nil, "../shared/corpus/pygif is absent"))
    func pygifCorpusMatchesTheSequentialDecoder() throws {
        try expectCorpusMatches("pygif", atLeast: 80)
    }

    @Test(.enabled(if: corpusDirectory("peterdn") != nil, "../shared/corpus/peterdn is absent"))
    func peterdnCorpusMatchesTheSequentialDecoder() throws {
        try expectCorpusMatches("peterdn", atLeast: 10)
    }

    @Test(.enabled(if: corpusDirectory("fuzz") != nil, "../shared/corpus/fuzz is absent"), .timeLimit(.minutes(hangGuardMinutes)))
    func fuzzCorpusMatchesTheSequentialDecoder() throws {
        try expectCorpusMatches("fuzz", atLeast: 250)
    }

    private func expectCorpusMatches(_ name: String, atLeast minimum: Int) throws {
        let directory = try #require(corpusDirectory(name))
        let files = corpusGIFs(in: directory)
        #expect(files.count >= minimum)
        for file in files {
            try expectParallelMatchesSequential(directory.appendingPathComponent(file).path)
        }
    }
}

/// What a stream delivered: its frames, its warnings, and the error that stopped it.
struct StreamOutcome: Equatable {
    var frames = 0
    var warnings: [String] = []
    var error: GifDecodeError?
}

/// Runs the sequential stream and each parallel setup side by side, canvas by canvas, and expects the
/// same bytes for every canvas, the same warnings and the same error after the same frames.
@discardableResult
func expectParallelMatchesSequential(
    _ path: String, limits: DecodeLimits = DecodeLimits(maxCanvasBytes: 64 << 20),
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> StreamOutcome {
    let name = URL(fileURLWithPath: path).lastPathComponent
    let metadata: AnimationMetadata
    do {
        metadata = try readAnimationMetadata(path: path, limits: limits)
    } catch let error as GifDecodeError {
        return StreamOutcome(error: error)  // no stream at all: nothing to compare
    }
    var reference = StreamOutcome()
    for setup in ParallelDecodeTests.parallelSetups {
        let sequential = try FrameStream(path: path, metadata: metadata, limits: limits, threads: 1)
        let parallel = try FrameStream(
            path: path, metadata: metadata, limits: limits, memoryBudget: setup.memoryBudget, threads: setup.threads,
            producerThread: setup.producerThread, holdingProducerAt: nil, bands: setup.bands)
        var outcome = StreamOutcome(), other = StreamOutcome()
        var expected: [UInt8] = []
        while true {
            let got: Int?
            do { got = try sequential.nextCanvas { canvas in expected = Array(canvas.pixels); return 1 } } catch {
                outcome.error = try #require(error as? GifDecodeError); got = nil
            }
            var same = true
            let gotOther: Int?
            do {
                gotOther = try parallel.nextCanvas { canvas in
                    same = canvas.pixels.elementsEqual(expected); return 1
                }
            } catch {
                other.error = try #require(error as? GifDecodeError); gotOther = nil
            }
            #expect((got == nil) == (gotOther == nil), "\(name): frame \(outcome.frames)", sourceLocation: sourceLocation)
            guard got != nil, gotOther != nil else { break }
            #expect(same, "\(name): canvas \(outcome.frames) differs (threads \(setup.threads), bands \(setup.bands ?? 0))", sourceLocation: sourceLocation)
            outcome.frames += 1; other.frames += 1
        }
        outcome.warnings = sequential.warnings; other.warnings = parallel.warnings
        #expect(other == outcome, "\(name) (threads \(setup.threads))", sourceLocation: sourceLocation)
        reference = outcome
    }
    return reference
}
