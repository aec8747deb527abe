import ArgumentParser
import Foundation

/// A size in bytes written the way people type it: `512M`, `2G`, `64k`, `1048576`.
struct ByteCount: ExpressibleByArgument, Hashable, Sendable {
    var bytes: Int

    init(bytes: Int) { self.bytes = bytes }

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).uppercased()
        let units: [(String, Int)] = [("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30), ("T", 1 << 40)]
        var digits = Substring(text.hasSuffix("IB") ? String(text.dropLast(2)) : text)
        if digits.hasSuffix("B") { digits = digits.dropLast() }
        var multiplier = 1
        if let unit = units.first(where: { digits.hasSuffix($0.0) }) {
            multiplier = unit.1
            digits = digits.dropLast()
        }
        guard let value = Double(digits), value > 0, value * Double(multiplier) < Double(Int.max / 2) else {
            return nil
        }
        bytes = Int(value * Double(multiplier))
    }
}

import Foundation
