import Foundation
import GifFixtures
import Testing

/// `gifx verify --report`: the page parses (html5lib, strict, where installed; its SVG with XMLParser always), with one
/// start mark and one PSNR step per output frame, counted from the fixture's schedule, at the schedule's starts.
@Suite struct VerifyReportTests {
    /// A lossless WebP shows each GIF frame once: 6 start marks per play, 2 plays written as a loop count (one play in
    /// the file); an MP4 at the tick (10 cs) shows 14 frames per play.
    @Test func verifyReportMarksEveryOutputFrameStart() throws {
        let folder = try temporaryFolder()
        let input = try writeGIF(TimelinePictureTests.gif, to: folder, name: TimelinePictureTests.evilName)
        let webp = folder.appendingPathComponent("a.webp").path
        let mp4 = folder.appendingPathComponent("a.mp4").path
        let convert = try runGifx(["convert", input, "-o", webp, "-o", mp4, "--quiet"], timeout: 120)
        #expect(convert.status == 0, "\(convert.stderr)")
        let report = folder.appendingPathComponent("report.html").path
        let run = try runGifx(["verify", input, webp, mp4, "--report", report, "--quiet"], timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        let html = try String(contentsOf: URL(fileURLWithPath: report), encoding: .utf8)
        #expect(!html.contains("<script"), "the file name went in unescaped")
        if HTML5Lib.available {
            let parsed = try HTML5Lib.check(html, fragment: false)
            #expect(parsed.errors.isEmpty, "\(parsed.errors)")
        }
        let svgStart = try #require(html.range(of: "<svg"))
        let svgEnd = try #require(html.range(of: "</svg>", options: .backwards))
        let svg = Data(html[svgStart.lowerBound..<svgEnd.upperBound].utf8)
        let document = try #require(XMLElements(svg), "the report's SVG does not parse as XML")
        let tracks = document.elements.filter { $0.name == "g" && $0.classes.contains("track") }
        #expect(tracks.map { $0.attributes["data-output"] ?? "" } == [webp, mp4])
        let starts = document.elements.filter { $0.name == "line" && $0.classes.contains("start") }
        let webpStarts = starts.filter { $0.ancestorOutput == webp }
        let mp4Starts = starts.filter { $0.ancestorOutput == mp4 }
        #expect(webpStarts.count == 6)
        #expect(mp4Starts.count == 14)
        // The WebP's marks sit at the schedule's starts, in cs (the picture's unit): 0 20 30 40 70 100.
        #expect(webpStarts.compactMap { $0.attributes["x1"].flatMap(Double.init) } == [0, 20, 30, 40, 70, 100])
        // One PSNR step per output frame, too.
        #expect(document.elements.filter { $0.name == "line" && $0.classes.contains("psnr") }.count == 20)
        #expect(document.elements.filter { $0.name == "text" }.map(\.text).contains(input))
    }
}
