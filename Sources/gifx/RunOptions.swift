import ArgumentParser
import Encoders
import Frames
import Timeline

/// Options every converting subcommand shares: output handling, reporting and resource limits.
struct RunOptions: ParsableArguments {
    @Flag(help: "Replace an existing output file.") var overwrite = false
    @Flag(help: "No progress bar and no warnings on stderr.") var quiet = false
    @Flag(help: "Print a JSON summary (frames, fps, wall time, peak cache bytes) on stdout when done.")
    var stats = false
    @Flag(help: "Fail on damaged image data instead of keeping the frames that decode.") var strict = false
    @Option(
        help: ArgumentHelp(
            "Memory for decoded frames, e.g. 64M or 2G (default: the reference player's categories).",
            valueName: "size"))
    var memoryBudget: ByteCount?

    var limits: DecodeLimits { DecodeLimits(strict: strict) }
}

/// Output frame size: at most one of `--width`, `--height`, `--scale`; the aspect ratio is kept.
struct SizeOptions: ParsableArguments {
    @Option(help: "Output width in pixels (height follows the aspect ratio).") var width: Int?
    @Option(help: "Output height in pixels (width follows the aspect ratio).") var height: Int?
    @Option(help: "Scale factor, e.g. 0.5 or 2.") var scale: Double?

    func validate() throws {
        if [width != nil, height != nil, scale != nil].filter({ $0 }).count > 1 {
            throw ValidationError("give only one of --width, --height, --scale")
        }
        if let width, width < 1 || width > 16384 { throw ValidationError("--width must be 1...16384") }
        if let height, height < 1 || height > 16384 { throw ValidationError("--height must be 1...16384") }
        if let scale, !(scale > 0 && scale <= 64) { throw ValidationError("--scale must be > 0 and <= 64") }
    }

    var request: SizeRequest {
        if let width { return .width(width) }
        if let height { return .height(height) }
        if let scale { return .scale(scale) }
        return .original
    }
}

extension TimelinePolicy: ExpressibleByArgument {}

extension RGBColor: ExpressibleByArgument {
    public init?(argument: String) { self.init(parsing: argument) }
    public var defaultValueDescription: String { description }
}

/// A size in bytes written the way people type it: `512M`, `2G`, `64k`, `1048576`.
struct ByteCount: ExpressibleByArgument, Hashable, Sendable {
    var bytes: Int

    init(bytes: Int) { self.bytes = bytes }

    init?(argument: String) {
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
        bytes = Int(value * Double(multiplier))
    }
}

import Foundation
