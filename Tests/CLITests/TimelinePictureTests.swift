import ChildProcesses
import Foundation
import GifFixtures
import Testing

/// `gifx timeline --svg`: the SVG parses as XML (Foundation's XMLParser), has one bar per frame whose widths are in the
/// ratio of the delays written into the fixture (resolved by hand from docs/timeline.md's rules, never by gifx), names
/// each bar's rule, draws the tick grid and the loop count, and escapes a file name made of markup.
@Suite struct TimelinePictureTests {
    /// Raw delays 20, 0, 1, 30, (no GCE), 40 cs and loop count 2: resolved (flanimated) 20, 10, 10, 30, 30, 40; rules
    /// raw, rounded-up, rounded-up, raw, carried, raw; tick 10 cs; one play 140 cs; 2 plays.
    static let gif = FixtureGIF.solidFrames(
        width: 24, height: 16, colorIndices: [1, 2, 3, 4, 5, 6], delays: [20, 0, 1, 30, nil, 40], loopCounts: [2])
    static let resolved = [20, 10, 10, 30, 30, 40]
    static let rules = ["raw", "rounded-up", "rounded-up", "raw", "carried", "raw"]
    /// A name a careless writer would turn into markup.
    static let evilName = "a<script>alert(\"x\")</script>&'.gif".replacingOccurrences(of: "/", with: "|")

    @Test func svgHasOneBarPerFrameAsWideAsItsDelay() throws {
        let folder = try temporaryFolder()
        let input = try writeGIF(Self.gif, to: folder, name: Self.evilName)
        let svgPath = folder.appendingPathComponent("t.svg").path
        let run = try runGifx(["timeline", input, "--svg", svgPath])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.isEmpty, "the table is not printed with --svg")
        let data = try Data(contentsOf: URL(fileURLWithPath: svgPath))
        let text = String(decoding: data, as: UTF8.self)
        #expect(!text.contains("<script"), "the file name went in unescaped")
        let document = try #require(XMLElements(data), "the SVG does not parse as XML")
        let bars = document.elements.filter { $0.name == "rect" && $0.classes.contains("frame") }
        #expect(bars.count == Self.resolved.count)
        let widths = bars.compactMap { $0.attributes["width"].flatMap { Double($0) } }
        try #require(widths.count == Self.resolved.count)
        for (width, delay) in zip(widths, Self.resolved) {
            // Proportional: width / delay is the same for every bar, exactly.
            #expect(width * Double(Self.resolved[0]) == widths[0] * Double(delay), "\(widths) against \(Self.resolved)")
        }
        // Bars abut: each starts where the one before ends.
        let xs = bars.compactMap { $0.attributes["x"].flatMap { Double($0) } }
        for index in 1..<xs.count { #expect(xs[index] == xs[index - 1] + widths[index - 1]) }
        #expect(bars.map { $0.attributes["data-rule"] ?? "" } == Self.rules)
        // The rules that changed a delay are written out (as the table names them), and a legend names every rule used.
        let words = document.elements.filter { $0.name == "text" }.map(\.text)
        #expect(words.filter { $0 == "rounded-up" }.count >= 3)  // two labels and the legend
        #expect(words.contains("carried"))
        // Tick grid: a line every 10 cs inside the 140 cs play, 13 of them.
        #expect(document.elements.filter { $0.name == "line" && $0.classes.contains("tick") }.count == 13)
        #expect(words.contains { $0.contains("plays 2 times (loop count 2)") })
        #expect(words.contains { $0.contains("tick 10 cs") })
        // The name, escaped in the file, reads back as written.
        #expect(words.contains(input))
    }

    @Test func svgRefusesUsageMistakesInOneLine() throws {
        let folder = try temporaryFolder()
        let input = try writeGIF(Self.gif, to: folder)
        let both = try runGifx(["timeline", input, "--svg", folder.appendingPathComponent("x.svg").path, "--json"])
        #expect(both.status == 64)
        #expect(both.stderr.contains("--svg and --json"))
        let existing = folder.appendingPathComponent("there.svg")
        try Data("keep".utf8).write(to: existing)
        let refused = try runGifx(["timeline", input, "--svg", existing.path])
        #expect(refused.status == 73, "\(refused.stderr)")
        #expect(refused.stderrLines.count == 1)
        #expect(try String(contentsOf: existing, encoding: .utf8) == "keep")
        let replaced = try runGifx(["timeline", input, "--svg", existing.path, "--overwrite"])
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(try String(contentsOf: existing, encoding: .utf8).contains("<svg"))
    }
}
