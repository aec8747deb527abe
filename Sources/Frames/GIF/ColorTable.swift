internal import CGif

/// A GIF colour table copied out of giflib: `count` RGB triples.
package struct ColorTable: Hashable, Sendable {
    /// Red, green, blue bytes of each entry in order.
    package var rgb: [UInt8]
    package var count: Int { rgb.count / 3 }

    package init(rgb: [UInt8]) { self.rgb = rgb }

    init(_ map: UnsafeMutablePointer<ColorMapObject>) {
        let count = Int(max(0, map.pointee.ColorCount))
        var rgb = [UInt8](repeating: 0, count: count * 3)
        if let colors = map.pointee.Colors {
            for i in 0..<count {
                rgb[3 * i] = colors[i].Red
                rgb[3 * i + 1] = colors[i].Green
                rgb[3 * i + 2] = colors[i].Blue
            }
        }
        self.rgb = rgb
    }
}
