import ArgumentParser
import Encoders
import Timeline

/// The video options `to-mp4` and `convert` share: timing mode, codec, quality, background, loops.
struct VideoOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Output frame rate: auto (the source video's rate, every frame within 10 ms), or e.g. 30 or 30000/1001 "
            + "(default: the GIF's tick rate).", valueName: "rate"))
    var fps: FrameRateChoice?
    @Flag(help: "Variable frame rate: one video frame per GIF frame, each lasting exactly its delay.")
    var vfr = false
    @Option(help: ArgumentHelp(
        "Cap the frame rate: above it, resample at the rate <= N with the smallest timing error (reports drops).",
        valueName: "rate"))
    var maxFps: FrameRate?
    @Option(help: "Video codec: h264 (libx264) or hevc (libx265, tagged hvc1).") var codec: VideoCodec = .h264
    @Option(help: "Constant rate factor, 0-51 (lower is better quality).") var crf: Double = 23
    @Option(help: "Encoder preset, ultrafast ... placebo.") var preset = "medium"
    @Option(help: "Colour behind transparent pixels and odd-size padding: #RRGGBB, #RGB, white or black.")
    var background: RGBColor = .white
    @Option(help: "Write the animation this many times.") var loops = 1
    @Option(help: ArgumentHelp("Bound the encoder's buffers: auto, on or off.", visibility: .hidden))
    var lowMemory: LowMemoryMode = .auto

    func validate() throws {
        if let problem = MP4Options(crf: crf, preset: preset, loops: loops).problem {
            throw ValidationError("--\(problem.description)")
        }
        if vfr && fps != nil { throw ValidationError("give either --vfr or --fps, not both") }
        if vfr && maxFps != nil { throw ValidationError("--max-fps caps a constant rate; it does not apply to --vfr") }
        if case .rate? = fps, maxFps != nil {
            throw ValidationError("--max-fps caps the tick rate or --fps auto; with --fps N give a lower N instead")
        }
    }

    /// The timing the options ask for.
    var timing: OutputPlan.Request {
        if vfr { return .vfr }
        switch fps {
        case nil: return .tick
        case .auto?: return .auto
        case .rate(let rate)?: return .rate(rate)
        }
    }

    /// The encoder's options at output size `size`.
    func mp4Options(size: SizeRequest) -> MP4Options {
        MP4Options(
            codec: codec, crf: crf, preset: preset, background: background, loops: loops,
            size: size, lowMemory: lowMemory.forced, timing: timing, maxFrameRate: maxFps?.rate)
    }
}
