import GifxFrames
import GifxTimeline

extension VideoCodec {
    /// VP9 through libvpx-vp9: WebM's codec, and the one that carries alpha (yuva420p) to browsers.
    public static let vp9 = VideoCodec(VP9Codec())
}

/// VP9 (`VideoCodecDescriptor`): libvpx-vp9 in WebM or MP4, with alpha in WebM (as a second stream in Matroska
/// BlockAdditions, which browsers composite, and which libavcodec's own decoder ignores: libvpx reads it), and
/// coded skip frames for repeats (`VP9RepeatSplicer`, `VP9SkipFrame`).
struct VP9Codec: VideoCodecDescriptor {
    var name: String { "vp9" }
    var displayName: String { "VP9" }
    var libavName: String { "vp9" }
    var containers: Set<VideoContainer> { [.mp4, .webm] }
    var defaultIn: Set<VideoContainer> { [.webm] }
    var carriesAlpha: Bool { true }
    var alphaDecoderName: String? { "libvpx-vp9" }
    var encoderName: String { "libvpx-vp9" }
    /// libvpx's `crf` scale; the default measured to give about the SSIM of x264 at 23 on the benchmark GIFs
    /// (docs/benchmarks.md, kind `convert`).
    var crfRange: ClosedRange<Double> { 0...63 }
    var defaultCRF: Double { 32 }
    var targetSizeRange: ClosedRange<Double> { 15...63 }
    var halvingCRFStep: Double { 8 }
    /// libvpx's `crf` is an integer.
    var takesWholeCRF: Bool { true }
    var packetUnits: PacketUnits { .whole }

    /// libvpx takes numbers for speed; gifx's preset names map onto them so that `medium` is its balanced
    /// setting (measured in docs/benchmarks.md, kind `convert`): "good" deadline, `cpu-used` 5 (fastest
    /// good-quality) ... 0, row-based threads; `crf` with no bitrate target is constant quality.
    func baseOptions(_ settings: VideoSettings, encoder: String) -> [EncoderOption] {
        let rank = VideoCodec.presets.firstIndex(of: settings.preset) ?? 5  // ultrafast 0 ... placebo 9
        let cpuUsed = [5, 5, 5, 4, 4, 3, 2, 1, 0, 0][rank]
        return [
            EncoderOption("deadline", "good"), EncoderOption("cpu-used", "\(cpuUsed)"),
            EncoderOption("row-mt", "1"), EncoderOption("crf", "\(Int(settings.crf.rounded()))"),
        ]
    }

    /// libvpx's 25-frame lag; `lag-in-frames=10`; no lag and no alt-ref frames. libvpx holds about 40 frames'
    /// worth even without lag (reference pool, token and mode buffers: 590 MB at 3840×2160, docs/memory.md);
    /// each frame of lag adds one, alt-ref filtering 7.
    func tuningLadder(_ ladder: TuningLadderBuilder) -> [EncoderTuning] {
        let own = 38 + 2 * ladder.countedThreads
        return [
            ladder.tuning("libvpx lag 25", frames: 25 + 7 + own),
            ladder.tuning("libvpx lag 10", frames: 10 + 7 + own, extra: [EncoderOption("lag-in-frames", "10")]),
            ladder.tuning("libvpx no lag, no alt-ref", frames: own,
                          extra: [EncoderOption("lag-in-frames", "0"), EncoderOption("auto-alt-ref", "0")]),
        ]
    }

    /// 1.5 bytes a pixel (4:2:0) with libvpx's 80-pixel borders, and 20 MB whatever the size.
    func frameBytes(_ size: CanvasSize) -> Int { (size.width + 160) * (size.height + 160) * 3 / 2 }
    func fixedBytes(encoder: String) -> Int { 20 << 20 }

    // MARK: Repeat pictures

    /// With repeat pictures the copy after a key frame is coded: FFmpeg's decoder handed a `show_existing_frame`
    /// repeat the stored frame's key-frame flag, so every copy would read as a key frame, where the container
    /// says it is not one.
    var codesCopyAfterKeyframe: Bool { true }

    /// Coded skip frames in WebM or MP4 (not with alpha: the alpha plane is a second libvpx stream; `VideoPlan`).
    func splicesRepeats(in container: VideoContainer, timeBase: Rational) -> Bool {
        container == .webm || container == .mp4
    }

    /// libvpx's `error-resilient`, so that each of its frames starts from the default probabilities and predicts
    /// no motion vector from the frame before it, as the coded skip frames between them need (`VP9SkipFrame`);
    /// every packet of libvpx's ends with one shown frame whose slot its header names.
    func forRepeatPictures(_ tuning: EncoderTuning) -> EncoderTuning {
        var tuning = tuning
        tuning.codecOptions.append(EncoderOption("error-resilient", "default"))
        tuning.setting += ", error resilient (repeat pictures)"
        return tuning
    }

    func makeRepeatSplicer(_ setup: RepeatSplicerSetup) throws -> RepeatSplicing { .inOrder(VP9RepeatSplicer()) }
}

extension VP9RepeatSplicer: RepeatSplicer {}
