import GifxFrames
import GifxTimeline

/// The encoder settings actually used, reported in the result so a run can be reproduced and its memory
/// understood. libx264 keeps roughly `rc-lookahead + b-frames + references + threads` full frames, each
/// with half-resolution lookahead planes and, for references, half-pel planes: about 3 bytes per padded
/// pixel (measured ≈ 25 MB a frame at 3840×2160), which at 4K dwarfs gifx's own frame cache. Low-memory
/// mode bounds that count to fit an encoder budget.
public struct EncoderTuning: Codable, Sendable, Hashable {
    /// libavcodec encoder name (`libx264`, `libx265`).
    public var encoder: String
    public var preset: String
    public var crf: Double
    /// Whether the encoder's buffers were bounded.
    public var lowMemory: Bool
    /// Encoder threads (`AVCodecContext.thread_count`); 0 lets the encoder choose (1.5 × cores frame threads for x264).
    public var threads: Int
    /// Frames the rate control looks ahead, `nil` for the preset's default (40 for x264 medium).
    public var lookahead: Int?
    /// The `x264-params` / `x265-params` string passed, empty when none (and for VP9 and AV1).
    public var params: String
    /// Every private option set on the encoder, in the order set (preset, crf, params, or libvpx's
    /// `deadline`, `cpu-used`, `row-mt`; SVT-AV1's numbered `preset`): what reproduces the run.
    public var options: [EncoderOption] = []
    /// Encoder buffers the preset's own settings would hold at this frame size (estimate, bytes).
    public var estimatedBytes: Int
    /// The encoder budget the choice was made against (bytes), `nil` when none was known.
    public var budgetBytes: Int?
    /// Why low-memory settings were (or were not) chosen, one line for the caller's statistics.
    public var reason: String

    /// Share of the available memory the encoder may take when no memory budget is given: the rest is
    /// left to gifx's frame cache and to whatever else runs (a batch runs several conversions at once).
    public static let availableShare = 4

    /// Picks the settings for `frameSize` output frames within `budget` bytes of encoder buffers, or as
    /// `options.lowMemory` forces. The low-memory settings cost time (measured 1.3× on a 934×750 screen
    /// recording) to save memory, so they engage only when a budget demands it: the memory budget
    /// given, else a quarter of the memory actually `available` (cgroup limit or MemAvailable); with
    /// neither known, never. The settings:
    /// - the preset's own settings when its ~51 frames fit (e.g. 480×270: ~28 MB);
    /// - else sliced threads (one frame in flight instead of one per frame thread), no threaded
    ///   lookahead, and `rc-lookahead` as long as the budget allows, 3...40 (1280×720: 10);
    /// - else (the budget does not even cover 3 B-frames: 4K) one B-frame, one reference, lookahead 1.
    /// Measured on 24 frames of 3840×2160 with the default settings, peak RSS went 616 MB (lookahead 4,
    /// 2 frame threads) → 546 MB (sliced) → 371 MB (1 B-frame, 1 reference, lookahead 1) for files within
    /// 3 % of each other; on 1280×720×250, lookahead 10 sliced: 134 MB against 267 MB and a smaller file.
    public static func choose(
        options: VideoSettings, frameSize: CanvasSize, budget given: Int?, cores: Int,
        available: AvailableMemory? = nil
    ) -> EncoderTuning {
        let frameBytes = max(1, estimatedFrameBytes(frameSize))
        let estimated = frameBytes * presetFramesHeld
        var budget = given
        var reason: String
        if let given {
            reason = "memory budget \(mebibytes(given))"
        } else {
            let available = available ?? .current()
            budget = available.bytes.map { $0 / availableShare }
            reason = available.bytes.map { "1/\(availableShare) of \(mebibytes($0)) available (\(available.source))" }
                ?? "no memory limit known"
        }
        let needed = budget.map { estimated > $0 } ?? false
        let low = options.lowMemory ?? needed
        switch (options.lowMemory, low) {
        case (true?, _): reason = "low-memory settings forced on"
        case (false?, _): reason = "low-memory settings forced off"
        case (nil, true): reason = "encoder needs ~\(mebibytes(estimated)), over the budget: \(reason)"
        case (nil, false) where budget == nil: reason = "encoder needs ~\(mebibytes(estimated)); \(reason)"
        case (nil, false): reason = "encoder needs ~\(mebibytes(estimated)), within the budget: \(reason)"
        }
        let effectiveBudget = budget ?? estimated
        var tuning = EncoderTuning(
            encoder: options.codec.encoderName(for: frameSize), preset: options.preset, crf: options.crf, lowMemory: low,
            threads: 0, lookahead: nil, params: "", estimatedBytes: estimated, budgetBytes: budget, reason: reason)
        var params: [String] = []
        if options.codec == .hevc { params.append("log-level=error") }
        if options.codec == .vp9 || options.codec == .av1 {
            tuning.lowMemory = false
            tuning.reason = "\(tuning.encoder) keeps a fixed lag of frames; low-memory settings are x264/x265's"
            tuning.options = codecOptions(options, encoder: tuning.encoder)
            return tuning
        }
        if low {
            let threads = max(1, cores)
            let lookahead = effectiveBudget / frameBytes - fixedFramesHeld
            tuning.threads = threads
            switch options.codec {
            case .h264:
                params += ["sliced-threads=1", "sync-lookahead=0"]
                if lookahead >= 3 {
                    tuning.lookahead = min(40, lookahead)
                    params.append("rc-lookahead=\(min(40, lookahead))")
                } else {
                    tuning.lookahead = 1
                    params += ["rc-lookahead=1", "bframes=1", "ref=1"]
                }
            case .vp9, .av1:
                break  // returned above
            case .hevc:
                let bounded = max(5, min(40, lookahead))
                tuning.lookahead = bounded
                params += ["rc-lookahead=\(bounded)", "frame-threads=1", "pools=\(threads)"]
            }
        }
        tuning.params = params.joined(separator: ":")
        tuning.options = [EncoderOption("preset", options.preset), EncoderOption("crf", crfText(options.crf))]
        if !tuning.params.isEmpty {
            tuning.options.append(EncoderOption(options.codec == .h264 ? "x264-params" : "x265-params", tuning.params))
        }
        return tuning
    }

    /// libvpx-vp9 and SVT-AV1 take numbers for speed; gifx's preset names map onto them so that `medium`
    /// is each encoder's balanced setting (measured in docs/benchmarks.md, kind `convert`). libvpx: "good"
    /// deadline, `cpu-used` 5 (fastest good-quality) ... 0, row-based threads; `crf` with no bitrate
    /// target is constant quality. SVT-AV1: presets 12 (fastest) ... 2. libaom (AV1 under 64 pixels a
    /// side): `cpu-used` 8 ... 2, row-based threads.
    static func codecOptions(_ options: VideoSettings, encoder: String) -> [EncoderOption] {
        let rank = VideoCodec.presets.firstIndex(of: options.preset) ?? 5  // ultrafast 0 ... placebo 9
        switch options.codec {
        case .av1 where encoder == "libaom-av1":
            let cpuUsed = [8, 8, 7, 7, 6, 6, 5, 4, 3, 2][rank]
            return [
                EncoderOption("cpu-used", "\(cpuUsed)"), EncoderOption("row-mt", "1"),
                EncoderOption("crf", "\(Int(options.crf.rounded()))"),
            ]
        case .vp9:
            let cpuUsed = [5, 5, 5, 4, 4, 3, 2, 1, 0, 0][rank]
            return [
                EncoderOption("deadline", "good"), EncoderOption("cpu-used", "\(cpuUsed)"),
                EncoderOption("row-mt", "1"), EncoderOption("crf", "\(Int(options.crf.rounded()))"),
            ]
        case .av1:
            let preset = [12, 11, 10, 9, 8, 7, 6, 5, 4, 2][rank]
            return [EncoderOption("preset", "\(preset)"), EncoderOption("crf", "\(Int(options.crf.rounded()))")]
        case .h264, .hevc:
            return []
        }
    }

    /// `23` or `23.5`, as x264 and x265 take it (libvpx and SVT-AV1 get whole numbers, rounded).
    static func crfText(_ crf: Double) -> String {
        crf == crf.rounded() ? "\(Int(crf))" : "\(crf)"
    }

    /// `56 MiB`, or `100 KiB` below 1 MiB.
    static func mebibytes(_ bytes: Int) -> String { bytes < 1 << 20 ? "\(bytes >> 10) KiB" : "\(bytes >> 20) MiB" }

    /// Bytes libx264 holds per frame: about 3 per pixel of the 32-pixel-padded picture.
    static func estimatedFrameBytes(_ size: CanvasSize) -> Int {
        (size.width + 64) * (size.height + 64) * 3
    }

    /// Frames held at the preset's defaults: lookahead 40, 3 B-frames, 3 references, 3 frame threads, 2 in flight.
    static let presetFramesHeld = 51
    /// Frames held besides the lookahead in low-memory mode: 3 B-frames, 3 references, the current one,
    /// the reconstruction, and slack.
    static let fixedFramesHeld = 10
}

/// One private option set on a libavcodec encoder (`av_opt_set` on its `priv_data`), as the result reports it.
public struct EncoderOption: Codable, Sendable, Hashable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) { self.name = name; self.value = value }
}
