import ArgumentParser
import Foundation
import GifxKit

/// A size in bytes written the way people type it: `512M`, `2G`, `64k`, `1048576`.
struct ByteCount: ExpressibleByArgument, CustomStringConvertible, Hashable, Sendable {
    var bytes: Int

    init(bytes: Int) { self.bytes = bytes }

    init?(argument: String) {
        guard let bytes = SettingText.byteCount(argument) else { return nil }
        self.bytes = bytes
    }

    /// The size as it would be typed, in the largest unit that divides it: `1G`, `64M`, `1536K`, `1000`. It
    /// reads back as the same size.
    var description: String {
        for (suffix, shift) in [("T", 40), ("G", 30), ("M", 20), ("K", 10)] where bytes > 0 && bytes % (1 << shift) == 0 {
            return "\(bytes >> shift)\(suffix)"
        }
        return "\(bytes)"
    }

    /// `--help`'s `(default: 1G)`, not the struct's fields.
    var defaultValueDescription: String { description }
}
