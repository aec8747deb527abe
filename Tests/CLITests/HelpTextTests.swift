import Foundation
import Testing

/// The front door (issue 49): the root help names what gifx reads and writes and the service, and size
/// options print their defaults as sizes a user would type (`1G`, `64M`: 1 << 30 and 64 << 20 bytes, the
/// declared defaults), not as the Swift value (`ByteCount(bytes: 1073741824)`).
struct HelpTextTests {
    @Test func rootHelpNamesInputsOutputsAndTheService() throws {
        let run = try runGifx(["--help"])
        #expect(run.status == 0, "\(run.stderr)")
        // Lines wrapped at the terminal's width: words compared with single spaces between them.
        let help = String(decoding: run.stdout, as: UTF8.self).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for word in ["GIF", "WebP", "APNG", "MP4", "WebM", "AVIF", "sprite sheets", "posters", "timeline JSON", "gifx serve"] {
            #expect(help.contains(word), "root help lacks \(word): \(help)")
        }
    }

    @Test func serveHelpPrintsSizeDefaultsAsSizes() throws {
        let run = try runGifx(["serve", "--help"])
        #expect(run.status == 0, "\(run.stderr)")
        let help = String(decoding: run.stdout, as: UTF8.self)
        #expect(help.contains("(default: 1G)"), "\(help)")
        #expect(help.contains("(default: 64M)"), "\(help)")
        #expect(!help.contains("ByteCount"), "\(help)")
    }
}
