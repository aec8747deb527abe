import GifxFrames
import GifxTimeline

/// A level asked for with `--level` (`4.1`, `4`, `1b`): the decoder the stream must play on. In tenths of a
/// level (41 for 4.1), 9 for H.264's 1b, as H.264's `level_idc`; HEVC's `general_level_idc` is 3 × this.
public struct LevelRequest: Hashable, Sendable, Codable, CustomStringConvertible {
    public let tenths: Int

    public init(tenths: Int) { self.tenths = tenths }

    /// `4.1`, `4`, `41`, `1b`; nil for anything else (whether the codec has that level is `LevelLimits`'s).
    public init?(text: String) {
        if text.lowercased() == "1b" { tenths = 9; return }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) }),
              let major = Int(parts[0]) else { return nil }
        if parts.count == 2 {
            guard parts[1].count == 1, let minor = Int(parts[1]), (1...6).contains(major) else { return nil }
            tenths = major * 10 + minor
        } else if (10...62).contains(major) {
            tenths = major  // level_idc form: 41
        } else {
            guard (1...6).contains(major) else { return nil }
            tenths = major * 10
        }
    }

    public var description: String {
        if tenths == 9 { return "1b" }
        return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let level = LevelRequest(text: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "level \(text)"))
        }
        self = level
    }
}

/// What a level allows a stream (the codec's table: H.264 Table A-1, HEVC Tables A.8/A.9 Main tier) and how gifx
/// keeps to it: the largest frame rate at a frame size (the cap the output plan resamples under, as `--max-fps`),
/// the frame size itself, and the VBV (maximum bit rate and buffer) that makes the encoder's bit stream conform.
/// The codec's descriptor holds its table, its unit and the encoder parameters that write a level.
package struct LevelLimits: Sendable, Hashable {
    package let level: LevelRequest
    package let codec: VideoCodec
    /// Units (`unit`: macroblocks or luma samples) per second and per frame.
    let maxUnitsPerSecond: Int
    let maxUnitsPerFrame: Int
    /// The VBV: kbit/s and kbit (the codec's table says in what units of bits it counts them).
    package let vbvMaxRateKbps: Int
    package let vbvBufferKbit: Int
    /// The decoded picture buffer in macroblocks where the encoder needs it kept to (H.264); 0 otherwise.
    let maxDpbMbs: Int
    /// What a frame counts against the level.
    let unit: Unit

    /// One level of a codec's table.
    package struct Row: Hashable, Sendable {
        /// The level in tenths (41 for 4.1; 9 for H.264's 1b).
        package var tenths: Int
        package var maxUnitsPerSecond: Int, maxUnitsPerFrame: Int
        /// Maximum bit rate (kbit/s) and coded picture buffer (kbit).
        package var maxBR: Int, maxCPB: Int
        /// The decoded picture buffer in macroblocks, 0 where the encoder keeps to it by itself.
        package var maxDpbMbs: Int = 0

        package init(tenths: Int, maxUnitsPerSecond: Int, maxUnitsPerFrame: Int, maxBR: Int, maxCPB: Int, maxDpbMbs: Int = 0) {
            self.tenths = tenths
            self.maxUnitsPerSecond = maxUnitsPerSecond
            self.maxUnitsPerFrame = maxUnitsPerFrame
            self.maxBR = maxBR
            self.maxCPB = maxCPB
            self.maxDpbMbs = maxDpbMbs
        }
    }

    /// What a frame counts against a level.
    package enum Unit: Sendable, Hashable {
        /// 16×16 macroblocks (H.264).
        case macroblocks
        /// Luma samples (HEVC, x265's count).
        case lumaSamples

        /// The count for a frame of `size`.
        func count(_ size: CanvasSize) -> Int {
            let (width, height) = sides(size)
            return width * height
        }

        /// Each side in units of the limit on a side.
        func sides(_ size: CanvasSize) -> (Int, Int) {
            switch self {
            case .macroblocks: ((size.width + 15) / 16, (size.height + 15) / 16)
            case .lumaSamples: (size.width, size.height)
            }
        }

        /// The unit's name in messages.
        var name: String { self == .macroblocks ? "macroblocks" : "luma samples" }

        /// A side limit in pixels.
        func pixels(_ side: Int) -> Int { self == .macroblocks ? side * 16 : side }
    }

    /// The limits of `level` for `codec`; nil when the codec has no such level (or no levels gifx sets: VP9, AV1).
    package init?(_ level: LevelRequest, codec: VideoCodec) {
        guard let row = codec.descriptor.levels.first(where: { $0.tenths == level.tenths }) else { return nil }
        self.level = level
        self.codec = codec
        maxUnitsPerSecond = row.maxUnitsPerSecond
        maxUnitsPerFrame = row.maxUnitsPerFrame
        vbvMaxRateKbps = row.maxBR
        vbvBufferKbit = row.maxCPB
        maxDpbMbs = row.maxDpbMbs
        unit = codec.descriptor.levelUnit
    }

    /// The levels `codec` has, lowest first (what `--level` takes).
    package static func levels(of codec: VideoCodec) -> [LevelRequest] {
        codec.descriptor.levels.map { LevelRequest(tenths: $0.tenths) }
    }

    /// What a frame counts against the level: H.264 16×16 macroblocks, HEVC luma samples (x265's count).
    func units(_ size: CanvasSize) -> Int { unit.count(size) }

    /// The level's name in messages: `H.264 level 4.1`.
    package var name: String { "\(codec.descriptor.displayName) level \(level)" }

    /// Why `size` cannot be coded at this level (the picture size, or a side beyond √(8 × the maximum)), or nil.
    package func sizeProblem(_ size: CanvasSize) -> String? {
        let frame = units(size)
        let side = Int(Double(maxUnitsPerFrame * 8).squareRoot())
        let (width, height) = unit.sides(size)
        if frame > maxUnitsPerFrame {
            return "\(size.width)x\(size.height) (\(frame) \(unit.name) a frame) exceeds \(name)'s \(maxUnitsPerFrame)"
        }
        if width > side || height > side {
            return "\(size.width)x\(size.height) has a side beyond \(name)'s \(unit.pixels(side)) pixels (sqrt of 8 x its frame size)"
        }
        return nil
    }

    /// The highest frame rate the level allows at `size`, exact: MaxMBPS / macroblocks (H.264), MaxLumaSr /
    /// luma samples (HEVC).
    package func maxFrameRate(at size: CanvasSize) -> Rational {
        Rational(maxUnitsPerSecond, max(1, units(size)))
    }

    /// The encoder's private parameters that write the level into the stream and keep it within the level
    /// (the codec's descriptor: `levelParameters`).
    func encoderParameters(frameSize: CanvasSize, preset: String) -> EncoderParameters {
        codec.descriptor.levelParameters(self, frameSize: frameSize, preset: preset)
    }
}
