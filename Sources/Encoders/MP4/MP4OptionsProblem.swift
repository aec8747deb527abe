/// A value of `MP4Options` outside what the encoders accept. The rule lives here once; `MP4Writer`
/// refuses such options and the CLI words the same problem with its flag names.
public enum MP4OptionsProblem: Error, Equatable, Sendable, CustomStringConvertible {
    case loops(Int)
    case crf(Double)
    case preset(String)

    /// How many times the animation may be written.
    public static let loopRange = 1...10_000
    /// x264/x265's constant rate factor.
    public static let crfRange = 0.0...51.0

    /// The option's name and the values it takes, without any flag syntax: "loops must be 1...10000".
    public var description: String {
        switch self {
        case .loops: return "loops must be \(Self.loopRange.lowerBound)...\(Self.loopRange.upperBound)"
        case .crf: return "crf must be \(Int(Self.crfRange.lowerBound))...\(Int(Self.crfRange.upperBound))"
        case .preset: return "preset must be one of \(VideoCodec.presets.joined(separator: ", "))"
        }
    }
}

extension MP4Options {
    /// The first value out of range, or nil when the encoders accept every option.
    public var problem: MP4OptionsProblem? {
        if !MP4OptionsProblem.loopRange.contains(loops) { return .loops(loops) }
        if !MP4OptionsProblem.crfRange.contains(crf) { return .crf(crf) }
        if !VideoCodec.presets.contains(preset) { return .preset(preset) }
        return nil
    }
}
