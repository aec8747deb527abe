import Foundation
import GifFixtures
import Testing

@Suite struct TimelineCommandSmokeTests {
    @Test func missingInputExits66WithOneLine() throws {
        let run = try runGifx(["timeline", "/nonexistent/in.gif"])
        #expect(run.status == 66)
        #expect(run.stderrLines.count == 1)
        #expect(run.stderrLines.first?.hasPrefix("gifx: /nonexistent/in.gif: ") == true)
    }

    @Test func readsStandardInput() throws {
        let gif = FixtureGIF.solidFrames(width: 3, height: 2, colorIndices: [1, 2], delays: [7, nil], loopCounts: [])
        let run = try runGifx(["timeline", "-", "--json"], stdin: gif.encode())
        #expect(run.status == 0, "\(run.stderr)")
        let json = try #require(JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        let frames = try #require(json["frames"] as? [[String: Any]])
        #expect(frames.map { $0["delay"] as? Int } == [7, 7])
        #expect(frames.map { $0["rule"] as? String } == ["raw", "carried"])
    }
}
