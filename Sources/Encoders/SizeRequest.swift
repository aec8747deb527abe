import GifxTimeline

/// How the user asked to resize frames: a width, a height or a scale (aspect kept). Codable: a service's typed job
/// carries it to the process that converts.
public enum SizeRequest: Codable, Hashable, Sendable {
    case original
    case width(Int)
    case height(Int)
    case scale(Double)

    /// The frame size for a `canvas`, at least 1×1; `even` rounds each side to an even number
    /// (yuv420p needs it) instead of to the nearest integer.
    public func size(for canvas: CanvasSize, even: Bool = false) -> CanvasSize {
        let w = Double(canvas.width), h = Double(canvas.height)
        let (width, height): (Double, Double)
        switch self {
        case .original: return canvas
        case .width(let target): (width, height) = (Double(target), h * Double(target) / w)
        case .height(let target): (width, height) = (w * Double(target) / h, Double(target))
        case .scale(let factor): (width, height) = (w * factor, h * factor)
        }
        func round(_ value: Double) -> Int {
            even ? max(2, 2 * Int((value / 2).rounded())) : max(1, Int(value.rounded()))
        }
        return CanvasSize(width: round(width), height: round(height))
    }
}

extension SizeRequest {
    /// The sides a width or height may ask for, in pixels.
    package static let sides = 1...16384
    /// The largest scale factor (above 0).
    package static let largestScale = 64.0

    /// Why the request cannot be asked for, as a phrase after its name (`must be 1...16384`); `nil` when it can.
    /// The one check of every way a size is asked for (`--width`, `width=` of an output, `gifx serve`'s query).
    package var problem: String? {
        switch self {
        case .original: nil
        case .width(let pixels), .height(let pixels): Self.sides.contains(pixels) ? nil : Self.sidesProblem
        case .scale(let factor): factor > 0 && factor <= Self.largestScale ? nil : Self.scaleProblem
        }
    }

    /// A width or height out of range (or not a number).
    package static let sidesProblem = "must be \(sides.lowerBound)...\(sides.upperBound)"
    /// A scale out of range (or not a number).
    package static let scaleProblem = "must be > 0 and <= \(Int(largestScale))"
}
