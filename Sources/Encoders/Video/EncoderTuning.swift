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
    /// libavcodec encoder name (`libx264`, `libx265`, `libvpx-vp9`, `libsvtav1`, `libaom-av1`).
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
    /// The private options set on the encoder besides the parameters (the codec's `baseOptions` and its ladder
    /// level's): x264/x265's `preset` and `crf` (x265's `forced-idr`), libvpx's `deadline`, `cpu-used`, `row-mt`,
    /// `crf` and lag, SVT-AV1's numbered `preset`, `crf` and the `svtav1-params` that lets it take key frames.
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
    /// The private option that takes `encoder`'s parameters, from the codec whose encoder it is.
    static func parametersOption(_ encoder: String) -> String? {
        VideoCodecRegistry.codec(encoder: encoder)?.descriptor.parametersOption(encoder: encoder)
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
    /// Each codec's descriptor lists its levels (`VideoCodecDescriptor.tuningLadder`: libx264's in `H264Codec`,
    /// libx265's in `HEVCCodec`, libvpx's in `VP9Codec`, SVT-AV1's and libaom's in `AV1Codec`).
    /// `threads` 0: the encoder's own choice (x264 runs 1.5 threads a core: 8-10 % faster than one a core on
    /// 2 cores, measured at 854×480), estimated as that many.
    /// `referenceRepeats`: the stream's repeats may keep the encoder's B-frames (H.264:
    /// `VideoCodecDescriptor.referenceRepeatTuning`), whose references the codec's ladder counts.
    package static func ladder(
        options: VideoSettings, frameSize: CanvasSize, threads: Int, referenceRepeats: Bool = false
    ) -> [EncoderTuning] {
        let builder = TuningLadderBuilder(
            settings: options, frameSize: frameSize, threads: threads, referenceRepeats: referenceRepeats)
        var levels = options.codec.descriptor.tuningLadder(builder)
        for k in levels.indices.dropFirst() { levels[k].lowMemory = true }
        switch options.lowMemory {
        case true?: levels = [levels[levels.count - 1]]
        case false?: levels = [levels[0]]
        case nil:
            while levels.count > 1 && levels[0].estimatedBytes > defaultCeiling(options.codec) { levels.removeFirst() }
        }
        return levels
    }

    /// Encoder bytes above which a leaner level is used by default (when one exists): the codec's
    /// (`VideoCodecDescriptor.defaultCeiling`).
    package static func defaultCeiling(_ codec: VideoCodec) -> Int { codec.descriptor.defaultCeiling }

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

    /// The same settings without B-frames where the codec reorders (H.264 and HEVC; other codecs unchanged). A
    /// fragmented MP4 read from a pipe has no edit-list duration, so with B-frames its samples and its
    /// presentation disagree by the reorder delay (ffprobe reports 2.22 s for a 2.20 s GIF, or, without gifx's
    /// last-sample stretch, Chromium plays it 20 ms short). Without reordering, decode and presentation times
    /// coincide and every reader gets the GIF's duration exactly; the stream is a few percent larger
    /// (docs/delivery.md). The codec's descriptor says how (`VideoCodecDescriptor.withoutBFrames`).
    func withoutBFrames(codec: VideoCodec) -> EncoderTuning {
        codec.descriptor.withoutBFrames(self)
    }

    /// The settings a stream with repeat pictures needs (docs/repeats.md), from the codec's descriptor
    /// (`VideoCodecDescriptor.forRepeatPictures`).
    func forRepeatPictures(codec: VideoCodec = .h264) -> EncoderTuning {
        codec.descriptor.forRepeatPictures(self)
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
