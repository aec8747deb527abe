import Foundation
import GifxFrames
import GifxSystem
import GifxTimeline

/// The settings of one conversion, shared by all its outputs: whose schedule to follow, how strictly to
/// decode, the resources it may use, and whether it may replace files. A value type checked in one place
/// (`problem`, refused by `Conversion.init`); each output's own settings travel in its `OutputRequest`.
public struct RunSettings: Sendable, Equatable {
    /// Whose reading of delays and loop counts every output follows.
    public var policy: TimelinePolicy = .flanimated
    /// Decoder limits and strictness (damaged data kept or refused).
    public var limits: DecodeLimits = .default
    /// Which LZW decoder reads the image data (gifx's own or giflib); stored in `limits`, which every
    /// decoding path receives.
    public var decoder: GifDecoderKind {
        get { limits.decoder }
        set { limits.decoder = newValue }
    }
    /// Bytes the whole conversion may hold (its peak RSS): shared by `MemoryPlanner` among the frame ring,
    /// the compositor and every encoder; `nil`: the cgroup's limit, else half of MemAvailable
    /// (`ProcessMemoryBudget`).
    public var memoryBudget: Int?
    /// Threads of every pool (decoding, encoders, PNG deflate, libwebp, outputs side by side); `nil`: the
    /// cores the process may use; 1: everything on the calling thread.
    public var threads: Int?
    /// Replace existing targets instead of refusing them.
    public var overwrite = false
    /// Where the conversion keeps its private scratch files: a piped input's copy, a piped output's spool,
    /// canvases kept for edits and further `--target-size` encodes, rate statistics. `nil`: `TMPDIR`, else
    /// /tmp. A service gives its conversions a folder of its own, so nothing of theirs mixes with other files.
    public var scratchFolder: String?
    /// Benchmark, test and debugging switches (`Diagnostics`); the defaults outside the CLI and tests.
    package var diagnostics = Diagnostics()
    /// Read every output back before the commit and refuse to commit one that does not show the GIF
    /// (`VerifyingSink`); `nil`: no verification.
    public var verify: VerifySettings?
    /// Edits of the schedule every output follows (cut, speed, reverse, boomerang, crop; docs/edits.md);
    /// `nil`: the GIF as it plays.
    public var edit: TimelineEdit?

    /// `scratchFolder`, or the environment's when none is set.
    package var resolvedScratchFolder: String { scratchFolder ?? TemporaryFiles.environmentFolder }

    /// Threads a run may ask for, of any pool.
    public static let threadRange = 1...256

    public init(
        policy: TimelinePolicy = .flanimated, limits: DecodeLimits = .default, memoryBudget: Int? = nil,
        threads: Int? = nil, overwrite: Bool = false
    ) {
        self.policy = policy
        self.limits = limits
        self.memoryBudget = memoryBudget
        self.threads = threads
        self.overwrite = overwrite
    }

    /// The first setting out of range, or `nil` when the run can start.
    public var problem: RunSettingsProblem? {
        if let threads, !Self.threadRange.contains(threads) { return .threads(threads) }
        if let memoryBudget, memoryBudget < 1 { return .memoryBudget(memoryBudget) }
        if let edit {
            if let problem = edit.problem { return .edit(problem) }
            if verify != nil { return .editWithVerify }
        }
        return nil
    }

    // A run's thread counts, from `threads` by `ThreadCounts`' rules (the one place gifx decides a count from the
    // cores); the pools read these and nothing else.

    /// The counts the rules below read. Given `threads`, each of them returns it or derives from it without looking
    /// at the cores, so this process's counts (`ThreadCounts.machine`: its affinity mask and cgroup files, ≈ 2.3 M
    /// instructions to read) are read only when `threads` is `nil`, as before `ThreadCounts`; otherwise the rules
    /// are given `threads` as the cores.
    private var threadCounts: ThreadCounts { threads.map { ThreadCounts(cores: $0, onlineCores: $0) } ?? .machine }

    /// The threads every pool may use: `threads`, else the cores this process may use.
    public var resolvedThreads: Int { threadCounts.run(requested: threads) }

    /// Threads decoding `metadata`'s GIF: `threads`, else `AnimationMetadata.defaultDecodeThreads` (from the canvas and
    /// the frame count, at most the cores).
    package func decodeThreads(for metadata: AnimationMetadata) -> Int { threads ?? metadata.defaultDecodeThreads }

    /// Threads of each video encoder (`ThreadCounts.encoder`): 0 leaves the choice to the encoder.
    package var encoderThreads: Int { threadCounts.encoder(requested: threads) }

    /// Threads of a decoder reading an output back (`--verify`): `threads`, else 0 (libav's own choice).
    package var readBackThreads: Int { threadCounts.readBack(requested: threads) }

    /// Whether the run's outputs are fed, and verified, side by side (one thread each) rather than one after another.
    var sinksSideBySide: Bool { !diagnostics.serialSinks && resolvedThreads > 1 }

    /// Threads deflating a sprite sheet page: the diagnostics' count, else the run's threads, at most 4.
    package var resolvedPNGDeflateThreads: Int {
        threadCounts.pngDeflate(requested: diagnostics.pngDeflateThreads, runThreads: resolvedThreads)
    }
}

/// Why a `RunSettings` cannot run, worded without flag syntax (the CLI names its own flags).
public enum RunSettingsProblem: GifxError, Equatable {
    case threads(Int)
    case memoryBudget(Int)
    /// An edit that cannot apply to any GIF.
    case edit(TimelineEditError)
    /// Verification compares an output with the GIF as it plays, not with an edit of it.
    case editWithVerify

    public var failureClass: FailureClass { .usage }

    public var description: String {
        let range = "\(RunSettings.threadRange.lowerBound)...\(RunSettings.threadRange.upperBound)"
        switch self {
        case .threads: return "threads must be \(range)"
        case .memoryBudget: return "the memory budget must be at least 1 byte"
        case .edit(let problem): return problem.description
        case .editWithVerify: return "an edited output cannot be verified against the GIF"
        }
    }
}

/// What the encoder is told of each distinct picture's duration when repeats are repeat pictures
/// (docs/repeats.md, measured in docs/benchmarks.md). x264's rate control divides a frame's complexity by its
/// duration (clipped to 0.04-1 s), so a picture held long gets a lower QP.
package enum RepeatTimestamps: String, Sendable, Equatable {
    /// Real durations up to 0.1 s; a longer hold is shown to the encoder as 0.1 s (the default: about the old
    /// path's bytes at a better picture; real durations give key frames forced in long holds 1.1-1.3× the bytes).
    case capped
    /// Each picture's real start and duration, as `--vfr` gives them.
    case real
    /// One output frame each: the encoder sees the distinct pictures as consecutive frames.
    case dense
}
