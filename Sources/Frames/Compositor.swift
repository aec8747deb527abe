import GifxTimeline

/// The screen a browser keeps between frames: draws decoded rows through a palette lookup table and
/// applies disposal exactly like browsers do. Restore-to-background clears to transparent; restore-previous
/// puts back what the frame's area held before the frame was drawn (a blank canvas for a first frame).
/// Pixels are RGBA8 straight alpha, held as `UInt32` in memory order R, G, B, A; never-drawn pixels are 0.
final class Compositor {
    let width: Int
    let height: Int
    /// The current screen.
    private let screen: UnsafeMutablePointer<UInt32>
    /// What a restore-previous frame's area held before it was drawn (allocated on first need).
    private var saved: UnsafeMutablePointer<UInt32>?
    /// Palette index → pixel; 0 means "leave the pixel alone" (transparent index or beyond the palette).
    private let lookup: UnsafeMutablePointer<UInt32>
    private var paletteCount = 0
    private var transparentIndex = -1
    /// The frame drawn last, whose disposal runs before the next frame is drawn.
    private var pendingDisposal: (disposal: Disposal, area: PixelRect)?
    /// Set when a row used a colour index beyond the palette (and not the transparent index).
    private(set) var sawOutOfRangeIndex = false

    init(width: Int, height: Int) {
        self.width = width; self.height = height
        screen = .allocate(capacity: width * height)
        screen.initialize(repeating: 0, count: width * height)
        lookup = .allocate(capacity: 256)
        lookup.initialize(repeating: 0, count: 256)
    }

    deinit {
        screen.deallocate()
        saved?.deallocate()
        lookup.deallocate()
    }

    /// The part of `rect` on the canvas (zero-sized when wholly outside).
    func clip(_ rect: PixelRect) -> PixelRect {
        GifxFrames.clip(rect, to: CanvasSize(width: width, height: height))
    }

    /// Runs the previous frame's disposal, saves what restore-previous will need, and installs `palette`.
    func beginFrame(area: PixelRect, disposal: Disposal, palette: ColorTable?, transparentIndex: Int?) {
        if let pending = pendingDisposal { dispose(pending.disposal, area: pending.area) }
        pendingDisposal = (disposal, area)
        if disposal == .previous { copyArea(area, from: screen, to: savedBuffer()) }
        sawOutOfRangeIndex = false
        self.transparentIndex = transparentIndex ?? -1
        let rgb = palette?.rgb ?? []
        paletteCount = rgb.count / 3
        for index in 0..<256 {
            if index < paletteCount && index != self.transparentIndex {
                let value = UInt32(rgb[3 * index]) | UInt32(rgb[3 * index + 1]) << 8
                    | UInt32(rgb[3 * index + 2]) << 16 | 0xFF00_0000
                lookup[index] = UInt32(littleEndian: value)
            } else {
                lookup[index] = 0
            }
        }
    }

    /// Draws one decoded row of the frame at canvas row `y`, the row's first index being at canvas column
    /// `left`; only the part on the canvas is touched.
    func drawRow(_ indices: UnsafePointer<UInt8>, count: Int, left: Int, y: Int) {
        guard y >= 0 && y < height else { return }
        let x0 = Swift.max(0, left), x1 = Swift.min(width, left + count)
        guard x0 < x1 else { return }
        let destination = screen + (y * width + x0)
        let source = indices + (x0 - left)
        let lookup = self.lookup
        let count = x1 - x0
        // Largest index in the row (a vectorized max): when it is inside the palette no pixel can be out of
        // range, so the row needs no per-pixel range test and, without a transparent index, no test at all.
        // A 256-entry palette covers every index, so the scan is skipped.
        var inRange = paletteCount >= 256
        if !inRange {
            var largest: UInt8 = 0
            for k in 0..<count { largest = Swift.max(largest, source[k]) }
            inRange = Int(largest) < paletteCount
        }
        if inRange {
            if transparentIndex < 0 {
                for k in 0..<count { destination[k] = lookup[Int(source[k])] }
            } else {
                drawSkippingTransparent(source, count: count, to: destination)
            }
            return
        }
        var outOfRange = false
        for k in 0..<count {
            let index = source[k]
            let pixel = lookup[Int(index)]
            if pixel != 0 {
                destination[k] = pixel
            } else if Int(index) >= paletteCount && Int(index) != transparentIndex {
                outOfRange = true
            }
        }
        if outOfRange { sawOutOfRangeIndex = true }
    }

    /// Draws a row whose indices are all in the palette, leaving the transparent index's pixels alone.
    /// Eight indices at a time: a block of only transparent pixels (common: encoders mark unchanged
    /// pixels transparent) is skipped, a block without any is drawn without tests, and only mixed blocks
    /// test each pixel, so long transparent or opaque stretches cost no branch per pixel.
    private func drawSkippingTransparent(
        _ source: UnsafePointer<UInt8>, count: Int, to destination: UnsafeMutablePointer<UInt32>
    ) {
        let lookup = self.lookup
        let ones: UInt64 = 0x0101_0101_0101_0101
        let pattern = UInt64(UInt8(truncatingIfNeeded: transparentIndex)) &* ones
        var k = 0
        while k &+ 8 <= count {
            let difference = UnsafeRawPointer(source + k).loadUnaligned(as: UInt64.self) ^ pattern
            if difference != 0 {
                // A zero byte of `difference` is a transparent pixel (the classic has-zero-byte test).
                if (difference &- ones) & ~difference & (ones &<< 7) == 0 {
                    for j in k..<(k &+ 8) { destination[j] = lookup[Int(source[j])] }
                } else {
                    for j in k..<(k &+ 8) {
                        let pixel = lookup[Int(source[j])]
                        if pixel != 0 { destination[j] = pixel }
                    }
                }
            }
            k &+= 8
        }
        while k < count {
            let pixel = lookup[Int(source[k])]
            if pixel != 0 { destination[k] = pixel }
            k &+= 1
        }
    }

    /// Copies the screen (the canvas while the current frame is displayed) to `destination`.
    func copyScreen(to destination: UnsafeMutableRawPointer) {
        destination.copyMemory(from: screen, byteCount: width * height * 4)
    }

    private func dispose(_ disposal: Disposal, area: PixelRect) {
        switch disposal {
        case .none, .keep:
            break
        case .background:
            for y in area.y..<(area.y + area.height) {
                (screen + (y * width + area.x)).update(repeating: 0, count: area.width)
            }
        case .previous:
            copyArea(area, from: savedBuffer(), to: screen)
        }
    }

    private func copyArea(_ area: PixelRect, from source: UnsafeMutablePointer<UInt32>, to destination: UnsafeMutablePointer<UInt32>) {
        for y in area.y..<(area.y + area.height) {
            let offset = y * width + area.x
            (destination + offset).update(from: source + offset, count: area.width)
        }
    }

    private func savedBuffer() -> UnsafeMutablePointer<UInt32> {
        if let saved { return saved }
        let buffer = UnsafeMutablePointer<UInt32>.allocate(capacity: width * height)
        buffer.initialize(repeating: 0, count: width * height)
        saved = buffer
        return buffer
    }
}
