import Frames
import Timeline

/// Whether a GIF ever shows a transparent pixel, decided without decoding it all: a WebM keeps an alpha
/// plane only when it can matter.
enum Transparency {
    /// True when the first canvas has a pixel that is not opaque, or when a later canvas can get one:
    /// a frame disposed to the background (cleared to transparent, as browsers do) before another is drawn,
    /// or the first frame disposed to "previous" (the empty canvas). Otherwise every later canvas is the
    /// opaque first one with opaque pixels drawn over it (a transparent index keeps what is below), so
    /// the whole animation is opaque. Conservative for background disposal whose area is redrawn.
    static func mayShow(firstCanvas canvas: Canvas, frames: FrameDescriptorList) -> Bool {
        if let base = canvas.pixels.baseAddress {
            let pixels = base.assumingMemoryBound(to: UInt32.self)
            if !YUVConverter.isOpaque(pixels, count: canvas.width * canvas.height) { return true }
        }
        guard frames.count > 1 else { return false }
        if frames[0].disposal == .previous { return true }
        return frames.dropLast().contains { $0.disposal == .background }
    }
}
