import GifxEncoders
import Foundation
import Testing

/// One frame as a description file says to cut it: which image, which rect on it, where those pixels go
/// in the untrimmed frame, the untrimmed size, and the duration in milliseconds.
struct CutFrame: Equatable {
    var image: String
    var x: Int, y: Int, w: Int, h: Int
    var offsetX: Int, offsetY: Int
    var sourceW: Int, sourceH: Int
    var durationMs: Double
}

/// Reads the frames of any format back from the files on disk, by the format's own fields only.
func readCutFrames(_ format: SpriteJSONFormat, jsonPath: String) throws -> [CutFrame] {
    let folder = URL(fileURLWithPath: jsonPath).deletingLastPathComponent()
    func image(_ name: String) -> String { folder.appendingPathComponent(name).path }
    func object(_ path: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }
    func int(_ d: Any?, _ key: String) throws -> Int { try #require((d as? [String: Any])?[key] as? Int) }
    func tpFrame(_ f: [String: Any], imagePath: String) throws -> CutFrame {
        let frame = f["frame"], sss = f["spriteSourceSize"], ss = f["sourceSize"]
        return CutFrame(
            image: imagePath, x: try int(frame, "x"), y: try int(frame, "y"), w: try int(frame, "w"), h: try int(frame, "h"),
            offsetX: try int(sss, "x"), offsetY: try int(sss, "y"), sourceW: try int(ss, "w"), sourceH: try int(ss, "h"),
            durationMs: Double(try #require(f["duration"] as? Int)))
    }
    switch format {
    case .yy:
        let json = try object(jsonPath)
        return try yyFrames(json).map { f in
            let r = try JSONRect(f["rect"])
            let size = try #require(json["frameSize"] as? [String: Any])
            return CutFrame(
                image: image(try #require(f["image"] as? String)), x: r.x, y: r.y, w: r.width, h: r.height,
                offsetX: 0, offsetY: 0, sourceW: try int(size, "width"), sourceH: try int(size, "height"),
                durationMs: try #require(f["duration"] as? Double) * 1000)
        }
    case .texturepacker, .texturepackerArray, .aseprite:
        let first = try object(jsonPath)
        let meta = try #require(first["meta"] as? [String: Any])
        let others = (meta["related_multi_packs"] as? [String]) ?? []
        var named: [(String, CutFrame)] = []
        for doc in [first] + (try others.map { try object(image($0)) }) {
            let imagePath = image(try #require((doc["meta"] as? [String: Any])?["image"] as? String))
            if format == .texturepackerArray {
                for f in try #require(doc["frames"] as? [[String: Any]]) {
                    named.append((try #require(f["filename"] as? String), try tpFrame(f, imagePath: imagePath)))
                }
            } else {
                for (name, f) in try #require(doc["frames"] as? [String: Any]) {
                    named.append((name, try tpFrame(try #require(f as? [String: Any]), imagePath: imagePath)))
                }
            }
        }
        return named.sorted { $0.0 < $1.0 }.map(\.1)
    case .phaser:
        var named: [(String, CutFrame)] = []
        for texture in try #require(try object(jsonPath)["textures"] as? [[String: Any]]) {
            let imagePath = image(try #require(texture["image"] as? String))
            for f in try #require(texture["frames"] as? [[String: Any]]) {
                named.append((try #require(f["filename"] as? String), try tpFrame(f, imagePath: imagePath)))
            }
        }
        return named.sorted { $0.0 < $1.0 }.map(\.1)
    case .godot:
        let tres = try GodotTres(String(contentsOfFile: jsonPath, encoding: .utf8))
        return try tres.frames.map { frame in
            let atlas = try #require(tres.atlases[frame.texture])
            let path = try #require(tres.textures[atlas.texture])
            let r = atlas.region, m = atlas.margin ?? [0, 0, 0, 0]
            return CutFrame(
                image: image(path), x: r[0], y: r[1], w: r[2], h: r[3], offsetX: m[0], offsetY: m[1],
                sourceW: r[2] + m[2], sourceH: r[3] + m[3], durationMs: frame.duration / tres.speed * 1000)
        }
    }
}

/// A small reader of the Godot 4 text resource format, enough for a SpriteFrames `.tres`: the header,
/// `ext_resource` Texture2D lines, `AtlasTexture` sub-resources (`atlas`, `region`, `margin`) and the
/// `animations` array of the `[resource]` section. Anything it does not understand is an error.
struct GodotTres {
    struct Atlas { var texture: String; var region: [Int]; var margin: [Int]? }
    struct Frame { var duration: Double; var texture: String }
    var loadSteps = 0
    var textures: [String: String] = [:]
    var atlases: [String: Atlas] = [:]
    var frames: [Frame] = []
    var speed = 0.0
    var loop = false
    var name = ""

    struct ParseError: Error, CustomStringConvertible { var description: String }

    init(_ text: String) throws {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let header = lines.first, header.hasPrefix("[gd_resource type=\"SpriteFrames\""), header.contains("format=3") else {
            throw ParseError(description: "not a SpriteFrames format=3 resource: \(lines.first ?? "")")
        }
        loadSteps = Int(try Self.attribute("load_steps", in: header)) ?? -1
        var section = ""
        var currentID = ""
        var pending: [String: String] = [:]
        var resourceBody = ""
        func closeSection() throws {
            if section == "AtlasTexture" {
                guard let atlas = pending["atlas"], let region = pending["region"] else {
                    throw ParseError(description: "AtlasTexture \(currentID) without atlas/region")
                }
                atlases[currentID] = Atlas(
                    texture: try Self.call("ExtResource", atlas), region: try Self.rect(region),
                    margin: try pending["margin"].map(Self.rect))
            }
            pending = [:]
        }
        for line in lines.dropFirst() where !line.isEmpty {
            if line.hasPrefix("[ext_resource") {
                try closeSection(); section = "ext"
                guard try Self.attribute("type", in: line) == "Texture2D" else { throw ParseError(description: line) }
                textures[try Self.attribute("id", in: line)] = try Self.attribute("path", in: line)
            } else if line.hasPrefix("[sub_resource") {
                try closeSection()
                section = try Self.attribute("type", in: line)
                currentID = try Self.attribute("id", in: line)
            } else if line == "[resource]" {
                try closeSection(); section = "resource"
            } else if section == "resource" {
                resourceBody += line + "\n"
            } else if let eq = line.range(of: " = ") {
                pending[String(line[..<eq.lowerBound])] = String(line[eq.upperBound...])
            } else {
                throw ParseError(description: "unexpected line: \(line)")
            }
        }
        try closeSection()
        // animations = [{ "frames": [{ "duration": D, "texture": SubResource("ID") }, ...], "loop": B, "name": &"N", "speed": S }]
        guard resourceBody.hasPrefix("animations = [{") else { throw ParseError(description: "no animations") }
        let durations = try Self.matches(#""duration": ([0-9.]+),\s*"texture": SubResource\("([^"]+)"\)"#, in: resourceBody)
        frames = durations.map { Frame(duration: Double($0[0]) ?? -1, texture: $0[1]) }
        speed = Double(try Self.matches(#""speed": ([0-9.e+-]+)"#, in: resourceBody).first?[0] ?? "") ?? 0
        loop = try Self.matches(#""loop": (true|false)"#, in: resourceBody).first?[0] == "true"
        name = try Self.matches(#""name": &"([^"]*)""#, in: resourceBody).first?[0] ?? ""
    }

    private static func attribute(_ key: String, in line: String) throws -> String {
        guard let m = try matches(key + #"=("([^"]*)"|[0-9]+)"#, in: line).first else {
            throw ParseError(description: "no \(key) in \(line)")
        }
        return m[0].hasPrefix("\"") ? m[1] : m[0]
    }

    private static func call(_ name: String, _ text: String) throws -> String {
        guard let m = try matches(name + #"\("([^"]+)"\)"#, in: text).first else { throw ParseError(description: text) }
        return m[0]
    }

    private static func rect(_ text: String) throws -> [Int] {
        guard let m = try matches(#"^Rect2\((-?\d+), (-?\d+), (-?\d+), (-?\d+)\)$"#, in: text).first else {
            throw ParseError(description: "not an integer Rect2: \(text)")
        }
        return m.map { Int($0)! }
    }

    private static func matches(_ pattern: String, in text: String) throws -> [[String]] {
        let regex = try NSRegularExpression(pattern: pattern)
        let ns = text as NSString
        return regex.matches(in: text, range: NSRange(location: 0, length: ns.length)).map { m in
            (1..<m.numberOfRanges).map { m.range(at: $0).location == NSNotFound ? "" : ns.substring(with: m.range(at: $0)) }
        }
    }
}
