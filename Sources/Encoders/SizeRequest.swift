import GifxTimeline

/// How the user asked to resize frames: a width, a height or a scale (aspect kept).
public enum SizeRequest: Hashable, Sendable {
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
