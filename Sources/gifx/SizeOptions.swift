import ArgumentParser
import GifxKit

/// Output frame size: at most one of `--width`, `--height`, `--scale`; the aspect ratio is kept.
struct SizeOptions: ParsableArguments {
    @Option(help: "Output width in pixels (height follows the aspect ratio).") var width: Int?
    @Option(help: "Output height in pixels (width follows the aspect ratio).") var height: Int?
    @Option(help: "Scale factor, e.g. 0.5 or 2.") var scale: Double?

    func validate() throws {
        if [width != nil, height != nil, scale != nil].filter({ $0 }).count > 1 {
            throw ValidationError("give only one of --width, --height, --scale")
        }
        if let width, let problem = SizeRequest.width(width).problem { throw ValidationError("--width \(problem)") }
        if let height, let problem = SizeRequest.height(height).problem { throw ValidationError("--height \(problem)") }
        if let scale, let problem = SizeRequest.scale(scale).problem { throw ValidationError("--scale \(problem)") }
    }

    var request: SizeRequest {
        if let width { return .width(width) }
        if let height { return .height(height) }
        if let scale { return .scale(scale) }
        return .original
    }
}
