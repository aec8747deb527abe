import GifxEncoders
import Testing
import GifxTimeline

/// When libx264's low-memory settings engage (issue 14): only when a budget demands it.
@Suite struct EncoderTuningTests {
    private func choose(
        width: Int, height: Int, given: Int? = nil, available: Int?, lowMemory: Bool? = nil
    ) -> EncoderTuning {
        EncoderTuning.choose(
            options: VideoSettings(lowMemory: lowMemory), frameSize: CanvasSize(width: width, height: height),
            budget: given, cores: 2, available: AvailableMemory(bytes: available, source: "MemAvailable"))
    }

    @Test("the 934×750 screen recording of the issue keeps the preset's settings with 8 GiB available")
    func ordinaryScreenRecording() {
        // (934 + 64) × (750 + 64) × 3 B × 51 frames = 124,370,748 B ≈ 118 MiB, within 2 GiB (8 GiB / 4).
        let tuning = choose(width: 934, height: 750, available: 8 << 30)
        #expect(!tuning.lowMemory)
        #expect(tuning.params.isEmpty)
        #expect(tuning.estimatedBytes == 998 * 814 * 3 * 51)
        #expect(tuning.budgetBytes == 2 << 30)
        #expect(tuning.reason == "encoder needs ~118 MiB, within the budget: 1/4 of 8192 MiB available (MemAvailable)")
    }

    @Test("1080p with 400 MiB available: a 100 MiB budget, so low-memory with the lookahead that fits")
    func tightContainer() {
        // 1984 × 1144 × 3 = 6,809,088 B a frame; 100 MiB / that = 15 frames − 10 held = lookahead 5.
        let tuning = choose(width: 1920, height: 1080, available: 400 << 20)
        #expect(tuning.lowMemory)
        #expect(tuning.lookahead == 5)
        #expect(tuning.params == "sliced-threads=1:sync-lookahead=0:rc-lookahead=5")
        #expect(tuning.reason.hasPrefix("encoder needs ~331 MiB, over the budget: 1/4 of 400 MiB available"))
    }

    @Test("--memory-budget decides over the available memory")
    func givenBudget() {
        let tuning = choose(width: 934, height: 750, given: 64 << 20, available: 8 << 30)
        #expect(tuning.lowMemory)
        #expect(tuning.reason == "encoder needs ~118 MiB, over the budget: memory budget 64 MiB")
    }

    @Test("nothing known about memory: never low-memory; forcing still works and says so")
    func unknownAndForced() {
        let unknown = choose(width: 3840, height: 2160, available: nil)
        #expect(!unknown.lowMemory)
        #expect(unknown.budgetBytes == nil)
        #expect(unknown.reason == "encoder needs ~1266 MiB; no memory limit known")
        let forced = choose(width: 64, height: 64, available: 8 << 30, lowMemory: true)
        #expect(forced.lowMemory)
        #expect(forced.reason == "low-memory settings forced on")
    }
}
