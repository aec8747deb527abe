import GifxFrames
import GifxTimeline

/// Whether a GIF ever shows a transparent pixel, decided without decoding it all: a WebM keeps an alpha
/// plane only when it can matter.
package enum Transparency {
    /// True when the first canvas has a pixel that is not opaque, or when a later canvas can get one:
    /// the first frame disposed to "previous" (the empty canvas), or a frame disposed to the background
    /// (cleared to transparent, as browsers do) whose area the next frame does not surely repaint. Otherwise
    /// every later canvas is the opaque first one with opaque pixels drawn over it (a transparent index keeps
    /// what is below), so the whole animation is opaque.
    ///
    /// "Surely repaints": the next frame covers the cleared rect, has no transparent index, and its palette
    /// has 256 entries, so no index can fall outside it (an index beyond the palette leaves the pixel alone,
    /// as browsers do). Full-canvas frames disposed to the background, as some exporters write every frame,
    /// are opaque by this rule.
    package static func mayShow(firstCanvas canvas: Canvas, metadata: AnimationMetadata) -> Bool {
        mayShow(firstCanvasIsOpaque: isOpaque(canvas), metadata: metadata)
    }

    /// Whether every pixel of `canvas` is opaque.
    package static func isOpaque(_ canvas: Canvas) -> Bool {
        guard let base = canvas.pixels.baseAddress else { return true }
        return isOpaque(base.assumingMemoryBound(to: UInt32.self), count: canvas.width * canvas.height)
    }

    /// Whether every pixel of `count` has alpha 255 (a branch-free AND over the run, which vectorizes). Inlinable:
    /// `YUVConverter` asks it of every slice of rows it converts, from the module above.
    @inlinable @inline(__always)
    package static func isOpaque(_ pixels: UnsafePointer<UInt32>, count: Int) -> Bool {
        var all: UInt32 = 0xFFFF_FFFF
        for x in 0..<count { all &= pixels[x] }
        return UInt32(littleEndian: all) >> 24 == 0xFF
    }

    /// The same rule, told whether the earliest canvas shown is opaque (an edit that shows a later frame
    /// first learns it while spooling: `EditedCanvases.earliestCanvasIsOpaque`). A crop keeps the rule: the
    /// crop of an opaque canvas is opaque, and so is the crop of every later one.
    package static func mayShow(firstCanvasIsOpaque: Bool, metadata: AnimationMetadata) -> Bool {
        if !firstCanvasIsOpaque { return true }
        let images = metadata.images
        guard images.count > 1 else { return false }
        if images[0].descriptor.disposal == .previous { return true }
        for index in 0..<(images.count - 1) where images[index].descriptor.disposal == .background {
            if !surelyRepaints(images[index + 1], area: images[index].descriptor.rect, metadata: metadata) {
                return true
            }
        }
        return false
    }

    /// Whether `image` draws an opaque pixel over every pixel of `area` (clipped to the canvas).
    static func surelyRepaints(_ image: GifImageInfo, area: PixelRect, metadata: AnimationMetadata) -> Bool {
        let frame = image.descriptor
        guard frame.transparentIndex == nil, (image.localPaletteSize ?? metadata.globalPaletteSize) == 256 else {
            return false
        }
        let canvas = metadata.canvas
        let left = max(0, area.x), top = max(0, area.y)
        let right = min(canvas.width, area.x + area.width), bottom = min(canvas.height, area.y + area.height)
        guard left < right, top < bottom else { return true }  // nothing of the area is on the canvas
        return frame.rect.x <= left && frame.rect.y <= top
            && frame.rect.x + frame.rect.width >= right && frame.rect.y + frame.rect.height >= bottom
    }
}
