import Foundation

/// One frame as a sprite sheet's description says to cut it: the page, the rect on it, where those pixels go in
/// the untrimmed frame, the untrimmed size, and how long the frame is shown.
package struct SheetCut: Equatable {
    package var page: String
    package var x: Int, y: Int, w: Int, h: Int
    package var offsetX: Int, offsetY: Int
    package var sourceW: Int, sourceH: Int
    package var durationMs: Double
}

/// Reads any of to-sprite's description formats (yy, TexturePacker hash or array, Aseprite, Phaser 3, Godot
/// `.tres`) by the format's own fields, whichever tool wrote it; the format is recognised from the content.
/// Frames are in animation order: the array order, or, for keyed formats, the frame names' order.
package enum SheetDescription {
    /// `target`: the path the description will have (its pages are named relative to it); `pageMap` maps a
    /// page's final path (standardized) to the temporary it is read from (a verifying conversion, before the commit).
    package static func read(path: String, target: String? = nil, pageMap: [String: String] = [:]) throws
        -> (format: String, cuts: [SheetCut])
    {
        let folder = URL(fileURLWithPath: target ?? path).deletingLastPathComponent()
        func page(_ name: String) -> String {
            let final = folder.appendingPathComponent(name).standardized.path
            return pageMap[final] ?? final
        }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw VerifyReadError("cannot read: \(error.localizedDescription)")
        }
        if (target ?? path).hasSuffix(".tres") {
            return ("godot", try godot(String(decoding: data, as: UTF8.self), page: page))
        }
        func object(_ data: Data) throws -> [String: Any] {
            guard let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw VerifyReadError("not a JSON object")
            }
            return json
        }
        let json = try object(data)
        if let textures = json["textures"] as? [[String: Any]] {
            var named: [(String, SheetCut)] = []
            for texture in textures {
                let image = page(try string(texture["image"]))
                for f in try array(texture["frames"]) { named.append((try string(f["filename"]), try packerCut(f, page: image))) }
            }
            return ("phaser", named.sorted { $0.0 < $1.0 }.map(\.1))
        }
        if let size = json["frameSize"] as? [String: Any], let frames = json["frames"] as? [[String: Any]] {
            return ("yy", try frames.map { f in
                let r = try dict(f["rect"])
                return SheetCut(
                    page: page(try string(f["image"])), x: try int(r["x"]), y: try int(r["y"]), w: try int(r["width"]),
                    h: try int(r["height"]), offsetX: 0, offsetY: 0, sourceW: try int(size["width"]),
                    sourceH: try int(size["height"]), durationMs: try double(f["duration"]) * 1000)
            })
        }
        // TexturePacker (hash or array) and Aseprite, possibly split over related multi-packs.
        let meta = try dict(json["meta"])
        var named: [(String, SheetCut)] = []
        var format = "texturepacker"
        for doc in [json] + (try ((meta["related_multi_packs"] as? [String]) ?? []).map { name -> [String: Any] in
            guard let d = try? Data(contentsOf: URL(fileURLWithPath: page(name))) else {
                throw VerifyReadError("cannot read \(name)")
            }
            return try object(d)
        }) {
            let image = page(try string(try dict(doc["meta"])["image"]))
            if let frames = doc["frames"] as? [[String: Any]] {
                format = "texturepacker-array"
                for f in frames { named.append((try string(f["filename"]), try packerCut(f, page: image))) }
            } else {
                if meta["frameTags"] != nil { format = "aseprite" }
                for (name, f) in try dict(doc["frames"]) { named.append((name, try packerCut(try dict(f), page: image))) }
            }
        }
        return (format, named.sorted { $0.0 < $1.0 }.map(\.1))
    }

    private static func packerCut(_ f: [String: Any], page: String) throws -> SheetCut {
        let frame = try dict(f["frame"]), sss = try dict(f["spriteSourceSize"]), ss = try dict(f["sourceSize"])
        return SheetCut(
            page: page, x: try int(frame["x"]), y: try int(frame["y"]), w: try int(frame["w"]), h: try int(frame["h"]),
            offsetX: try int(sss["x"]), offsetY: try int(sss["y"]), sourceW: try int(ss["w"]), sourceH: try int(ss["h"]),
            durationMs: try double(f["duration"]))
    }

    /// Godot 4's SpriteFrames: `ext_resource` textures, `AtlasTexture` regions and margins, the animation's
    /// frames (duration × 1/speed seconds).
    private static func godot(_ text: String, page: (String) -> String) throws -> [SheetCut] {
        var textures: [String: String] = [:]
        var atlases: [String: (texture: String, region: [Int], margin: [Int])] = [:]
        var current = ""
        var pending: [String: String] = [:]
        var body = ""
        var inResource = false
        func close() throws {
            if !current.isEmpty, let atlas = pending["atlas"], let region = pending["region"] {
                atlases[current] = (
                    try first(#"ExtResource\("([^"]+)"\)"#, atlas)[0], try rect(region),
                    try pending["margin"].map(rect) ?? [0, 0, 0, 0])
            }
            pending = [:]
            current = ""
        }
        for line in text.split(separator: "\n").map(String.init) {
            if line.hasPrefix("[ext_resource") {
                try close()
                textures[try first(#"id="([^"]+)""#, line)[0]] = try first(#"path="([^"]+)""#, line)[0]
            } else if line.hasPrefix("[sub_resource") {
                try close()
                current = try first(#"id="([^"]+)""#, line)[0]
            } else if line == "[resource]" {
                try close()
                inResource = true
            } else if inResource {
                body += line + "\n"
            } else if let eq = line.range(of: " = ") {
                pending[String(line[..<eq.lowerBound])] = String(line[eq.upperBound...])
            }
        }
        try close()
        let speed = Double(try first(#""speed": ([0-9.e+-]+)"#, body)[0]) ?? 0
        guard speed > 0 else { throw VerifyReadError("no animation speed") }
        return try matches(#""duration": ([0-9.]+),\s*"texture": SubResource\("([^"]+)"\)"#, body).map { m in
            guard let atlas = atlases[m[1]], let path = textures[atlas.texture] else {
                throw VerifyReadError("unknown texture \(m[1])")
            }
            let r = atlas.region, margin = atlas.margin
            return SheetCut(
                page: page(path), x: r[0], y: r[1], w: r[2], h: r[3], offsetX: margin[0], offsetY: margin[1],
                sourceW: r[2] + margin[2], sourceH: r[3] + margin[3], durationMs: (Double(m[0]) ?? 0) / speed * 1000)
        }
    }

    private static func rect(_ text: String) throws -> [Int] {
        try first(#"Rect2\((-?\d+), (-?\d+), (-?\d+), (-?\d+)\)"#, text).map { Int($0) ?? 0 }
    }

    private static func first(_ pattern: String, _ text: String) throws -> [String] {
        guard let m = try matches(pattern, text).first else { throw VerifyReadError("cannot read: \(text.prefix(60))") }
        return m
    }

    private static func matches(_ pattern: String, _ text: String) throws -> [[String]] {
        let regex = try NSRegularExpression(pattern: pattern)
        let ns = text as NSString
        return regex.matches(in: text, range: NSRange(location: 0, length: ns.length)).map { m in
            (1..<m.numberOfRanges).map { m.range(at: $0).location == NSNotFound ? "" : ns.substring(with: m.range(at: $0)) }
        }
    }

    private static func dict(_ any: Any?) throws -> [String: Any] {
        guard let d = any as? [String: Any] else { throw VerifyReadError("a field is missing") }
        return d
    }
    private static func array(_ any: Any?) throws -> [[String: Any]] {
        guard let a = any as? [[String: Any]] else { throw VerifyReadError("a frame list is missing") }
        return a
    }
    private static func string(_ any: Any?) throws -> String {
        guard let s = any as? String else { throw VerifyReadError("a name is missing") }
        return s
    }
    private static func int(_ any: Any?) throws -> Int {
        guard let n = any as? Int else { throw VerifyReadError("an integer field is missing") }
        return n
    }
    private static func double(_ any: Any?) throws -> Double {
        guard let n = (any as? Double) ?? (any as? Int).map(Double.init) else {
            throw VerifyReadError("a duration is missing")
        }
        return n
    }
}
