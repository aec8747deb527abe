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
        for word in ["GIF", "WebP", "PNG", "MP4", "WebM", "AVIF", "gifx serve"] {
            #expect(help.contains(word), "root help lacks \(word): \(help)")
        }
        // Generated from the registries (issue 58): every input format and output kind `gifx formats --json`
        // lists is named, APNG output among them (the hand-written text had omitted it).
        let formats = try runGifx(["formats", "--json"])
        let registry = try #require(try JSONSerialization.jsonObject(with: formats.stdout) as? [String: Any])
        let outputs = (registry["outputs"] as? [[String: Any]] ?? []).compactMap { $0["displayName"] as? String }
        let inputs = (registry["inputs"] as? [[String: Any]] ?? []).compactMap { $0["displayName"] as? String }
        #expect(outputs.contains("APNG") && outputs.count >= 9 && inputs.count >= 3, "\(registry)")
        for name in outputs + inputs {
            #expect(help.contains(name), "root help lacks \(name): \(help)")
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
