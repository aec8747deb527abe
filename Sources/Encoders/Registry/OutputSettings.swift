import Foundation
import GifxTimeline

/// One output's own settings, as `key=value` items: `convert`'s `-o` prefix (`width=480,crf=28:small.mp4`) and
/// `gifx serve`'s query (`?format=mp4&width=480&crf=28`) are read by this one parser, with the same error texts.
/// Each replaces the command's (or the service's default) setting of the same name for that output only.
package struct OutputSettings: Codable, Hashable, Sendable {
    package var size: SizeRequest?
    package var codec: VideoCodec?
    package var crf: Double?
    package var timing: OutputTimingChoice?
    package var maxFps: Rational?
    package var quality: Float?
    /// A size cap in bytes (`target-size=10M`).
    package var targetSize: Int?
    /// The longest gap between key frames in seconds (`keyframe-interval=2`, `VideoSettings.keyframeInterval`).
    package var keyframeInterval: Double?

    package init() {}

    /// Keys accepted, for help and errors.
    package static var keys: [String] { OutputSettingName.allCases.map(\.rawValue) }

    /// The settings given, by name, in the table's order (a size by the key that gave it).
    package var givenNames: [OutputSettingName] {
        var names: [OutputSettingName] = []
        switch size {
        case .height?: names.append(.height)
        case .scale?: names.append(.scale)
        case .some: names.append(.width)
        case nil: break
        }
        if codec != nil { names.append(.codec) }
        if crf != nil { names.append(.crf) }
        if timing != nil { names.append(.fps) }
        if maxFps != nil { names.append(.maxFps) }
        if quality != nil { names.append(.quality) }
        if targetSize != nil { names.append(.targetSize) }
        if keyframeInterval != nil { names.append(.keyframeInterval) }
        return names
    }

    package var isEmpty: Bool { self == OutputSettings() }

    /// Sets `key` from `text`; `value` is the whole item list as the user wrote it, quoted in errors.
    package mutating func set(_ key: String, _ text: String, in value: String) throws(OutputSettingsError) {
        func bad(_ what: String) -> OutputSettingsError { OutputSettingsError("'\(value)': \(key)=\(text): \(what)") }
        switch key {
        case "width", "height":
            guard let pixels = Int(text) else { throw bad(SizeRequest.sidesProblem) }
            let request: SizeRequest = key == "width" ? .width(pixels) : .height(pixels)
            if let problem = request.problem { throw bad(problem) }
            try setSize(request, value)
        case "scale":
            guard let factor = Double(text) else { throw bad(SizeRequest.scaleProblem) }
            if let problem = SizeRequest.scale(factor).problem { throw bad(problem) }
            try setSize(.scale(factor), value)
        case "codec":
            guard let codec = VideoCodec(rawValue: text) else {
                throw bad("one of \(VideoCodec.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            self.codec = codec
        case "crf":
            guard let crf = Double(text) else { throw bad("not a number") }
            self.crf = crf
        case "fps":
            if text == "vfr" { timing = .vfr; return }
            guard let choice = SettingText.frameRateChoice(text) else { throw bad("auto, vfr, tick or a rate") }
            timing = choice
        case "max-fps":
            guard let rate = SettingText.frameRate(text) else { throw bad("not a rate") }
            maxFps = rate
        case "quality":
            guard let quality = Float(text), (0...100).contains(quality) else { throw bad("must be 0...100") }
            self.quality = quality
        case "target-size":
            guard let bytes = SettingText.byteCount(text) else { throw bad("a size such as 10M") }
            targetSize = bytes
        case "keyframe-interval":
            let range = VideoSettingsProblem.keyframeIntervalRange
            guard let seconds = Double(text), range.contains(seconds) else {
                throw bad("seconds, \(range.lowerBound)...\(Int(range.upperBound))")
            }
            keyframeInterval = seconds
        default:
            throw OutputSettingsError("'\(value)': unknown setting '\(key)' (known: \(Self.keys.joined(separator: ", ")))")
        }
    }

    private mutating func setSize(_ request: SizeRequest, _ value: String) throws(OutputSettingsError) {
        if size != nil { throw OutputSettingsError("'\(value)': give only one of width, height, scale") }
        size = request
    }

    /// A canonical text of the settings, the same for the same settings however they were written
    /// (`width=0480` and `width=480`): part of `gifx serve`'s cache key.
    package var canonicalText: String {
        var items: [String] = []
        switch size {
        case .width(let pixels)?: items.append("width=\(pixels)")
        case .height(let pixels)?: items.append("height=\(pixels)")
        case .scale(let factor)?: items.append("scale=\(factor)")
        case let other?: items.append("size=\(other)")
        case nil: break
        }
        if let codec { items.append("codec=\(codec.rawValue)") }
        if let crf { items.append("crf=\(crf)") }
        switch timing {
        case .tick?: items.append("fps=tick")
        case .auto?: items.append("fps=auto")
        case .vfr?: items.append("fps=vfr")
        case .rate(let rate)?: items.append("fps=\(rate.num)/\(rate.den)")
        case nil: break
        }
        if let maxFps { items.append("max-fps=\(maxFps.num)/\(maxFps.den)") }
        if let quality { items.append("quality=\(quality)") }
        if let targetSize { items.append("target-size=\(targetSize)") }
        if let keyframeInterval { items.append("keyframe-interval=\(keyframeInterval)") }
        return items.joined(separator: ",")
    }
}

/// The settings an output may have of its own, the one table that `convert`'s `-o` prefix, the service's query,
/// the kinds' rules (`OutputKind.settings`) and the generated docs read: each with its help line.
package enum OutputSettingName: String, CaseIterable, Sendable {
    case width, height, scale, codec, crf, fps
    case maxFps = "max-fps"
    case quality
    case targetSize = "target-size"
    case keyframeInterval = "keyframe-interval"

    /// The settings refused together, as one: the frame size's three.
    package var group: [OutputSettingName] {
        switch self {
        case .width, .height, .scale: [.width, .height, .scale]
        default: [self]
        }
    }

    /// One line of help (docs/openapi.yaml's parameter descriptions and `convert -o`'s help).
    package var help: String {
        switch self {
        case .width: "The output's width in pixels, the height following the aspect. Give at most one of width, height and scale."
        case .height: "The output's height in pixels, the width following the aspect. Give at most one of width, height and scale."
        case .scale:
            "A factor on both sides, more than 0 and at most \(Int(SizeRequest.largestScale)); the sides it gives must be "
                + "\(SizeRequest.sides.lowerBound) to \(SizeRequest.sides.upperBound) pixels and fit the memory budget (else 400 or "
                + "413). Give at most one of width, height and scale."
        case .codec: "h264 (mp4's default), hevc, vp9 (webm's default) or av1 (avif's); WebM holds vp9 or av1, AVIF av1 only."
        case .crf: "Constant quality in the codec's scale: h264 and hevc 0 to 51, vp9 and av1 0 to 63."
        case .fps: "tick (default), auto, vfr or a rate such as 30 or 30000/1001."
        case .maxFps: "The highest frame rate, a rate such as 30 or 30000/1001."
        case .quality: "webp 0 to 100 (default: lossless), jpg 1 to 100 (default 90)."
        case .targetSize: "The largest output, a size such as 10M, at the best quality that fits."
        case .keyframeInterval:
            "The longest gap between key frames, in seconds of output (default: a key frame every 250 coded pictures, "
                + "whatever the seconds): a key frame goes on the first new picture at or after each due time."
        }
    }

    /// The value's type and range as an OpenAPI schema (docs/openapi.yaml is generated from it).
    package var schema: String {
        switch self {
        case .width, .height: "{type: integer, minimum: \(SizeRequest.sides.lowerBound), maximum: \(SizeRequest.sides.upperBound)}"
        case .scale: "{type: number, exclusiveMinimum: 0, maximum: \(Int(SizeRequest.largestScale))}"
        case .codec: "{type: string, enum: [\(VideoCodec.allCases.map(\.rawValue).joined(separator: ", "))]}"
        case .crf: "{type: number, minimum: 0, maximum: 63}"
        case .quality: "{type: number, minimum: 0, maximum: 100}"
        case .fps, .maxFps, .targetSize: "{type: string}"
        case .keyframeInterval:
            "{type: number, minimum: \(VideoSettingsProblem.keyframeIntervalRange.lowerBound), maximum: \(Int(VideoSettingsProblem.keyframeIntervalRange.upperBound))}"
        }
    }
}

/// A setting that does not parse, in the words `convert` prints after `Error:` and `gifx serve` returns as
/// its 400's message.
package struct OutputSettingsError: Error, CustomStringConvertible, Equatable, Sendable {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// A rendition's `fps=`: the timing modes of `--fps` and `--vfr`.
package enum OutputTimingChoice: Codable, Hashable, Sendable {
    case tick, auto, vfr
    case rate(Rational)

    package var request: OutputPlan.Request {
        switch self {
        case .tick: .tick
        case .auto: .auto
        case .vfr: .vfr
        case .rate(let rate): .rate(rate)
        }
    }
}

/// The texts a setting's value is written in, read the same way by the command line and the service.
package enum SettingText {
    /// A size in bytes written the way people type it: `512M`, `2G`, `64k`, `1048576`.
    package static func byteCount(_ argument: String) -> Int? {
        let text = argument.trimmingCharacters(in: .whitespaces).uppercased()
        let units: [(String, Int)] = [("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30), ("T", 1 << 40)]
        var digits = Substring(text.hasSuffix("IB") ? String(text.dropLast(2)) : text)
        if digits.hasSuffix("B") { digits = digits.dropLast() }
        var multiplier = 1
        if let unit = units.first(where: { digits.hasSuffix($0.0) }) {
            multiplier = unit.1
            digits = digits.dropLast()
        }
        guard let value = Double(digits), value > 0, value * Double(multiplier) < Double(Int.max / 2) else {
            return nil
        }
        return Int(value * Double(multiplier))
    }

    /// A rate: a whole number, a decimal (`29.97`) or an exact fraction (`30000/1001`), at most 1000.
    package static func frameRate(_ argument: String) -> Rational? {
        let rate: Rational
        let parts = argument.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 2 {
            guard let num = Int(parts[0]), let den = Int(parts[1]), num > 0, den > 0,
                  num <= 1_000_000, den <= 1_000_000 else { return nil }
            rate = Rational(num, den)
        } else if let whole = Int(argument), whole > 0, whole <= 1000 {
            rate = Rational(whole)
        } else if let value = Double(argument), value > 0, value <= 1000 {
            rate = Rational(Int((value * 1000).rounded()), 1000)
            if rate.num <= 0 { return nil }
        } else {
            return nil
        }
        if rate.doubleValue > 1000 { return nil }
        return rate
    }

    /// `--fps`: `auto`, `tick` or a rate (`vfr` is its own flag on the command line).
    package static func frameRateChoice(_ argument: String) -> OutputTimingChoice? {
        switch argument {
        case "auto": return .auto
        case "tick": return .tick
        default: return frameRate(argument).map { .rate($0) }
        }
    }
}
