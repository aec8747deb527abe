import Foundation
@testable import GifxEncoders
import Testing

/// The registry of output kinds (issue 49): one descriptor per kind, and every list and refusal read from it. The
/// expected names and texts are written out by hand from the kinds' declared settings.
@Suite struct OutputKindRegistryTests {
    @Test func namesPrefixesAndEndingsAreEachOneKinds() {
        let names = OutputKind.all.map(\.name)
        #expect(names == ["mp4", "webm", "avif", "webp", "apng", "png", "jpg", "timeline", "sheet"])
        let prefixes = OutputKind.all.flatMap(\.prefixNames)
        #expect(Set(prefixes).count == prefixes.count, "\(prefixes)")
        let endings = OutputKind.all.flatMap(\.extensions)
        #expect(Set(endings).count == endings.count, "\(endings)")
        #expect(OutputKind.served.map(\.name) == ["mp4", "webm", "avif", "webp", "apng", "jpg", "timeline", "sheet"])
        #expect(OutputKind.served.filter(\.streams).map(\.name) == ["mp4", "webm"])
    }

    @Test func aPathNamesTheKindOfItsLongestEnding() {
        #expect(OutputKind.forPath("out/a.timeline.json")?.name == "timeline")
        #expect(OutputKind.forPath("a.JSON")?.name == "sheet")
        #expect(OutputKind.forPath("a.tres")?.name == "sheet")
        #expect(OutputKind.forPath("still.JPEG")?.name == "jpg")
        #expect(OutputKind.forPath("clip.webm")?.name == "webm")
        #expect(OutputKind.forPath("sticker.apng")?.name == "apng")
        #expect(OutputKind.forPath("in.gif") == nil)
        #expect(OutputKind.forPath("mp4") == nil)
    }

    @Test func prefixesAndFormatNames() {
        #expect(OutputKind.named(prefix: "JPEG")?.name == "jpg")
        #expect(OutputKind.named(prefix: "json")?.name == "timeline")
        #expect(OutputKind.named(prefix: "sheet") == nil, "the sheet is --sheet's, never an -o prefix")
        #expect(OutputKind.named("timeline.json")?.name == "timeline")
        #expect(OutputKind.named("sheet")?.name == "sheet")
        #expect(OutputKind.named("gif") == nil)
        #expect(OutputKind.prefixList == "mp4, webm, avif, webp, apng, png, jpg, timeline")
    }

    /// One refusal, two wordings: the command line names kinds by ending (or option), the service by format name.
    @Test func aRefusalIsWordedFromTheTableForEachAsker() throws {
        func refusal(_ kind: OutputKind, _ settings: [(String, String)]) throws -> OutputRuleError? {
            var own = OutputSettings()
            for (key, value) in settings { try own.set(key, value, in: "test") }
            do {
                _ = try kind.request(OutputBuild(target: .file("/nonexistent/x"), own: own, defaults: OutputDefaults()))
                return nil
            } catch {
                return error
            }
        }
        let crf = try #require(try refusal(.webp, [("crf", "30")]))
        #expect(crf.wording(.commandLine) == "crf= is for .mp4, .webm and .avif")
        #expect(crf.wording(.query) == "crf= is for mp4, webm and avif")
        let quality = try #require(try refusal(.mp4, [("quality", "50")]))
        #expect(quality.wording(.commandLine) == "quality= is for .webp and .jpg; use crf=")
        #expect(quality.wording(.query) == "quality= is for webp and jpg; use crf=")
        let lossless = try #require(try refusal(.pngPoster, [("quality", "50")]))
        #expect(lossless.wording(.commandLine) == "a PNG poster is lossless; quality= is for .webp and .jpg")
        let size = try #require(try refusal(.jpegPoster, [("height", "10")]))
        #expect(size.wording(.commandLine)
            == "a poster is written at the GIF's size; width/height/scale are for .mp4, .webm, .avif and .webp")
        #expect(size.wording(.query)
            == "a poster is written at the GIF's size; width/height/scale are for mp4, webm, avif, webp and sheet")
        let sheet = try #require(try refusal(.sheet, [("quality", "90")]))
        #expect(sheet.wording(.query) == "a sprite sheet is lossless; quality= is for webp and jpg")
        let timeline = try #require(try refusal(.timelineJSON, [("width", "10")]))
        #expect(timeline.wording(.query) == "the timeline JSON takes no settings")
        let jpeg = try #require(try refusal(.jpegPoster, [("quality", "0")]))
        #expect(jpeg.wording(.query) == "quality must be 1...100 for a JPEG")
        let crfRange = try #require(try refusal(.mp4, [("crf", "99")]))
        #expect(crfRange.wording(.query).contains("crf"), "\(crfRange.wording(.query))")
        #expect(try refusal(.webp, [("quality", "80"), ("width", "32")]) == nil)
        #expect(try refusal(.avif, [("max-fps", "30")]) == nil, "an AVIF with a cap of its own is at the tick, capped")
    }
}
