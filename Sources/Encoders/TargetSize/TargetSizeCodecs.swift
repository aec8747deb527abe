import GifxFrames

extension VideoCodec {
    /// The CRFs `--target-size` searches: from the best quality worth its bytes (x264's "visually lossless"
    /// 18; the same point on the other encoders' scales) to the encoder's worst.
    public var targetSizeRange: ClosedRange<Double> { descriptor.targetSizeRange }

    /// CRF change that about halves the size, for the first estimate (the second encode measures it).
    var halvingCRFStep: Double { descriptor.halvingCRFStep }

    /// Whether the encoder takes whole CRFs only (libvpx's `crf` and SVT-AV1's are integers).
    var takesWholeCRF: Bool { descriptor.takesWholeCRF }

    /// Whether `--target-size` can use a second pass at a bitrate (x264 and x265 read their first pass's
    /// statistics, written by the first, CRF, encode). That encode stays at `--crf` (23): started at CRF 18
    /// instead, a cap far below it was met in one pass less often (second passes from CRF-18 statistics
    /// overshot 10-20 % on noise, where those from CRF 23 landed at 97 %).
    public var hasTwoPass: Bool { descriptor.hasTwoPass }
}

/// One encode of a `--target-size` search: its rate control (a CRF, or a second pass at a bitrate) and its bytes.
public struct TargetSizeEncode: Codable, Sendable, Hashable {
    public var crf: Double?
    /// Second pass of x264/x265 at this average bitrate (kbit/s), from the first encode's statistics.
    public var bitrateKbps: Int?
    /// WebP: the lossy quality (`nil` with no CRF or bitrate either: lossless).
    public var webpQuality: Double?
    public var bytes: Int

    public init(crf: Double? = nil, bitrateKbps: Int? = nil, webpQuality: Double? = nil, bytes: Int) {
        self.crf = crf; self.bitrateKbps = bitrateKbps; self.webpQuality = webpQuality; self.bytes = bytes
    }

    /// How the encode was made, for messages: `CRF 23`, `350 kbit/s`, `quality 80`, `lossless`.
    public var setting: String {
        if let crf { return "CRF \(crf)" }
        if let bitrateKbps { return "\(bitrateKbps) kbit/s" }
        if let webpQuality { return "quality \(webpQuality)" }
        return "lossless"
    }
}

/// How `--target-size` went for one output: the cap, the encodes spent and the one kept.
public struct TargetSizeReport: Codable, Sendable, Hashable {
    /// The cap in bytes.
    public var target: Int
    /// Bytes of the output kept.
    public var bytes: Int
    /// The encode kept.
    public var kept: TargetSizeEncode
    /// Every encode, in order (the first from the decoded GIF, the others from the spooled canvases).
    public var attempts: [TargetSizeEncode]
    /// Encodes spent.
    public var encodes: Int
    /// Whether the kept output is below 90 % of the cap because the best quality allowed fits there.
    public var bestQualityFitsBelow: Bool
}

/// No quality the search may use fits the cap: refused, naming the smallest size reached.
package struct TargetSizeUnreachable: GifxError {
    package let path: String
    package let target: Int
    package let smallest: TargetSizeEncode
    package var description: String {
        "cannot fit \(target) bytes: the smallest encode (\(smallest.setting)) is \(smallest.bytes) bytes"
    }
    package var failureClass: FailureClass { .usage }
    package var subjectPath: String? { path }
}
