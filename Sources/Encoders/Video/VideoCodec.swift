import GifxTimeline

/// A video codec gifx writes: H.264, HEVC, VP9 or AV1, each through its libav wrapper. What a codec is (its
/// containers, encoders and their settings, key frames, levels, repeat pictures and decoders) is described in
/// its own folder under Sources/Encoders/Video/; the codecs there are listed once, in `VideoCodecRegistry`.
public struct VideoCodec: RawRepresentable, CaseIterable, Codable, Hashable, Sendable, CustomStringConvertible {
    /// The codec's name as options, queries and reports spell it: `h264`, `hevc`, `vp9`, `av1`.
    public let rawValue: String
    /// Everything gifx knows of the codec (its folder's descriptor).
    package let descriptor: any VideoCodecDescriptor

    /// The codec `descriptor` describes.
    package init(_ descriptor: any VideoCodecDescriptor) {
        rawValue = descriptor.name
        self.descriptor = descriptor
    }

    /// The registered codec of that name; `nil` for a name no codec has.
    public init?(rawValue: String) {
        guard let codec = VideoCodecRegistry.codecs.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = codec
    }

    /// Every codec gifx writes, in the registry's order.
    public static var allCases: [VideoCodec] { VideoCodecRegistry.codecs }

    /// Codecs are the same when their names are.
    public static func == (a: VideoCodec, b: VideoCodec) -> Bool { a.rawValue == b.rawValue }

    /// Hashes the name.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    /// The name (`rawValue`).
    public var description: String { rawValue }

    /// Writes the name.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }

    /// Reads a registered codec's name.
    public init(from decoder: any Decoder) throws {
        let name = try decoder.singleValueContainer().decode(String.self)
        guard let codec = VideoCodec(rawValue: name) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "codec \(name)"))
        }
        self = codec
    }

    /// The speed/size preset names gifx takes for every codec (x264's); each codec's descriptor maps them onto
    /// its encoders' own (libvpx's `cpu-used`, SVT-AV1's numbered presets).
    public static let presets = [
        "ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo",
    ]

    /// The libavcodec encoder's name (for AV1, at frame sizes SVT-AV1 opens: see `encoderName(for:)`).
    public var encoderName: String { descriptor.encoderName }

    /// Largest frame side the encoder opens.
    public var maximumSide: Int { descriptor.maximumSide }

    /// Smallest frame side the encoder opens (yuv420p needs 2; HEVC takes 32).
    public var minimumSide: Int { descriptor.minimumSide }

    /// The encoder for frames of `size` (AV1 goes through libaom under 64 pixels a side).
    public func encoderName(for size: CanvasSize) -> String { descriptor.encoderName(for: size) }

    /// The encoder's constant-quality scale: x264/x265 `crf` 0...51, libvpx and SVT-AV1 `crf` 0...63.
    public var crfRange: ClosedRange<Double> { descriptor.crfRange }

    /// The quality used when no CRF is given (docs/benchmarks.md, kind `convert`).
    public var defaultCRF: Double { descriptor.defaultCRF }

    /// Whether the stream can carry an alpha channel (VP9 only, in WebM).
    public var carriesAlpha: Bool { descriptor.carriesAlpha }

    /// Whether `container` holds this codec for players: WebM is VP9 or AV1 only, AVIF AV1 only.
    public func fits(_ container: VideoContainer) -> Bool { descriptor.containers.contains(container) }
}
