import ArgumentParser
import Foundation
import GifxEncoders
import GifxKit

/// A size in bytes written the way people type it: `512M`, `2G`, `64k`, `1048576`.
struct ByteCount: ExpressibleByArgument, Hashable, Sendable {
    var bytes: Int

    init(bytes: Int) { self.bytes = bytes }

    init?(argument: String) {
        guard let bytes = SettingText.byteCount(argument) else { return nil }
        self.bytes = bytes
    }
}

import Foundation
import GifxEncoders
import GifxKit
