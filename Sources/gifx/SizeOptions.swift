import ArgumentParser
import GifxEncoders

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
