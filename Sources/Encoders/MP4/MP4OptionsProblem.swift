/// Why a set of video options cannot be encoded, worded without any flag syntax: the library (`MP4Writer`)
/// refuses such options and the CLI words the same problem with its flag names.
public enum MP4OptionsProblem: Error, Equatable, Sendable, CustomStringConvertible {
    case loops(Int)
    case crf(Double, codec: VideoCodec)
    case preset(String)
    case container(VideoCodec, VideoContainer)

    /// How many times the animation may be written.
    public static let loopRange = 1...10_000

    /// The option's name and the values it takes, without any flag syntax: "loops must be 1...10000".
    public var description: String {
        switch self {
        case .loops: return "loops must be \(Self.loopRange.lowerBound)...\(Self.loopRange.upperBound)"
        case .crf(_, let codec):
            return "crf must be \(Int(codec.crfRange.lowerBound))...\(Int(codec.crfRange.upperBound)) for \(codec.rawValue)"
        case .preset: return "preset must be one of \(VideoCodec.presets.joined(separator: ", "))"
        case .container(let codec, let container):
            return "codec \(codec.rawValue) does not fit \(container.rawValue) (WebM holds vp9 or av1)"
        }
    }
}

extension MP4Options {
    /// The first value out of range, or nil when the encoders accept every option.
    public var problem: MP4OptionsProblem? {
        if !MP4OptionsProblem.loopRange.contains(loops) { return .loops(loops) }
        if !codec.fits(container) { return .container(codec, container) }
        if !codec.crfRange.contains(crf) { return .crf(crf, codec: codec) }
        if !VideoCodec.presets.contains(preset) { return .preset(preset) }
        return nil
    }
}
