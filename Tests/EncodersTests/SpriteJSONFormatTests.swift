import GifxEncoders
import Foundation
import GifFixtures
import Testing

@Suite struct SpriteJSONFormatTests {
    /// Three solid 5x3 frames, delays 4, 8, 12 cs, loop count 2; 2 columns.
    private func sheet(_ format: SpriteJSONFormat, maxSize: Int = 4096) throws -> [String: Any] {
        let folder = try spriteFolder("\(format)\(maxSize)")
        let gif = FixtureGIF.solidFrames(width: 5, height: 3, colorIndices: [1, 2, 3], delays: [4, 8, 12], loopCounts: [2])
        return try runSprite(gif, in: folder) {
            $0.format = format
            $0.columns = maxSize >= 10 ? 2 : nil
            $0.maxSize = maxSize
        }.json
    }

    private func hashFrames(_ json: [String: Any]) throws -> [(String, [String: Any])] {
        let frames = try #require(json["frames"] as? [String: Any])
        return try frames.keys.sorted().map { ($0, try #require(frames[$0] as? [String: Any])) }
    }

    private func wh(_ any: Any?) throws -> [Int] {
        let d = try #require(any as? [String: Any])
        return [try #require(d["w"] as? Int), try #require(d["h"] as? Int)]
    }

    private func xywh(_ any: Any?) throws -> [Int] {
        let d = try #require(any as? [String: Any])
        return [try #require(d["x"] as? Int), try #require(d["y"] as? Int)] + (try wh(any))
    }

    @Test func texturePackerJSONHash() throws {
        let json = try sheet(.texturepacker)
        let frames = try hashFrames(json)
        #expect(frames.map(\.0) == ["Y 0000", "Y 0001", "Y 0002"])
        #expect(try frames.map { try xywh($0.1["frame"]) } == [[0, 0, 5, 3], [5, 0, 5, 3], [0, 3, 5, 3]])
        for (_, frame) in frames {
            #expect(frame["rotated"] as? Bool == false)
            #expect(frame["trimmed"] as? Bool == false)
            #expect(try xywh(frame["spriteSourceSize"]) == [0, 0, 5, 3])
            #expect(try wh(frame["sourceSize"]) == [5, 3])
            #expect(frame["page"] == nil)
        }
        #expect(frames.map { $0.1["duration"] as? Int } == [40, 80, 120])
        let meta = try #require(json["meta"] as? [String: Any])
        #expect(meta["image"] as? String == "Y.png")
        #expect(meta["format"] as? String == "RGBA8888")
        #expect(try wh(meta["size"]) == [10, 6])
        #expect(meta["scale"] as? String == "1")
        #expect(meta["frameTags"] == nil)
    }

    @Test func asepriteJSONHash() throws {
        let json = try sheet(.aseprite)
        let frames = try hashFrames(json)
        #expect(frames.map { $0.1["duration"] as? Int } == [40, 80, 120])
        #expect(try frames.map { try xywh($0.1["frame"]) } == [[0, 0, 5, 3], [5, 0, 5, 3], [0, 3, 5, 3]])
        let meta = try #require(json["meta"] as? [String: Any])
        let tags = try #require(meta["frameTags"] as? [[String: Any]])
        #expect(tags.count == 1)
        #expect(tags[0]["from"] as? Int == 0)
        #expect(tags[0]["to"] as? Int == 2)
        #expect(tags[0]["direction"] as? String == "forward")
        #expect(tags[0]["repeat"] as? String == "2")
        #expect(meta["format"] as? String == "RGBA8888")
        #expect(try wh(meta["size"]) == [10, 6])
    }

    @Test func pagedTexturePackerIsAMultipackOfOneDocumentPerPage() throws {
        // maxSize 5: one 5x3 cell per page; Y.json is page 0 and names the others in related_multi_packs.
        let folder = try spriteFolder("multipack")
        let gif = FixtureGIF.solidFrames(width: 5, height: 3, colorIndices: [1, 2, 3], delays: [4, 8, 12], loopCounts: [2])
        let (result, json) = try runSprite(gif, in: folder) { $0.format = .texturepacker; $0.maxSize = 5 }
        #expect(result.documentPaths.map { URL(fileURLWithPath: $0).lastPathComponent } == ["Y.json", "Y-1.json", "Y-2.json"])
        for (k, path) in result.documentPaths.enumerated() {
            let doc = k == 0 ? json : try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
            let frames = try hashFrames(doc)
            #expect(frames.map(\.0) == ["Y 000\(k)"])
            #expect(frames.allSatisfy { $0.1["page"] == nil })
            let meta = try #require(doc["meta"] as? [String: Any])
            #expect(meta["image"] as? String == "Y-\(k).png")
            #expect(meta["pages"] == nil)
            let others = ["Y.json", "Y-1.json", "Y-2.json"].enumerated().filter { $0.offset != k }.map(\.element)
            #expect(meta["related_multi_packs"] as? [String] == others)
            #expect((doc["animations"] as? [String: [String]])?["Y"] == ["Y 000\(k)"])
        }
    }
}
