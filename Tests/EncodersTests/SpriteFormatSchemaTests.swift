import GifxEncoders
import Foundation
import GifFixtures
import Testing

/// A structural JSON schema, enough for the engines' sprite formats: written from each engine's
/// documentation and loader types (PixiJS `SpritesheetData`, Phaser's multiatlas/JSONArray parser,
/// Aseprite's sheet export), never from gifx's writers.
indirect enum Shape: Sendable {
    case int, number, string, bool
    case array(Shape)
    /// An object with these keys (optional ones may be absent; others are allowed, as the loaders ignore them).
    case object(required: [String: Shape], optional: [String: Shape] = [:])
    /// An object used as a dictionary: any keys, every value of `Shape`.
    case dictionary(Shape)
    case anyOf([Shape])
    case oneOfStrings([String])

    /// Problems found in `value`, with their JSON paths.
    func problems(_ value: Any?, at path: String = "$") -> [String] {
        switch self {
        case .int: return !isBoolean(value) && value is Int ? [] : ["\(path): not an integer"]
        case .number: return !isBoolean(value) && value is Double ? [] : ["\(path): not a number"]
        case .string: return value is String ? [] : ["\(path): not a string"]
        case .bool: return isBoolean(value) ? [] : ["\(path): not a boolean"]
        case .oneOfStrings(let allowed):
            return (value as? String).map(allowed.contains) == true ? [] : ["\(path): not one of \(allowed)"]
        case .array(let element):
            guard let array = value as? [Any] else { return ["\(path): not an array"] }
            return array.enumerated().flatMap { element.problems($1, at: "\(path)[\($0)]") }
        case .dictionary(let element):
            guard let object = value as? [String: Any] else { return ["\(path): not an object"] }
            return object.flatMap { element.problems($1, at: "\(path).\($0)") }
        case .object(let required, let optional):
            guard let object = value as? [String: Any] else { return ["\(path): not an object"] }
            var found = required.flatMap { key, shape in
                object[key] == nil ? ["\(path).\(key): missing"] : shape.problems(object[key], at: "\(path).\(key)")
            }
            for (key, shape) in optional where object[key] != nil { found += shape.problems(object[key], at: "\(path).\(key)") }
            return found
        case .anyOf(let shapes):
            return shapes.contains { $0.problems(value, at: path).isEmpty } ? [] : ["\(path): matches none of the allowed shapes"]
        }
    }
}

/// JSONSerialization (swift-corelibs-foundation) gives `true`/`false` as a boolean NSNumber subclass,
/// which also casts to Int: tell them apart by type.
func isBoolean(_ value: Any?) -> Bool {
    guard let value else { return false }
    return String(describing: type(of: value)).contains("Boolean") || type(of: value) == Bool.self
}

/// Computed, not stored: in a global, an indirect enum's boxes are referenced through pointers that carry
/// the case in their spare bits, which LeakSanitizer does not take for references, so `make asan` reported every
/// stored schema as leaked at exit (61 allocations).
enum EngineSchemas {
    static var rect: Shape { .object(required: ["x": .int, "y": .int, "w": .int, "h": .int]) }
    static var size: Shape { .object(required: ["w": .int, "h": .int]) }
    /// PixiJS `SpritesheetFrameData` (src/spritesheet/Spritesheet.ts); `duration` as Aseprite writes it.
    static var pixiFrame: Shape { .object(
        required: ["frame": rect],
        optional: [
            "trimmed": .bool, "rotated": .bool, "sourceSize": size,
            "spriteSourceSize": .object(required: ["x": .int, "y": .int], optional: ["w": .int, "h": .int]),
            "duration": .int,
        ]) }
    /// PixiJS `SpritesheetData`: frames, animations (lists of frame names), meta (scale required).
    static var texturePackerHash: Shape { .object(
        required: [
            "frames": .dictionary(pixiFrame),
            "meta": .object(
                required: ["scale": .anyOf([.string, .number])],
                optional: [
                    "app": .string, "version": .string, "image": .string, "format": .string, "size": size,
                    "related_multi_packs": .array(.string),
                ]),
        ],
        optional: ["animations": .dictionary(.array(.string))]) }
    /// TexturePacker JSON (Array), as Phaser's JSONArray parser reads it: `filename` + the frame fields.
    static var arrayFrame: Shape { .object(
        required: [
            "filename": .string, "frame": rect, "rotated": .bool, "trimmed": .bool,
            "spriteSourceSize": rect, "sourceSize": size,
        ],
        optional: ["duration": .int]) }
    static var texturePackerArray: Shape { .object(
        required: [
            "frames": .array(arrayFrame),
            "meta": .object(required: ["scale": .anyOf([.string, .number]), "image": .string, "size": size]),
        ]) }
    /// Phaser 3 multiatlas (MultiAtlasFile.js: `textures[i].image`, JSONArray.js: `textures[i].frames`).
    static var phaserMultiatlas: Shape { .object(
        required: [
            "textures": .array(.object(
                required: ["image": .string, "frames": .array(arrayFrame)],
                optional: ["format": .string, "size": size, "scale": .number])),
        ],
        optional: ["meta": .object(required: [:], optional: ["app": .string, "version": .string, "scale": .string])]) }
    /// Aseprite `--format json-hash --list-tags --list-layers --list-slices`.
    static var aseprite: Shape { .object(
        required: [
            "frames": .dictionary(.object(required: [
                "frame": rect, "rotated": .bool, "trimmed": .bool, "spriteSourceSize": rect, "sourceSize": size,
                "duration": .int,
            ])),
            "meta": .object(
                required: [
                    "app": .string, "version": .string, "image": .string, "format": .string, "size": size,
                    "scale": .string,
                    "frameTags": .array(.object(
                        required: [
                            "name": .string, "from": .int, "to": .int,
                            "direction": .oneOfStrings(["forward", "reverse", "pingpong", "pingpong_reverse"]),
                        ],
                        optional: ["color": .string, "repeat": .string])),
                    "layers": .array(.object(required: ["name": .string, "opacity": .int, "blendMode": .string])),
                    "slices": .array(.object(required: ["name": .string])),
                ]),
        ]) }
}

@Suite struct SpriteFormatSchemaTests {
    static let variants: [(SpriteJSONFormat, Bool)] = [
        (.texturepacker, false), (.texturepacker, true), (.texturepackerArray, false), (.texturepackerArray, true),
        (.phaser, false), (.phaser, true), (.aseprite, false),
    ]

    /// Every document written validates against the engine's schema, and the names the documents use
    /// (animations, frame tags) refer to frames that exist.
    @Test(arguments: [0, 1, 2, 3, 4, 5, 6]) func documentsMatchTheEngineSchemas(_ variant: Int) throws {
        let (format, multipage) = Self.variants[variant]
        let folder = try spriteFolder("schema\(variant)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (result, _) = try runSprite(MovingCharacter.gif, in: folder) {
            $0.format = format
            $0.trim = true
            $0.packing = .maxrects
            $0.dedupe = true
            if multipage { $0.maxSize = 4; $0.padding = 1 }
        }
        #expect((result.pagePaths.count > 1) == multipage)
        let schema: Shape = switch format {
        case .texturepacker: EngineSchemas.texturePackerHash
        case .texturepackerArray: EngineSchemas.texturePackerArray
        case .phaser: EngineSchemas.phaserMultiatlas
        default: EngineSchemas.aseprite
        }
        for path in result.documentPaths {
            let doc = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
            let problems = schema.problems(doc)
            #expect(problems.isEmpty, "\(path): \(problems.prefix(5))")
            if let object = doc as? [String: Any], let frames = object["frames"] as? [String: Any],
                let animations = object["animations"] as? [String: [String]]
            {
                for names in animations.values { #expect(names.allSatisfy { frames[$0] != nil }) }
            }
            if format == .aseprite, let object = doc as? [String: Any], let frames = object["frames"] as? [String: Any] {
                let tags = try #require((object["meta"] as? [String: Any])?["frameTags"] as? [[String: Any]])
                #expect(tags.allSatisfy { ($0["to"] as? Int ?? -1) < frames.count })
            }
        }
        if format == .phaser {
            let doc = try #require(try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: result.jsonPath))) as? [String: Any])
            #expect((doc["textures"] as? [Any])?.count == result.pagePaths.count)
        }
    }

    /// The `.tres` parses with the test's reader: one Texture2D per page, one AtlasTexture per distinct
    /// cell, load_steps counting them all, speed × duration giving each delay, looping forever.
    @Test func godotResourceParses() throws {
        let folder = try spriteFolder("godot")
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in.gif")
        try MovingCharacter.gif.write(to: input)
        var options = SpriteOptions(
            png: .file(folder.appendingPathComponent("Y.png").path), json: .file(folder.appendingPathComponent("Y.tres").path))
        options.format = .godot
        options.dedupe = true
        options.trim = true
        options.packing = .maxrects
        options.maxSize = 4
        let result = try writeSpriteSheet(inputPath: input.path, options: options)
        let tres = try GodotTres(String(contentsOfFile: options.jsonPath, encoding: .utf8))
        #expect(tres.textures.count == result.pagePaths.count)
        #expect(Set(tres.textures.values) == Set(result.pagePaths.map { URL(fileURLWithPath: $0).lastPathComponent }))
        #expect(tres.atlases.count == 5)  // 7 frames, 2 repeats
        #expect(tres.loadSteps == tres.textures.count + tres.atlases.count + 1)
        #expect(tres.frames.map { $0.duration / tres.speed } == MovingCharacter.delays.map { Double($0) / 100 })
        #expect(tres.frames.allSatisfy { $0.duration == $0.duration.rounded() })  // whole multiples of 1/speed
        #expect(tres.speed == 50)  // gcd of 4, 8, 12, 20, 6 cs is 2 cs
        #expect(tres.loop && tres.name == "Y")
        #expect(tres.frames[3].texture == tres.frames[0].texture)
    }
}
