import GifxFrames

/// One output of a `Conversion`: a video (MP4 or WebM), an animated WebP, a sprite sheet, a poster, the
/// schedule as JSON, or the canvases themselves. The pipeline calls a sink in this order, and never
/// concurrently:
///
/// 1. `prePass` for every canvas, then `endPrePass`, when `needsPrePass` (a sprite sheet that deduplicates frames
///    must know its distinct cells before its page count, and so its files, exist);
/// 2. `useMemory`, once the run's memory plan is made from every sink's `memoryDemand` (asked once); then `open`:
///    create every file in the shared all-or-nothing `OutputTransaction`;
/// 3. per pass over the canvases (a video that plays 3 times takes three): `beginPass`, `consume` for each
///    canvas in frame order, `endPass`;
/// 4. `finish`: trailers, JSON; the pipeline then commits every sink's files together, or none.
///
/// A sink that needs no pixels (the timeline JSON) takes no pass: `plannedPasses` 0, and `beginPass`
/// returns false. Its plan (repeat counts, timestamps, layout) is built from the `ConversionContext`
/// when the sink is made, before any file is opened, so a bad request fails before anything is written.
///
/// The pipeline knows sinks only through this protocol (and `VerifiableSink` for `RunSettings.verify`): what a
/// sink costs, whether it loads libav and how it is verified are asked of the sink, so an output kind is its own
/// folder plus one line of `OutputKind.all` (docs/registries.md, "Adding an output").
package protocol ConversionSink: AnyObject {
    /// Whether the sink needs every canvas once before `open`.
    var needsPrePass: Bool { get }
    /// One canvas of the pre-pass.
    func prePass(_ canvas: Canvas) throws
    /// The pre-pass is over; `delivered` canvases were seen.
    func endPrePass(delivered: Int) throws
    /// Creates the sink's files (hidden temporaries, renamed on commit) in `transaction`.
    func open(in transaction: OutputTransaction) throws
    /// Passes over the canvases the sink expects, for the progress total.
    var plannedPasses: Int { get }
    /// Starts pass `pass` (0, 1, …); returns false when the sink needs no further pass.
    func beginPass(_ pass: Int) throws -> Bool
    /// The next canvas of the pass, in frame order; returns false once the sink needs no more in this pass.
    func consume(_ canvas: Canvas) throws -> Bool
    /// The pass is over; `delivered` canvases were streamed (the sink checks it got what it needed).
    func endPass(delivered: Int) throws
    /// Completes the files before the commit.
    func finish() throws
    /// What the sink wrote (valid after `finish`).
    var result: any OutputResult { get }
    /// The memory the sink's encoder and buffers hold at their peak, by level; `nil` when negligible.
    var memoryDemand: MemoryDemand? { get }
    /// Runs with `share` of the run's `plan`: the level of `memoryDemand` the plan chose (`share.level`) and
    /// its bytes (called once, before `open`, only for a sink with a `memoryDemand`).
    func useMemory(_ share: MemoryPlan.Share, of plan: MemoryPlan)
    /// Whether the sink loads libavcodec (a video, a JPEG poster): the plan then counts libav's fixed cost.
    var usesLibav: Bool { get }
    /// Whether `consume` does work a decoding thread could overlap (default `true`).
    var worksPerCanvas: Bool { get }
}

extension ConversionSink {
    /// Whether `consume` does work a decoding thread could overlap (every real output); `false` for a sink
    /// that only counts canvases, so a one-thread decode then runs on the consumer's thread (issue 39).
    package var worksPerCanvas: Bool { true }
    package var needsPrePass: Bool { false }
    package func prePass(_ canvas: Canvas) throws {}
    package func endPrePass(delivered: Int) throws {}
    package var memoryDemand: MemoryDemand? { nil }
    package func useMemory(_ share: MemoryPlan.Share, of plan: MemoryPlan) {}
    package var usesLibav: Bool { false }
}
