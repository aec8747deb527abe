import Foundation
import GifxFrames
import GifxSystem
import GifxTimeline

/// The encoder settings actually used, reported in the result so a run can be reproduced and its memory
/// understood. libx264 keeps roughly `rc-lookahead + b-frames + references + 3 × threads` full frames, each
/// with half-resolution lookahead planes and, for references, half-pel planes: about 3 bytes per padded
/// pixel (measured ≈ 25 MB a frame at 3840×2160), which at 4K dwarfs gifx's own frame cache. The
/// `MemoryPlanner` picks one level of `ladder` to fit the run's budget.
package struct EncoderTuning: Codable, Sendable, Hashable {
    /// libavcodec encoder name (`libx264`, `libx265`).
    package var encoder: String
    package var preset: String
    package var crf: Double
    /// Whether the settings are leaner than the preset's own (fewer frames held).
    package var lowMemory: Bool
    /// The level's name (`x264 lookahead 10`), as the memory plan reports it.
    package var setting: String = ""
    /// Encoder threads (`AVCodecContext.thread_count`): `--threads`, else 0 (the encoder decides) when every core is ours.
    package var threads: Int
    /// The x264/x265 parameters, in the order the encoder reads them (none for VP9 and AV1).
    package var parameters: EncoderParameters
    /// The private options set on the encoder besides the parameters: x264/x265's `preset` and `crf`
    /// (x265's `forced-idr`), libvpx's `deadline`, `cpu-used`, `row-mt`, `crf` and lag, SVT-AV1's numbered
    /// `preset`, `crf` and the `svtav1-params` that lets it take key frames where asked.
    package var codecOptions: [EncoderOption]
    /// Frames the rate control looks ahead, `nil` for the preset's default (40 for x264 medium).
    package var lookahead: Int? { parameters.lookahead }
    /// The `x264-params` / `x265-params` text passed, empty when none (and for VP9 and AV1).
    package var params: String { parameters.rendered }
    /// Every private option set on the encoder, in the order set (preset, crf, params, or libvpx's
    /// `deadline`, `cpu-used`, `row-mt`; SVT-AV1's numbered `preset`): what reproduces the run. The parameters
    /// are rendered here, into the one `x264-params` / `x265-params` option `VideoEncoder` sets.
    package var options: [EncoderOption] {
        guard !parameters.isEmpty, let name = parametersOption else { return codecOptions }
        return codecOptions + [EncoderOption(name, parameters.rendered)]
    }
    /// The private option that takes the parameters: `x264-params`, `x265-params`; `nil` for other encoders.
    private var parametersOption: String? { Self.parametersOption(encoder) }
    static func parametersOption(_ encoder: String) -> String? {
        switch encoder {
        case "libx264": "x264-params"
        case "libx265": "x265-params"
        default: nil
        }
    }
    /// Bytes these settings are estimated to hold at this frame size (docs/memory.md gives the formulas).
    package var estimatedBytes: Int
    /// The run's memory budget the choice was made against (bytes), `nil` when none was known.
    package var budgetBytes: Int?
    /// Why this level was chosen, one line for the caller's statistics.
    package var reason: String

    /// The encoder's settings from the fastest to the leanest, each with its estimated peak bytes
    /// (`estimatedBytes`), for `MemoryPlanner` to choose from; every level runs `threads` encoder threads.
    /// Levels estimated above `defaultCeiling` are left out while a leaner one exists: there the bounded
    /// settings cost no time (docs/memory.md), so a 4K GIF gets them whatever the budget.
    /// `options.lowMemory` forces the leanest level (true) or the preset's own settings (false).
    /// - libx264: the preset; `rc-lookahead=10`; 1 B-frame, 1 reference, lookahead 1; the same with sliced
    ///   threads (one frame in flight).
    /// - libx265: the preset; `rc-lookahead=10`; lookahead 5, 2 B-frames, 1 reference, 1 frame thread; at widths
    ///   up to 48 each without its CU-tree (`cutree=0`: libx265 writes out of bounds there; below, `.hevc`).
    /// - libvpx-vp9: libvpx's 25-frame lag; `lag-in-frames=10`; no lag and no alt-ref frames.
    /// - SVT-AV1 and libaom: their own settings only.
    /// `threads` 0: the encoder's own choice (x264 runs 1.5 threads a core: 8-10 % faster than one a core on
    /// 2 cores, measured at 854×480), estimated as that many.
    /// `referenceRepeats`: the stream's repeats may keep x264's B-frames (`referenceRepeatParameters`), whose B
    /// references need up to B-frames + 3 reference frames: 3 more than `medium`'s, counted on the levels with
    /// B-frames.
    package static func ladder(
        options: VideoSettings, frameSize: CanvasSize, threads: Int, referenceRepeats: Bool = false
    ) -> [EncoderTuning] {
        let threads = max(0, threads)
        let counted = threads > 0 ? threads : ThreadCounts.machine.encoderOwnChoice
        let pools: EncoderParameters = threads > 0 ? [.pools(threads)] : []
        let encoder = options.codec.encoderName(for: frameSize)
        // --level: the level written and the VBV that keeps the bit rate within it, on every ladder level.
        // First, so a leaner ladder level's own `ref=1` and `bframes=1` win (x264 reads them in order).
        let levelParameters = options.levelLimits?.encoderParameters(frameSize: frameSize, preset: options.preset) ?? []
        func tuning(
            _ label: String, frames: Int, parameters: EncoderParameters = [], extra: [EncoderOption] = []
        ) -> EncoderTuning {
            var result = EncoderTuning(
                encoder: encoder, preset: options.preset, crf: options.crf, lowMemory: false, threads: threads,
                parameters: [], codecOptions: [], estimatedBytes: 0, budgetBytes: nil, reason: "")
            result.setting = label
            result.estimatedBytes = fixedBytes(options.codec, encoder: encoder) + frames * frameBytes(options.codec, frameSize)
            switch options.codec {
            case .h264, .hevc:
                result.parameters = levelParameters + parameters
                result.codecOptions = [EncoderOption("preset", options.preset), EncoderOption("crf", crfText(options.crf))]
                // A key frame asked for (`pict_type` I, `KeyframeSchedule`) is an IDR: libx265 otherwise makes
                // it a plain I picture (libx264 makes it an IDR by itself: gifx never opens GOPs).
                if options.codec == .hevc { result.codecOptions.append(EncoderOption("forced-idr", "1")) }
            case .vp9, .av1:
                result.codecOptions = codecOptions(options, encoder: encoder) + extra
            }
            return result
        }
        let held = 3 * counted + 3  // frames in flight per frame thread, the reconstruction, slack
        var levels: [EncoderTuning]
        switch options.codec {
        case .h264:
            let lean: EncoderParameters = [.bframes(1), .ref(1), .rcLookahead(1), .syncLookahead(0)]
            let bReferences = referenceRepeats ? 3 : 0
            levels = [
                tuning("x264 preset \(options.preset)", frames: 40 + 3 + 3 + bReferences + held),
                tuning("x264 lookahead 10", frames: 10 + 3 + 3 + bReferences + held, parameters: [.rcLookahead(10)]),
                tuning("x264 1 B-frame, 1 reference, lookahead 1", frames: 1 + 1 + 1 + held, parameters: lean),
            ]
            if counted > 1 {  // one frame in flight instead of one per thread (the same as above on one thread)
                levels.append(tuning(
                    "x264 sliced threads, 1 B-frame, 1 reference, lookahead 1", frames: 1 + 1 + 1 + 3 + 3,
                    parameters: [.slicedThreads] + lean))
            }
        case .hevc:
            // libx265's lookahead writes out of bounds in `Lookahead::cuTree` at widths up to 48 (valgrind:
            // invalid writes at 34-48 wide, none at 50-72; the ffmpeg CLI with periodic key frames aborts with
            // "free(): invalid next size"; libx265 3.5, the version measured): its CU-tree is off there
            // (docs/repeats.md, "How (HEVC)").
            let quiet: EncoderParameters = frameSize.width <= 48 ? [.logLevel(.error), .cuTree(false)] : [.logLevel(.error)]
            levels = [
                tuning("x265 preset \(options.preset)", frames: 20 + 4 + 3 + held, parameters: quiet + pools),
                tuning("x265 lookahead 10", frames: 10 + 4 + 3 + held, parameters: quiet + pools + [.rcLookahead(10)]),
                tuning("x265 1 frame thread, 2 B-frames, 1 reference, lookahead 5", frames: 5 + 2 + 1 + 3 + 3,
                       parameters: quiet + pools + [.frameThreads(1), .bframes(2), .ref(1), .rcLookahead(5)]),
            ]
        case .vp9:
            // libvpx holds about 40 frames' worth even without lag (reference pool, token and mode buffers:
            // 590 MB at 3840×2160, docs/memory.md); each frame of lag adds one, alt-ref filtering 7.
            let own = 38 + 2 * counted
            levels = [
                tuning("libvpx lag 25", frames: 25 + 7 + own),
                tuning("libvpx lag 10", frames: 10 + 7 + own, extra: [EncoderOption("lag-in-frames", "10")]),
                tuning("libvpx no lag, no alt-ref", frames: own,
                       extra: [EncoderOption("lag-in-frames", "0"), EncoderOption("auto-alt-ref", "0")]),
            ]
        case .av1:
            // SVT-AV1: 60 pictures in flight and their analysis buffers, 84 frames' worth (peak RSS at 720p to 4K
            // was 0.4-0.6 bytes a pixel a picture over 1.5; SVT-AV1 1.4.1, the version measured).
            levels = [tuning("\(encoder) preset \(options.preset)", frames: encoder == "libsvtav1" ? 84 : 35)]
        }
        // A picture under one macroblock (16 pixels) high or wide: libx264's B-frames there are mostly direct
        // or skipped blocks bi-predicted between their references, so a GIF frame held still shows a ramp from
        // the previous frame to the next (a 1x1 gray of 190 held for 7 ticks decoded as 152, 186, 218, 200,
        // 180, 200, 218; up to 66 levels of movement, the ffmpeg CLI too; docs/reliability.md, "Encoder
        // matrix"). Without B-frames a held frame stays still (0 to 10 levels); such videos are a few hundred
        // bytes either way.
        if options.codec == .h264 && min(frameSize.width, frameSize.height) < 16 {
            levels = levels.map {
                var level = $0.withParameters([.bframes(0)])
                level.setting += ", no B-frames (under 16 pixels)"
                return level
            }
        }
        for k in levels.indices.dropFirst() { levels[k].lowMemory = true }
        switch options.lowMemory {
        case true?: levels = [levels[levels.count - 1]]
        case false?: levels = [levels[0]]
        case nil:
            while levels.count > 1 && levels[0].estimatedBytes > defaultCeiling(options.codec) { levels.removeFirst() }
        }
        return levels
    }

    /// Encoder bytes above which a leaner level is used by default (when one exists): 320 MiB as estimated until
    /// the estimates met the peak RSS they bound (`fixedBytes`, `frameBytes`), and for libx264 and libx265 that
    /// ceiling moved with their estimates, so the defaults choose the levels they chose (x264: 7 MiB + 3.9 bytes a
    /// pixel crosses 7 + 316 × 1.3 MiB where 4 MiB + 3 crossed 320; x265: 34 MiB where 8 MiB was fixed, 346 MiB).
    package static func defaultCeiling(_ codec: VideoCodec) -> Int {
        switch codec {
        case .h264: return (7 << 20) + (316 << 20) * 13 / 10
        case .hevc: return 346 << 20
        case .vp9, .av1: return 320 << 20
        }
    }

    /// Bytes an encoder frame costs: libx264 3.9 per pixel of the 32-pixel-padded picture (planes,
    /// half-resolution lookahead planes, half-pel planes, and what each frame's tables add: the peak RSS of
    /// every ladder level, 333×187 to 1440×900, was 0.6-0.9 bytes a pixel over 3, docs/memory.md); libx265 4
    /// per pixel of 64-padded CTUs; libvpx and AV1 1.5 (4:2:0) with libvpx's 80-pixel borders.
    static func frameBytes(_ codec: VideoCodec, _ size: CanvasSize) -> Int {
        switch codec {
        case .h264: return (size.width + 64) * (size.height + 64) * 39 / 10
        case .hevc: return (size.width + 128) * (size.height + 128) * 4
        case .vp9, .av1: return (size.width + 160) * (size.height + 160) * 3 / 2
        }
    }

    /// What an encoder holds whatever the frame size (tables, thread pools and their stacks touched): the peak
    /// RSS at each ladder level less the frames' estimate, 333×187 to 1440×900 (libx265 3.5: 17-25 MiB over the
    /// 8 MiB measured on a 16×16 GIF; docs/memory.md, "Estimates").
    static func fixedBytes(_ codec: VideoCodec, encoder: String) -> Int {
        switch codec {
        case .h264: return 7 << 20
        case .hevc: return 34 << 20
        case .vp9: return 20 << 20
        case .av1: return encoder == "libsvtav1" ? 60 << 20 : 12 << 20
        }
    }

    /// libvpx-vp9 and SVT-AV1 take numbers for speed; gifx's preset names map onto them so that `medium`
    /// is each encoder's balanced setting (measured in docs/benchmarks.md, kind `convert`). libvpx: "good"
    /// deadline, `cpu-used` 5 (fastest good-quality) ... 0, row-based threads; `crf` with no bitrate
    /// target is constant quality. SVT-AV1: presets 12 (fastest) ... 2. libaom (AV1 under 64 pixels a
    /// side): `cpu-used` 8 ... 2, row-based threads, and no lookahead (`lag-in-frames` 0): with its default
    /// lag, libaom 3.6 runs its two-pass statistics on the lookahead and aborts on some tiny, mostly static
    /// videos (`av1_twopass_postencode_update: Assertion ... stats_in_start` at `cpu-used` 4 and up: a 32x18
    /// GIF at a 1 cs tick, the ffmpeg CLI too; docs/reliability.md, "Encoder matrix"). Without lookahead that
    /// path never runs; at these sizes the files are as small (10.0 kB against 10.3 kB with alt-refs off).
    static func codecOptions(_ options: VideoSettings, encoder: String) -> [EncoderOption] {
        let rank = VideoCodec.presets.firstIndex(of: options.preset) ?? 5  // ultrafast 0 ... placebo 9
        switch options.codec {
        case .av1 where encoder == "libaom-av1":
            let cpuUsed = [8, 8, 7, 7, 6, 6, 5, 4, 3, 2][rank]
            return [
                EncoderOption("cpu-used", "\(cpuUsed)"), EncoderOption("row-mt", "1"),
                EncoderOption("crf", "\(Int(options.crf.rounded()))"), EncoderOption("lag-in-frames", "0"),
            ]
        case .vp9:
            let cpuUsed = [5, 5, 5, 4, 4, 3, 2, 1, 0, 0][rank]
            return [
                EncoderOption("deadline", "good"), EncoderOption("cpu-used", "\(cpuUsed)"),
                EncoderOption("row-mt", "1"), EncoderOption("crf", "\(Int(options.crf.rounded()))"),
            ]
        case .av1:
            let preset = [12, 11, 10, 9, 8, 7, 6, 5, 4, 2][rank]
            // SVT-AV1 ignores a key frame asked for (`pict_type` I) unless told to take them (measured with the
            // ffmpeg CLI's -force_key_frames: none without it; SVT-AV1 1.4.1, the version measured: docs/repeats.md,
            // "Key frames"; `KeyframeSchedule`).
            return [
                EncoderOption("preset", "\(preset)"), EncoderOption("crf", "\(Int(options.crf.rounded()))"),
                EncoderOption("svtav1-params", "enable-force-key-frames=1"),
            ]
        case .h264, .hevc:
            return []
        }
    }

    /// `23` or `23.5`, as x264 and x265 take it (libvpx and SVT-AV1 get whole numbers, rounded).
    static func crfText(_ crf: Double) -> String {
        crf == crf.rounded() ? "\(Int(crf))" : "\(crf)"
    }

}

/// The settings of one encode, derived from the memory plan's level by what the encode needs.
extension EncoderTuning {
    /// The same settings with `replacements` in the x264/x265 parameters, each replacing every item of its key
    /// (the two passes of `--target-size`, no B-frames under 16 pixels); other encoders' settings unchanged.
    func withParameters(_ replacements: EncoderParameters) -> EncoderTuning {
        guard parametersOption != nil, !replacements.isEmpty else { return self }
        var tuning = self
        tuning.parameters = parameters.replacing(with: replacements)
        return tuning
    }

    /// The same settings without B-frames (H.264 and HEVC; other codecs unchanged). A fragmented MP4 read from
    /// a pipe has no edit-list duration, so with B-frames its samples and its presentation disagree by the
    /// reorder delay (ffprobe reports 2.22 s for a 2.20 s GIF, or, without gifx's last-sample stretch, Chromium
    /// plays it 20 ms short). Without reordering, decode and presentation times coincide and every reader gets
    /// the GIF's duration exactly; the stream is a few percent larger (docs/delivery.md).
    func withoutBFrames(codec: VideoCodec) -> EncoderTuning {
        guard codec == .h264 || codec == .hevc else { return self }
        var tuning = withParameters([.bframes(0)])
        tuning.setting += ", no B-frames (streamed)"
        return tuning
    }

    /// The settings a stream with repeat pictures needs (docs/repeats.md). H.264: no B-frames, so decode
    /// order is presentation order and x264 writes `pic_order_cnt_type` 2, and one reference frame, so x264's
    /// picture after a run of repeats predicts from the last repeat, an exact copy of what it predicted from.
    /// VP9: libvpx's `error-resilient`, so that each of its frames starts from the default probabilities and
    /// predicts no motion vector from the frame before it, as the coded skip frames between them need
    /// (`VP9SkipFrame`); every packet of libvpx's ends with one shown frame whose slot its header names.
    /// AV1: libaom in real-time mode instead of SVT-AV1 (`realtimeAV1Options`).
    func forRepeatPictures(codec: VideoCodec = .h264) -> EncoderTuning {
        switch codec {
        case .h264:
            var tuning = withParameters([.bframes(0), .ref(1)])
            tuning.setting += ", no B-frames, 1 reference (repeat pictures)"
            return tuning
        case .hevc:
            var tuning = withParameters([.bframes(0), .ref(1), .temporalMVP(false), .wavefronts(false)])
            tuning.setting += ", no B-frames, 1 reference, no temporal MVP, no wavefronts (repeat pictures)"
            return tuning
        case .vp9:
            var tuning = self
            tuning.codecOptions.append(EncoderOption("error-resilient", "default"))
            tuning.setting += ", error resilient (repeat pictures)"
            return tuning
        case .av1:
            // libaom real-time, whatever the size: it stores every frame it shows in a reference slot, which a
            // `show_existing_frame` repeat needs (SVT-AV1 leaves half its shown frames out of every slot: 1.4.1, the
            // version measured, docs/repeats.md, "How (AV1)").
            var tuning = self
            tuning.encoder = "libaom-av1"
            tuning.codecOptions = Self.realtimeAV1Options(preset: preset, crf: crf)
            let cpuUsed = tuning.codecOptions.first { $0.name == "cpu-used" }?.value ?? ""
            tuning.setting = "libaom real-time cpu-used \(cpuUsed) (repeat pictures)"
            return tuning
        }
    }

    /// The x264 parameters with which H.264 repeat pictures keep x264's B-frames (docs/repeats.md, "B-frames with
    /// repeats"), `nil` where these settings cannot: fewer than 2 B-frames or no B-pyramid (a held picture could
    /// not be a B reference), a `--level` (its DPB limit may not hold the references a B reference needs), two
    /// passes, or no libx264 of the build gifx was compiled against to open (libavcodec's wrapper may still find
    /// its own). Every held picture is a reference (`X264Encoder.PictureType.reference`); x264 keeps a B reference
    /// only with more references than B references + 3, so `ref` is at least B-frames + 3 (6 at `medium`);
    /// implicit weighted bi-prediction off and spatial direct prediction (`H264ReferenceRepeatSplicer`).
    func referenceRepeatParameters() throws -> EncoderParameters? {
        guard encoder == "libx264",
              !parameters.items.contains(where: { ["level", "pass", "sliced-threads"].contains($0.key) }),
              (try? X264Encoder.load()) != nil
        else { return nil }
        let base = try X264Encoder.settings(tuning: self, extra: [])
        guard base.bFrames >= 2, base.pyramid else { return nil }
        let extra: EncoderParameters = [
            .ref(max(base.references, base.bFrames + 3)), .weightedBiprediction(false), .directPrediction(.spatial),
        ]
        return try X264Encoder.settings(tuning: self, extra: extra).allowReferenceRepeats ? extra : nil
    }

    /// libaom in real-time mode for AV1 with repeat pictures (docs/repeats.md, "How (AV1)"): no lookahead (a
    /// packet per frame, in order), a reference slot refreshed by every frame, row-based threads, and
    /// libavcodec's `gop_size` (`kf_max_dist`) off as for every encoder whose key frames gifx forces
    /// (libaom real-time takes a forced key frame as one key frame: measured with the ffmpeg CLI's
    /// `-force_key_frames`, where good-quality mode writes two). `cpu-used` 8 (libavcodec 5.1's highest) up to
    /// `medium`, 7 above. `tune-content=screen` (through `aom-params`: libavcodec 5.1 has no option of its own
    /// for it): libaom's screen-content tools (palette, intra block copy), which real-time mode does not pick by
    /// itself; on the repeats bench's screen recordings they halve the bytes at a higher SSIM (rec-800x600, `crf`
    /// 12, key frames every 5 s: 223.5 kB at 0.99984 against 472.8 kB at 0.99949; key frames of 22 kB instead of
    /// 53 kB). Its `crf` is on another scale than SVT-AV1's at the same number: measured there, libaom real-time's
    /// `crf` 30 gives about the SSIM against the GIF that SVT-AV1's 35 (the default) gives at the tick, so `crf`
    /// maps 0...35 onto 0...30 and 35...63 onto 30...63, linearly.
    static func realtimeAV1Options(preset: String, crf: Double) -> [EncoderOption] {
        let rank = VideoCodec.presets.firstIndex(of: preset) ?? 5
        return [
            EncoderOption("usage", "realtime"), EncoderOption("cpu-used", rank <= 5 ? "8" : "7"),
            EncoderOption("row-mt", "1"), EncoderOption("crf", "\(realtimeAV1CRF(crf))"),
            EncoderOption("lag-in-frames", "0"), EncoderOption("aom-params", "tune-content=screen"),
        ]
    }

    /// SVT-AV1's `crf` (0...63) on libaom real-time's scale, rounded: 0...35 onto 0...30, 35...63 onto 30...63.
    static func realtimeAV1CRF(_ crf: Double) -> Int {
        let c = min(max(crf.rounded(), 0), 63)
        let mapped = c <= 35 ? c * 30 / 35 : 30 + (c - 35) * 33 / 28
        return Int(mapped.rounded())
    }
}

/// The report's form (`--stats`, `batch`'s report): the parameters as the text the encoder was given
/// (`params`, and the `x264-params` / `x265-params` item of `options`), and `lookahead` beside them. Read
/// back, the text is kept as written (`EncoderParameters(reported:)`), so a report decoded and encoded again
/// is the same text.
extension EncoderTuning {
    private enum CodingKeys: String, CodingKey {
        case encoder, preset, crf, lowMemory, setting, threads, lookahead, params, options, estimatedBytes,
             budgetBytes, reason
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(self.encoder, forKey: .encoder)
        try c.encode(preset, forKey: .preset)
        try c.encode(crf, forKey: .crf)
        try c.encode(lowMemory, forKey: .lowMemory)
        try c.encode(setting, forKey: .setting)
        try c.encode(threads, forKey: .threads)
        try c.encodeIfPresent(lookahead, forKey: .lookahead)
        try c.encode(params, forKey: .params)
        try c.encode(options, forKey: .options)
        try c.encode(estimatedBytes, forKey: .estimatedBytes)
        try c.encodeIfPresent(budgetBytes, forKey: .budgetBytes)
        try c.encode(reason, forKey: .reason)
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        encoder = try c.decode(String.self, forKey: .encoder)
        preset = try c.decode(String.self, forKey: .preset)
        crf = try c.decode(Double.self, forKey: .crf)
        lowMemory = try c.decode(Bool.self, forKey: .lowMemory)
        setting = try c.decodeIfPresent(String.self, forKey: .setting) ?? ""
        threads = try c.decode(Int.self, forKey: .threads)
        parameters = EncoderParameters(reported: try c.decode(String.self, forKey: .params))
        let name = Self.parametersOption(encoder)
        codecOptions = (try c.decodeIfPresent([EncoderOption].self, forKey: .options) ?? []).filter { $0.name != name }
        estimatedBytes = try c.decode(Int.self, forKey: .estimatedBytes)
        budgetBytes = try c.decodeIfPresent(Int.self, forKey: .budgetBytes)
        reason = try c.decode(String.self, forKey: .reason)
    }
}

/// One private option set on a libavcodec encoder (`av_opt_set` on its `priv_data`), as the result reports it.
package struct EncoderOption: Codable, Sendable, Hashable {
    package var name: String
    package var value: String

    package init(_ name: String, _ value: String) { self.name = name; self.value = value }
}
