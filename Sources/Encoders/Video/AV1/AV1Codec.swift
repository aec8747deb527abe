import GifxFrames
import GifxTimeline

extension VideoCodec {
    /// AV1 through SVT-AV1 (libsvtav1), or libaom for frames SVT-AV1 refuses: the smallest files at a given
    /// quality; MP4, WebM or AVIF.
    public static let av1 = VideoCodec(AV1Codec())
}

/// AV1 (`VideoCodecDescriptor`): SVT-AV1, or libaom under 64 pixels a side, in MP4, WebM or AVIF (its default),
/// and `show_existing_frame` repeats through libaom in real-time mode (`AV1RepeatSplicer`).
struct AV1Codec: VideoCodecDescriptor {
    var name: String { "av1" }
    var displayName: String { "AV1" }
    var libavName: String { "av1" }
    var containers: Set<VideoContainer> { [.mp4, .webm, .avif] }
    var defaultIn: Set<VideoContainer> { [.avif] }
    var encoderName: String { Self.svtAV1 }
    var encoderNames: [String] { [Self.svtAV1, Self.libaom] }
    /// SVT-AV1's `crf` scale; the default measured to give about the SSIM of x264 at 23 on the benchmark GIFs
    /// (docs/benchmarks.md, kind `convert`).
    var crfRange: ClosedRange<Double> { 0...63 }
    var defaultCRF: Double { 35 }
    var targetSizeRange: ClosedRange<Double> { 20...63 }
    var halvingCRFStep: Double { 8 }
    /// SVT-AV1's and libaom's `crf` are integers.
    var takesWholeCRF: Bool { true }
    var packetUnits: PacketUnits { .obus }

    static let svtAV1 = "libsvtav1"
    static let libaom = "libaom-av1"

    /// SVT-AV1 refuses pictures under 64 pixels a side ("Source Width must be at least 64"), and stickers and
    /// emoji are often smaller, so AV1 goes through libaom there rather than being padded to a bigger picture.
    func encoderName(for size: CanvasSize) -> String {
        min(size.width, size.height) < 64 ? Self.libaom : Self.svtAV1
    }

    /// SVT-AV1 takes numbers for speed; gifx's preset names map onto them so that `medium` is its balanced
    /// setting (measured in docs/benchmarks.md, kind `convert`): presets 12 (fastest) ... 2. libaom (AV1 under
    /// 64 pixels a side): `cpu-used` 8 ... 2, row-based threads, and no lookahead (`lag-in-frames` 0): with its
    /// default lag, libaom 3.6 runs its two-pass statistics on the lookahead and aborts on some tiny, mostly static
    /// videos (`av1_twopass_postencode_update: Assertion ... stats_in_start` at `cpu-used` 4 and up: a 32x18 GIF
    /// at a 1 cs tick, the ffmpeg CLI too; docs/reliability.md, "Encoder matrix"). Without lookahead that path
    /// never runs; at these sizes the files are as small (10.0 kB against 10.3 kB with alt-refs off).
    func baseOptions(_ settings: VideoSettings, encoder: String) -> [EncoderOption] {
        let rank = VideoCodec.presets.firstIndex(of: settings.preset) ?? 5  // ultrafast 0 ... placebo 9
        let crf = EncoderOption("crf", "\(Int(settings.crf.rounded()))")
        if encoder == Self.libaom {
            let cpuUsed = [8, 8, 7, 7, 6, 6, 5, 4, 3, 2][rank]
            return [
                EncoderOption("cpu-used", "\(cpuUsed)"), EncoderOption("row-mt", "1"), crf,
                EncoderOption("lag-in-frames", "0"),
            ]
        }
        let preset = [12, 11, 10, 9, 8, 7, 6, 5, 4, 2][rank]
        // SVT-AV1 ignores a key frame asked for (`pict_type` I) unless told to take them (measured with the
        // ffmpeg CLI's -force_key_frames: none without it; SVT-AV1 1.4.1, the version measured: docs/repeats.md,
        // "Key frames"; `KeyframeSchedule`).
        return [
            EncoderOption("preset", "\(preset)"), crf, EncoderOption("svtav1-params", "enable-force-key-frames=1"),
        ]
    }

    /// SVT-AV1 and libaom: their own settings only. SVT-AV1: 60 pictures in flight and their analysis buffers,
    /// 84 frames' worth (peak RSS at 720p to 4K was 0.4-0.6 bytes a pixel a picture over 1.5; SVT-AV1 1.4.1, the
    /// version measured).
    func tuningLadder(_ ladder: TuningLadderBuilder) -> [EncoderTuning] {
        [ladder.tuning("\(ladder.encoder) preset \(ladder.settings.preset)", frames: ladder.encoder == Self.svtAV1 ? 84 : 35)]
    }

    /// 1.5 bytes a pixel (4:2:0) with 80-pixel borders; SVT-AV1 holds 60 MiB whatever the size, libaom 12 MiB.
    func frameBytes(_ size: CanvasSize) -> Int { (size.width + 160) * (size.height + 160) * 3 / 2 }
    func fixedBytes(encoder: String) -> Int { encoder == Self.svtAV1 ? 60 << 20 : 12 << 20 }

    /// SVT-AV1 would run its threads at real-time priority 99 in a process that may (root), starving the machine.
    func takesRealtimePriority(encoder: String) -> Bool { encoder == Self.svtAV1 }

    /// Key frames are forced where `KeyframeSchedule` places them (`pict_type` I) on every encoder but libaom in
    /// good-quality mode, which answers a forced key frame with two and keeps its own `kf_max_dist` instead.
    /// libaom in real-time mode (AV1 with repeat pictures) takes one, as asked.
    func forcesKeyframes(_ tuning: EncoderTuning) -> Bool {
        tuning.encoder != Self.libaom || tuning.codecOptions.contains(EncoderOption("usage", "realtime"))
    }

    /// A shown key frame is not showable (§6.8.2), and decoders reject a `show_existing_frame` of it: the copy
    /// after a key frame is coded.
    var codesCopyAfterKeyframe: Bool { true }

    /// libaom refuses a time base over 1 s at open ("Invalid argument": a tick over 100 cs at a constant rate).
    func frameLengthProblem(encoder: String, timeBase: Rational) -> String? {
        guard encoder == Self.libaom, timeBase.num > timeBase.den else { return nil }
        return "\(encoder) (AV1 under 64 pixels a side) takes frames of at most 1 s at a constant rate, and this "
            + "one is \(VideoPlan.decimal(timeBase)) s"
    }

    // MARK: Repeat pictures

    /// `show_existing_frame` in MP4 or WebM (not in AVIF), through libaom real-time (`forRepeatPictures`), which
    /// refuses a time base over 1 s at open: such a stream (a tick over 100 cs) keeps SVT-AV1 and encodes its copies.
    func splicesRepeats(in container: VideoContainer, timeBase: Rational) -> Bool {
        (container == .mp4 || container == .webm) && timeBase.num <= timeBase.den
    }

    /// SVT-AV1 at 64 pixels a side and more, its structure shallower (`hierarchical-levels=3`: mini-GOPs of 8
    /// pictures, 7 reference slots, so slot 7 stays free for the shown frames SVT-AV1 keeps in no slot,
    /// `AV1RepeatSplicer.spareSlot`) and its `crf` 3 lower (`repeatCRF`); libaom in real-time mode under 64 pixels a
    /// side, where SVT-AV1 refuses the picture (libaom real-time stores every frame it shows in a slot). SVT-AV1
    /// needs about half the bytes of libaom real-time at the same SSIM on Lottie exports and camera clips
    /// (docs/repeats.md, "SVT-AV1 with repeats").
    func forRepeatPictures(_ tuning: EncoderTuning) -> EncoderTuning {
        var tuning = tuning
        if tuning.encoder == Self.svtAV1 {
            let crf = Self.repeatCRF(tuning.crf)
            tuning.codecOptions = tuning.codecOptions.map {
                switch $0.name {
                case "svtav1-params": EncoderOption($0.name, $0.value + ":" + Self.repeatStructure)
                case "crf": EncoderOption($0.name, "\(crf)")
                default: $0
                }
            }
            tuning.setting += ", \(Self.repeatStructure), crf \(crf) (repeat pictures)"
            return tuning
        }
        tuning.encoder = Self.libaom
        tuning.codecOptions = Self.realtimeOptions(preset: tuning.preset, crf: tuning.crf)
        let cpuUsed = tuning.codecOptions.first { $0.name == "cpu-used" }?.value ?? ""
        tuning.setting = "libaom real-time cpu-used \(cpuUsed) (repeat pictures)"
        return tuning
    }

    /// SVT-AV1's prediction structure with repeat pictures: one that leaves `AV1RepeatSplicer.spareSlot` alone.
    static let repeatStructure = "hierarchical-levels=3"

    /// SVT-AV1's `crf` with repeat pictures: 3 lower, so that `crf` keeps meaning the SSIM against the GIF that
    /// SVT-AV1 coding every copy gave. A held picture is coded once, where coding every copy refined it: on the
    /// bench's natural-motion GIF (vardelay-480x270x150) repeats at the same `crf` 35 lost 0.0023 SSIM against
    /// that output; at 32, 0.0016, in 0.68 times its bytes (docs/repeats.md, "SVT-AV1 with repeats").
    static func repeatCRF(_ crf: Double) -> Int {
        max(0, wholeCRF(crf) - 3)
    }

    /// `crf` rounded to SVT-AV1's and libaom's whole 0...63.
    static func wholeCRF(_ crf: Double) -> Int { Int(min(max(crf.rounded(), 0), 63)) }

    func makeRepeatSplicer(_ setup: RepeatSplicerSetup) throws -> RepeatSplicing {
        .inOrder(try AV1RepeatSplicer(extradata: setup.encoder.extradata))
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
    static func realtimeOptions(preset: String, crf: Double) -> [EncoderOption] {
        let rank = VideoCodec.presets.firstIndex(of: preset) ?? 5
        return [
            EncoderOption("usage", "realtime"), EncoderOption("cpu-used", rank <= 5 ? "8" : "7"),
            EncoderOption("row-mt", "1"), EncoderOption("crf", "\(realtimeCRF(crf))"),
            EncoderOption("lag-in-frames", "0"), EncoderOption("aom-params", "tune-content=screen"),
        ]
    }

    /// SVT-AV1's `crf` (0...63) on libaom real-time's scale, rounded: 0...35 onto 0...30, 35...63 onto 30...63.
    static func realtimeCRF(_ crf: Double) -> Int {
        let c = Double(wholeCRF(crf))
        let mapped = c <= 35 ? c * 30 / 35 : 30 + (c - 35) * 33 / 28
        return Int(mapped.rounded())
    }
}

extension AV1RepeatSplicer: RepeatSplicer {}
