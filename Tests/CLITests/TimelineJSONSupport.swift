import Foundation
import Testing

/// `gifx timeline --json` output read back with JSONSerialization (never with our own decoder).
struct TimelineJSON {
    var object: [String: Any]

    init(_ run: GifxRun) throws {
        object = try #require(JSONSerialization.jsonObject(with: run.stdout) as? [String: Any], "\(run.stderr)")
    }

    var frames: [[String: Any]] { object["frames"] as? [[String: Any]] ?? [] }
    var delays: [Int?] { frames.map { $0["delay"] as? Int } }
    var rawDelays: [Int?] { frames.map { $0["rawDelay"] as? Int } }
    var rules: [String?] { frames.map { $0["rule"] as? String } }
    var starts: [Int?] { frames.map { $0["start"] as? Int } }
    var disposals: [String?] { frames.map { $0["disposal"] as? String } }
    var transparentIndices: [Int?] { frames.map { $0["transparentIndex"] as? Int } }
    var interlaced: [Bool?] { frames.map { $0["interlaced"] as? Bool } }
    /// `[x, y, width, height]` per frame.
    var rects: [[Int]] {
        frames.map { frame in
            let rect = frame["rect"] as? [String: Any] ?? [:]
            return ["x", "y", "width", "height"].map { rect[$0] as? Int ?? -1 }
        }
    }
    var canvas: [Int] {
        let canvas = object["canvas"] as? [String: Any] ?? [:]
        return [canvas["width"] as? Int ?? -1, canvas["height"] as? Int ?? -1]
    }
    private var loop: [String: Any] { object["loop"] as? [String: Any] ?? [:] }
    /// Whether `loop.count` is present and `null`.
    var loopCountIsNull: Bool { loop["count"] is NSNull }
    var loopCount: Int? { loop["count"] as? Int }
    var loopPlaysIsNull: Bool { loop["plays"] is NSNull }
    var loopPlays: Int? { loop["plays"] as? Int }
    var tick: Int? { (object["tick"] as? [String: Any])?["centiseconds"] as? Int }
    var fps: [Int?] {
        let fps = (object["tick"] as? [String: Any])?["fps"] as? [String: Any] ?? [:]
        return [fps["num"] as? Int, fps["den"] as? Int]
    }
    var duration: Int? { (object["duration"] as? [String: Any])?["centiseconds"] as? Int }
    var warnings: [String]? { object["warnings"] as? [String] }
}
