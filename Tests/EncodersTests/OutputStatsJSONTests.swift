import Foundation
import GifxTimeline
@testable import GifxEncoders
import Testing

/// `--stats`' object of each output kind: the figures every output has (`OutputStats`) and the kind's own
/// (`OutputKindStats`, declared in its folder) in one JSON object, whose field names are a contract (`--stats`,
/// batch's report). Each expected text is written out by hand, keys sorted as `--stats` prints them.
@Suite struct OutputStatsJSONTests {
    private func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// `text` read as batch reads a child's `--stats` output, and written again.
    private func decoded(_ text: String) throws -> OutputStats {
        try JSONDecoder().decode(OutputStats.self, from: Data(text.utf8))
    }

    private static let apng = #"{"bytes":0,"frames":12,"height":64,"kind":"apng","paths":["/out/a.apng"],"width":96}"#
    private static let pngPoster = #"{"bytes":0,"frames":1,"height":64,"kind":"poster","paths":["/out/a.png"],"width":96}"#
    private static let jpegPoster =
        #"{"bytes":0,"frames":1,"height":64,"kind":"jpeg-poster","paths":["/out/a.jpg"],"width":96}"#
    private static let timeline = #"{"bytes":0,"kind":"timeline","paths":["/out/a.timeline.json"]}"#
    private static let webp = #"{"bytes":0,"frames":12,"height":64,"kind":"webp","paths":["/out/a.webp"],"#
        + #""targetSize":{"attempts":[{"bytes":1400,"webpQuality":75},{"bytes":900,"webpQuality":60}],"#
        + #""bestQualityFitsBelow":false,"bytes":900,"encodes":2,"kept":{"bytes":900,"webpQuality":60},"target":1000},"#
        + #""webpSettings":{"loopCount":0,"lossless":false,"quality":75},"width":96}"#
    private static let sheet = #"{"bytes":0,"cellSize":"96x64","cells":12,"cellsSaved":2,"columns":3,"frames":12,"#
        + #""height":256,"indexed":true,"kind":"sheet","pageSizes":["288x256"],"pages":1,"#
        + #""paths":["/out/s.png","/out/s.json"],"pixelFormat":"indexed","rowBufferBytes":18432,"width":288}"#
    /// What `--stats` printed for Examples/bouncing-ball.gif's MP4 at 0aed1c9 (the budget rounded).
    private static let mp4 = #"{"alpha":false,"bytes":5896,"codec":"h264","durationSeconds":2.2,"#
        + #""encoder":{"budgetBytes":1073741824,"crf":23,"encoder":"libx264","estimatedBytes":7757824,"lowMemory":false,"#
        + #""options":[{"name":"preset","value":"medium"},{"name":"crf","value":"23"},"#
        + #"{"name":"x264-params","value":"bframes=0:ref=1"}],"params":"bframes=0:ref=1","preset":"medium","#
        + #""reason":"fastest settings within 1024 MiB budget","#
        + #""setting":"x264 preset medium, no B-frames, 1 reference (repeat pictures)","threads":0},"#
        + #""fps":"100","frames":220,"height":64,"keyframes":{"maxPictures":250,"times":[0]},"kind":"mp4","loops":1,"#
        + #""mp4Layout":"faststart","paths":["/out/a.mp4"],"#
        + #""pictures":{"encoded":12,"encodedBytes":2258,"repeatBytes":1872,"repeats":208},"#
        + #""timing":{"gifFramesNeverShown":0,"h264Level":"1.1","mode":"tick","outputFramesPerPlay":220,"peakRate":"100","#
        + #""rate":"100","reason":"tick 1 cs: every delay exact","worstStartErrorMs":0},"width":96}"#

    @Test func eachKindsResultGivesItsFigures() throws {
        let apng = APNGResult(
            target: "/out/a.apng", frames: 12, framesWritten: 11, loopCount: 0, paletteEntries: 5, width: 96, height: 64)
        #expect(try json(apng.stats) == Self.apng)
        let png = PosterResult(target: "/out/a.png", format: .png, frame: 0, width: 96, height: 64)
        #expect(try json(png.stats) == Self.pngPoster)
        let jpeg = PosterResult(target: "/out/a.jpg", format: .jpeg(JPEGOptions()), frame: 0, width: 96, height: 64)
        #expect(try json(jpeg.stats) == Self.jpegPoster)
        #expect(try json(TimelineJSONResult(path: "/out/a.timeline.json").stats) == Self.timeline)
        let webp = WebPResult(
            target: "/out/a.webp", frames: 12, lossless: false, quality: 75, loopCount: 0, width: 96, height: 64,
            targetSize: TargetSizeReport(
                target: 1000, bytes: 900, kept: TargetSizeEncode(webpQuality: 60, bytes: 900),
                attempts: [TargetSizeEncode(webpQuality: 75, bytes: 1400), TargetSizeEncode(webpQuality: 60, bytes: 900)],
                encodes: 2, bestQualityFitsBelow: false))
        #expect(try json(webp.stats) == Self.webp)
        let sheet = SpriteResult(
            pagePaths: ["/out/s.png"], jsonPath: "/out/s.json", pageSizes: [CanvasSize(width: 288, height: 256)], frames: 12,
            cells: 12, cellsSaved: 2, cellSize: CanvasSize(width: 96, height: 64), columns: 3, pixelFormat: "indexed",
            documentPaths: [], peakCacheBytes: 0, rowBufferBytes: 18432, warnings: [])
        #expect(try json(sheet.stats) == Self.sheet)
    }

    /// Batch decodes each output by its `kind` into the kind's own figures, and writes the same object again.
    @Test func eachKindReadsBackItsOwnFigures() throws {
        let texts: [(String, (any OutputKindStats.Type)?)] = [
            (Self.mp4, VideoStats.self), (Self.webp, WebPStats.self), (Self.apng, nil), (Self.pngPoster, nil),
            (Self.jpegPoster, nil), (Self.timeline, nil), (Self.sheet, SheetStats.self),
        ]
        for (text, type) in texts {
            let stats = try decoded(text)
            #expect(try json(stats) == text)
            #expect(stats.figures.map { ObjectIdentifier(Swift.type(of: $0)) } == type.map(ObjectIdentifier.init), "\(stats.kind)")
        }
        // Every kind is one of those, or a video like the MP4.
        let videos = [OutputKind.webm, .avif]
        for kind in videos { #expect(kind.stats.map(ObjectIdentifier.init) == ObjectIdentifier(VideoStats.self)) }
        let named = Set(try texts.map { try decoded($0.0).kind } + videos.map(\.statsName))
        #expect(named == Set(OutputKind.all.map(\.statsName)), "\(OutputKind.all.map(\.statsName))")
    }

    /// `to-mp4`'s and `to-sprite`'s top level repeats the one output's figures, a video's but its codec and alpha.
    @Test func theTopLevelLeavesOutWhatTheKindSays() throws {
        let video = try #require(try decoded(Self.mp4).figures?.topLevel)
        let text = try json(video)
        #expect(!text.contains(#""codec""#) && !text.contains(#""alpha""#))
        #expect(text.hasPrefix(#"{"encoder":{"budgetBytes":1073741824,"#) && text.contains(#","fps":"100","#))
        let webp = try #require(try decoded(Self.webp).figures?.topLevel)
        #expect(try json(webp) == #"{"targetSize":{"attempts":[{"bytes":1400,"webpQuality":75},{"bytes":900,"webpQuality":60}],"#
            + #""bestQualityFitsBelow":false,"bytes":900,"encodes":2,"kept":{"bytes":900,"webpQuality":60},"target":1000}}"#)
        let sheet = try #require(try decoded(Self.sheet).figures?.topLevel)
        #expect(try json(sheet) == #"{"cellSize":"96x64","cells":12,"cellsSaved":2,"columns":3,"indexed":true,"#
            + #""pageSizes":["288x256"],"pages":1,"pixelFormat":"indexed","rowBufferBytes":18432}"#)
    }

    /// A video's reason for its rate is facts (`VideoRateChoice`) until whoever prints the figures words them: the
    /// command line names its flags, which the library does not. The facts are not written; a report read back keeps
    /// its words.
    @Test func aVideosRateReasonIsWordedByWhoeverPrintsIt() throws {
        struct Bracketed: StatsWording {
            func rateReason(_ choice: VideoRateChoice) -> String {
                if case .plan(let reason) = choice { "[\(reason)]" } else { "level" }
            }
        }
        var video = try #require(try decoded(Self.mp4).figures as? VideoStats)
        #expect(video.worded(Bracketed()).timing?.reason == "tick 1 cs: every delay exact")
        video.timing?.rateChoice = .plan(.requestedRate(Rational(30)))
        let worded = video.worded(Bracketed())
        #expect(worded.timing?.reason == "[requested rate 30]")
        #expect(try json(worded).contains(#""reason":"[requested rate 30]""#) && !(try json(worded).contains("rateChoice")))
    }
}
