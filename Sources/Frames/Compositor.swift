import GifxTimeline

/// The screen a browser keeps between frames: draws decoded rows through a palette lookup table and
/// applies disposal exactly like browsers do. Restore-to-background clears to transparent; restore-previous
/// puts back what the frame's area held before the frame was drawn (a blank canvas for a first frame).
/// Pixels are RGBA8 straight alpha, held as `UInt32` in memory order R, G, B, A; never-drawn pixels are 0.
///
/// A compositor owns the whole screen (the sequential decoder), or one horizontal band of it (`rows`): then
/// it draws, disposes and saves only the band's rows, into a screen it is pointed at per frame
/// (`target(_:continuing:)`), so that bands of one canvas are composited by different threads at once
/// without sharing anything (issue 39). Coordinates are always the canvas's.
final class Compositor {
    let width: Int
    let height: Int
    /// The canvas rows this compositor draws: `0..<height`, or its band.
    let rows: Range<Int>
    /// The current screen (the whole canvas's address, even for a band).
    private var screen: UnsafeMutablePointer<UInt32>
    /// Whether `screen` is this compositor's own allocation (not a band's borrowed canvas).
    private let ownsScreen: Bool
    /// What a restore-previous frame's area held before it was drawn, the band's rows only, the band's
    /// first row first (allocated on first need).
    private var saved: UnsafeMutablePointer<UInt32>?
    /// Palette index → pixel; 0 means "leave the pixel alone" (transparent index or beyond the palette).
    private let lookup: UnsafeMutablePointer<UInt32>
    private var paletteCount = 0
    private var transparentIndex = -1
    /// The frame drawn last (its area inside `rows`), whose disposal runs before the next frame is drawn.
    private var pendingDisposal: (disposal: Disposal, area: PixelRect)?
    /// Set when a row used a colour index beyond the palette (and not the transparent index).
    private(set) var sawOutOfRangeIndex = false

    /// A compositor with a screen of its own, all rows.
    init(width: Int, height: Int) {
        self.width = width; self.height = height
        rows = 0..<height
        screen = .allocate(capacity: width * height)
        screen.initialize(repeating: 0, count: width * height)
        ownsScreen = true
        lookup = .allocate(capacity: 256)
        lookup.initialize(repeating: 0, count: 256)
    }

    /// A compositor of the canvas rows `rows` only, drawing into the screen `target` points it at.
    init(width: Int, height: Int, band rows: Range<Int>) {
        self.width = width; self.height = height
        self.rows = rows.clamped(to: 0..<height)
        screen = Self.noScreen  // replaced by `target` before the first frame
        ownsScreen = false
        lookup = .allocate(capacity: 256)
        lookup.initialize(repeating: 0, count: 256)
    }

    /// A band's screen until `target` points it at a canvas (never written: a band draws nothing before).
    private nonisolated(unsafe) static let noScreen = UnsafeMutablePointer<UInt32>.allocate(capacity: 1)

    deinit {
        if ownsScreen { screen.deallocate() }
        saved?.deallocate()
        lookup.deallocate()
    }

    /// Points a band at the canvas `canvas` for the next frame, its rows first made to hold the previous
    /// canvas: copied from `previous` (the canvas the band drew last), left as they are when `previous` is
    /// `canvas` itself (a ring of one canvas), or blank when there is none (the first frame).
    func target(_ canvas: UnsafeMutablePointer<UInt32>, continuing previous: UnsafeMutablePointer<UInt32>?) {
        precondition(!ownsScreen, "only a band is pointed at a canvas")
        screen = canvas
        let first = rows.lowerBound * width, count = rows.count * width
        if let previous {
            if previous != canvas { (canvas + first).update(from: previous + first, count: count) }
        } else {
            (canvas + first).update(repeating: 0, count: count)
        }
    }

    /// The part of `rect` on the canvas (zero-sized when wholly outside).
    func clip(_ rect: PixelRect) -> PixelRect {
        GifxFrames.clip(rect, to: CanvasSize(width: width, height: height))
    }

    /// Runs the previous frame's disposal, saves what restore-previous will need, and installs `palette`.
    func beginFrame(area: PixelRect, disposal: Disposal, palette: ColorTable?, transparentIndex: Int?) {
        if let pending = pendingDisposal { dispose(pending.disposal, area: pending.area) }
        let area = bandPart(of: area)
        pendingDisposal = (disposal, area)
        if disposal == .previous { save(area) }
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
        guard rows.contains(y) else { return }
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
            let saved = savedBuffer()
            for y in area.y..<(area.y + area.height) {
                (screen + (y * width + area.x)).update(from: saved + savedOffset(x: area.x, y: y), count: area.width)
            }
        }
    }

    /// Saves the part of the screen restore-previous will put back.
    private func save(_ area: PixelRect) {
        let saved = savedBuffer()
        for y in area.y..<(area.y + area.height) {
            (saved + savedOffset(x: area.x, y: y)).update(from: screen + (y * width + area.x), count: area.width)
        }
    }

    /// Where canvas pixel (x, y) of the band is kept in `saved`.
    private func savedOffset(x: Int, y: Int) -> Int { (y - rows.lowerBound) * width + x }

    /// The rows of `area` inside the band (zero height when none).
    private func bandPart(of area: PixelRect) -> PixelRect {
        let top = Swift.max(area.y, rows.lowerBound), bottom = Swift.min(area.y + area.height, rows.upperBound)
        return PixelRect(x: area.x, y: Swift.min(top, rows.upperBound), width: area.width, height: Swift.max(0, bottom - top))
    }

    private func savedBuffer() -> UnsafeMutablePointer<UInt32> {
        if let saved { return saved }
        let count = width * rows.count
        let buffer = UnsafeMutablePointer<UInt32>.allocate(capacity: Swift.max(1, count))
        buffer.initialize(repeating: 0, count: Swift.max(1, count))
        saved = buffer
        return buffer
    }
}
