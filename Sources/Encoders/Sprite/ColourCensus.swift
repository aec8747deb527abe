import Foundation

/// Counts the distinct RGBA values of a sheet's pixels (up to 256) and whether all of them are opaque, in
/// the pre-pass, so the PNG colour type is chosen from the pixels themselves rather than from the GIF's
/// palettes (which may list colours no frame shows, or be absent after scaling).
///
/// Every pixel whose alpha is 0 counts as the one transparent value 0 (its RGB is invisible). Memory is
/// fixed: a 512-slot table for the first 257 colours, then, only while every pixel is opaque, a 2 MiB
/// bitmap of the RGB values seen, from which an unused colour can serve as the RGB sheet's tRNS key.
package final class ColourCensus {
    /// Most colours an indexed PNG holds.
    package static let paletteLimit = 256
    private static let slots = 512
    private var keys: UnsafeMutablePointer<UInt32>
    private var used: UnsafeMutablePointer<Bool>
    private var order: [UInt32] = []
    private var rgbSeen: UnsafeMutablePointer<UInt64>?
    private var last: UInt32?
    /// More than `paletteLimit` distinct values were seen.
    package private(set) var overflowed = false
    /// No pixel so far had alpha < 255.
    package private(set) var allOpaque = true

    package init() {
        keys = .allocate(capacity: Self.slots)
        keys.initialize(repeating: 0, count: Self.slots)
        used = .allocate(capacity: Self.slots)
        used.initialize(repeating: false, count: Self.slots)
    }

    deinit {
        keys.deallocate()
        used.deallocate()
        rgbSeen?.deallocate()
    }

    /// The distinct values in first-seen order (alpha-0 pixels as 0); meaningful only when not `overflowed`.
    package var colours: [UInt32] { order }

    /// Nothing more can change the outcome: too many colours and some not opaque.
    package var isSettled: Bool { overflowed && !allOpaque }

    /// Adds `count` RGBA pixels (as the canvas holds them: R in the low byte), rows `stride` bytes apart.
    package func add(_ pixels: UnsafeRawPointer, width: Int, height: Int, stride: Int) {
        for y in 0..<height {
            if isSettled { return }
            let row = (pixels + y * stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<width { addPixel(row[x]) }
        }
    }

    @inline(__always)
    private func addPixel(_ raw: UInt32) {
        let pixel = UInt32(littleEndian: raw)
        let alpha = pixel >> 24
        let value = alpha == 0 ? 0 : pixel
        if value == last { return }
        last = value
        if alpha != 255 {
            allOpaque = false
            rgbSeen?.deallocate()
            rgbSeen = nil
        }
        if !overflowed {
            insert(value)
        } else if let rgbSeen {
            let rgb = Int(value & 0xFF_FFFF)
            rgbSeen[rgb >> 6] |= 1 << UInt64(rgb & 63)
        }
    }

    private func insert(_ value: UInt32) {
        var slot = Int((value &* 0x9E37_79B1) >> 23)
        while used[slot] {
            if keys[slot] == value { return }
            slot = (slot + 1) & (Self.slots - 1)
        }
        used[slot] = true
        keys[slot] = value
        order.append(value)
        if order.count > Self.paletteLimit {
            overflowed = true
            if allOpaque {
                let bitmap = UnsafeMutablePointer<UInt64>.allocate(capacity: (1 << 24) / 64)
                bitmap.initialize(repeating: 0, count: (1 << 24) / 64)
                for colour in order {
                    let rgb = Int(colour & 0xFF_FFFF)
                    bitmap[rgb >> 6] |= 1 << UInt64(rgb & 63)
                }
                rgbSeen = bitmap
            }
            order = []
        }
    }

    /// An opaque RGB value no pixel used (black first), for an RGB sheet's transparent key; `nil` when
    /// some pixel was not opaque or every one of the 2^24 colours occurs.
    package func unusedRGB() -> UInt32? {
        guard allOpaque else { return nil }
        guard let rgbSeen else {
            let seen = Set(order.map { $0 & 0xFF_FFFF })
            return (0..<UInt32(1 << 24)).first { !seen.contains($0) }.map { $0 | 0xFF00_0000 }
        }
        for word in 0..<((1 << 24) / 64) where rgbSeen[word] != UInt64.max {
            let bit = (~rgbSeen[word]).trailingZeroBitCount
            return UInt32(word * 64 + bit) | 0xFF00_0000
        }
        return nil
    }
}
