import Foundation
import Testing
import GifxTimeline

/// The `gifx.timeline/1` JSON (timeline.md §6), read back with JSONSerialization: keys and values are checked
/// against the schema text, never against the encoder's own output.
@Suite struct TimelineJSONTests {
    static let source = TimelineInput(
        canvas: CanvasSize(width: 480, height: 270), loopCount: nil,
        frames: [
            FrameDescriptor(rawDelay: 5, rect: PixelRect(x: 0, y: 0, width: 480, height: 270)),
            FrameDescriptor(
                rawDelay: nil, rect: PixelRect(x: 10, y: 20, width: 30, height: 40), disposal: .keep,
                transparentIndex: 7, interlaced: true),
            FrameDescriptor(rawDelay: 15, rect: PixelRect(x: 1, y: 2, width: 3, height: 4), disposal: .background),
            FrameDescriptor(
                rawDelay: 0, rect: PixelRect(x: 0, y: 0, width: 1, height: 1), disposal: Disposal(rawField: 5),
                transparentIndex: 0),
        ],
        warnings: ["something was off"])

    func encoded(_ timeline: Timeline) throws -> [String: Any] {
        let data = try JSONEncoder().encode(timeline)
        return try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func topLevelSchema() throws {
        let json = try encoded(Timeline(Self.source))
        let required: Set = ["schema", "policy", "canvas", "loop", "tick", "duration", "frames", "warnings"]
        #expect(required.isSubset(of: Set(json.keys)))
        #expect(json["schema"] as? String == "gifx.timeline/1")
        #expect(json["policy"] as? String == "flanimated")
        let canvas = try #require(json["canvas"] as? [String: Any])
        #expect(canvas["width"] as? Int == 480)
        #expect(canvas["height"] as? Int == 270)
        // Delays 5, 5 (carried), 15, 10 (rounded up): tick 5 cs, 20 fps, 35 cs.
        let tick = try #require(json["tick"] as? [String: Any])
        #expect(tick["centiseconds"] as? Int == 5)
        let fps = try #require(tick["fps"] as? [String: Any])
        #expect(fps["num"] as? Int == 20)
        #expect(fps["den"] as? Int == 1)
        let duration = try #require(json["duration"] as? [String: Any])
        #expect(duration["centiseconds"] as? Int == 35)
        #expect((duration["seconds"] as? NSNumber)?.doubleValue == 0.35)
        #expect(json["warnings"] as? [String] == ["something was off"])
    }

    @Test func fractionalFrameRate() throws {
        // Delays 3 and 6 cs: tick 3 cs, 100/3 fps written as a fraction, never as 33.33.
        let json = try encoded(Timeline(input([3, 6])))
        let tick = try #require(json["tick"] as? [String: Any])
        #expect(tick["centiseconds"] as? Int == 3)
        let fps = try #require(tick["fps"] as? [String: Any])
        #expect(fps["num"] as? Int == 100)
        #expect(fps["den"] as? Int == 3)
        let duration = try #require(json["duration"] as? [String: Any])
        #expect(duration["centiseconds"] as? Int == 9)
        #expect((duration["seconds"] as? NSNumber)?.doubleValue == 0.09)
    }

    @Test func loopNullsArePresent() throws {
        // No loop extension, flanimated: count null, plays null (forever). Both keys must be there.
        let none = try #require(try encoded(Timeline(Self.source))["loop"] as? [String: Any])
        #expect(Set(none.keys) == ["count", "plays"])
        #expect(none["count"] is NSNull)
        #expect(none["plays"] is NSNull)
        // No loop extension, browser: count null, one play.
        let browser = try #require(try encoded(Timeline(Self.source, policy: .browser))["loop"] as? [String: Any])
        #expect(browser["count"] is NSNull)
        #expect(browser["plays"] as? Int == 1)
        // Count 0: forever under both.
        var forever = Self.source
        forever.loopCount = 0
        let zero = try #require(try encoded(Timeline(forever))["loop"] as? [String: Any])
        #expect(zero["count"] as? Int == 0)
        #expect(zero["plays"] is NSNull)
        // Count 3: 3 plays (flanimated), 4 (browser).
        var three = Self.source
        three.loopCount = 3
        let flanimated3 = try #require(try encoded(Timeline(three))["loop"] as? [String: Any])
        #expect(flanimated3["count"] as? Int == 3)
        #expect(flanimated3["plays"] as? Int == 3)
        let browser3 = try #require(try encoded(Timeline(three, policy: .browser))["loop"] as? [String: Any])
        #expect(browser3["plays"] as? Int == 4)
    }

    @Test func frames() throws {
        let json = try encoded(Timeline(Self.source))
        let frames = try #require(json["frames"] as? [[String: Any]])
        #expect(frames.count == 4)
        let keys: Set = [
            "index", "rawDelay", "delay", "rule", "start", "rect", "disposal", "transparentIndex", "interlaced",
        ]
        for frame in frames { #expect(keys.isSubset(of: Set(frame.keys)), "\(frame.keys.sorted())") }
        #expect(frames.map { $0["index"] as? Int } == [0, 1, 2, 3])
        #expect(frames[0]["rawDelay"] as? Int == 5)
        #expect(frames[1]["rawDelay"] is NSNull)
        #expect(frames[3]["rawDelay"] as? Int == 0)
        #expect(frames.map { $0["delay"] as? Int } == [5, 5, 15, 10])
        #expect(frames.map { $0["rule"] as? String } == ["raw", "carried", "raw", "rounded-up"])
        #expect(frames.map { $0["start"] as? Int } == [0, 5, 10, 25])
        #expect(frames.map { $0["disposal"] as? String } == ["none", "keep", "background", "previous"])
        #expect(frames[0]["transparentIndex"] is NSNull)
        #expect(frames[1]["transparentIndex"] as? Int == 7)
        #expect(frames[3]["transparentIndex"] as? Int == 0)
        #expect(frames.map { $0["interlaced"] as? Bool } == [false, true, false, false])
        let rect = try #require(frames[1]["rect"] as? [String: Any])
        #expect(rect["x"] as? Int == 10)
        #expect(rect["y"] as? Int == 20)
        #expect(rect["width"] as? Int == 30)
        #expect(rect["height"] as? Int == 40)

        let browser = try #require(try encoded(Timeline(Self.source, policy: .browser))["frames"] as? [[String: Any]])
        #expect(browser.map { $0["rule"] as? String } == ["raw", "default", "raw", "rounded-up"])
        #expect(browser.map { $0["delay"] as? Int } == [5, 10, 15, 10])
    }

    @Test func disposalFieldsFourToSevenArePrevious() throws {
        #expect(Disposal(rawField: 0) == .none)
        #expect(Disposal(rawField: 1) == .keep)
        #expect(Disposal(rawField: 2) == .background)
        #expect(Disposal(rawField: 3) == .previous)
        for field in 4...7 { #expect(Disposal(rawField: field) == .previous) }
    }

    @Test func policyNamesAndRuleNames() {
        #expect(TimelinePolicy.allCases.map(\.rawValue) == ["flanimated", "browser"])
        // "truncated": an APNG delay cut to whole ms under the browser policy (issue 35; timeline.md).
        #expect(Set(DelayRule.allCases.map(\.rawValue)) == ["raw", "rounded-up", "carried", "default", "truncated"])
    }

    @Test func roundTripsThroughDecoding() throws {
        let timeline = Timeline(Self.source, policy: .browser)
        let decoded = try JSONDecoder().decode(Timeline.self, from: try JSONEncoder().encode(timeline))
        #expect(decoded == timeline)
    }
}
