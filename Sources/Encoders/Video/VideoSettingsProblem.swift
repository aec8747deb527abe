import GifxTimeline

/// Why a set of video options cannot be encoded, worded without any flag syntax: the library (`VideoPlan`)
/// refuses such options and the CLI words the same problem with its flag names.
public enum VideoSettingsProblem: Error, Equatable, Sendable, CustomStringConvertible {
    case loops(Int)
    case crf(Double, codec: VideoCodec)
    case preset(String)
    case container(VideoCodec, VideoContainer)
    /// A frame rate whose numerator or denominator is not a positive 32-bit value.
    case rateOutOfRange(Rational)
    /// A rate cap on a timing that has no constant rate to cap (VFR), or whose rate was given exactly.
    case capDoesNotApply(OutputPlan.Request)
    /// A level the codec does not have (or a codec without levels gifx sets: VP9, AV1).
    case level(LevelRequest, codec: VideoCodec)
    /// A key frame interval outside `keyframeIntervalRange` (or not a number).
    case keyframeInterval(Double)

    /// How many times the animation may be written.
    public static let loopRange = 1...10_000
    /// The longest gap between key frames a video may ask for, in seconds: above 0 (an interval shorter than
    /// one frame puts a key frame on every new picture), at most an hour.
    public static let keyframeIntervalRange: ClosedRange<Double> = 0.001...3600

    /// The option's name and the values it takes, without any flag syntax: "loops must be 1...10000".
    public var description: String {
        switch self {
        case .loops: return "loops must be \(Self.loopRange.lowerBound)...\(Self.loopRange.upperBound)"
        case .crf(_, let codec):
            return "crf must be \(Int(codec.crfRange.lowerBound))...\(Int(codec.crfRange.upperBound)) for \(codec.rawValue)"
        case .preset: return "preset must be one of \(VideoCodec.presets.joined(separator: ", "))"
        case .container(let codec, let container):
            return "codec \(codec.rawValue) does not fit \(container.rawValue) (WebM holds vp9 or av1, AVIF av1)"
        case .rateOutOfRange(let rate): return "frame rate \(rate) is out of range"
        case .capDoesNotApply(.vfr): return "a rate cap applies to a constant rate, not to VFR"
        case .capDoesNotApply: return "a rate cap applies to the tick or the automatic rate; give a lower rate instead"
        case .keyframeInterval:
            return "keyframe interval must be \(Self.keyframeIntervalRange.lowerBound)...\(Int(Self.keyframeIntervalRange.upperBound)) seconds"
        case .level(let level, let codec):
            let levels = LevelLimits.levels(of: codec)
            if levels.isEmpty { return "a level applies to h264 and hevc, not \(codec.rawValue)" }
            return "level \(level) is not a \(codec.rawValue) level (\(levels.map(\.description).joined(separator: ", ")))"
        }
    }
}

extension VideoSettings {
    /// The first value out of range, or nil when the encoders accept every option.
    public var problem: VideoSettingsProblem? {
        if !VideoSettingsProblem.loopRange.contains(loops) { return .loops(loops) }
        if !codec.fits(container) { return .container(codec, container) }
        if !codec.crfRange.contains(crf) { return .crf(crf, codec: codec) }
        if !VideoCodec.presets.contains(preset) { return .preset(preset) }
        if let level, levelLimits == nil { return .level(level, codec: codec) }
        if let keyframeInterval, !VideoSettingsProblem.keyframeIntervalRange.contains(keyframeInterval) {
            return .keyframeInterval(keyframeInterval)
        }
        return timingProblem
    }

    /// The first problem of the timing settings alone (rates and the cap), whatever the codec.
    public var timingProblem: VideoSettingsProblem? {
        for rate in [frameRate, maxFrameRate].compactMap({ $0 }) {
            guard rate.num > 0, rate.den > 0, rate.num <= Int(Int32.max), rate.den <= Int(Int32.max) else {
                return .rateOutOfRange(rate)
            }
        }
        if maxFrameRate != nil {
            switch timing {
            case .vfr, .rate: return .capDoesNotApply(timing)
            case .tick, .auto: break
            }
        }
        return nil
    }
}
