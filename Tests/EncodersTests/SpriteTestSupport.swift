import GifxEncoders
import Foundation
import GifFixtures
import GifxPipeline
import Testing

/// A fresh folder for one sprite test.
func spriteFolder(_ name: String = #function) throws -> URL {
    let url = TestScratch.path("sprite", name: name)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Writes `gif` as `in.gif` in `folder`, runs the encoder into `Y.png` / `Y.json` there, and returns the
/// result with the parsed JSON.
func runSprite(
    _ gif: FixtureGIF, in folder: URL, settings: RunSettings = RunSettings(),
    configure: (inout SpriteOptions) -> Void = { _ in }
) throws -> (result: SpriteResult, json: [String: Any]) {
    let input = folder.appendingPathComponent("in.gif")
    try gif.write(to: input)
    var options = SpriteOptions(
        png: .file(folder.appendingPathComponent("Y.png").path), json: .file(folder.appendingPathComponent("Y.json").path))
    configure(&options)
    let result = try writeSpriteSheet(inputPath: input.path, options: options, settings: settings)
    let data = try Data(contentsOf: URL(fileURLWithPath: options.jsonPath))
    let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    return (result, json)
}

/// A decoded PNG page.
struct Sheet {
    var width: Int, height: Int, pixels: [UInt8]
    init(_ path: String) throws {
        (width, height, pixels) = try readPNGAsRGBA(path)
    }
    func pixel(_ x: Int, _ y: Int) -> [UInt8] {
        let i = (y * width + x) * 4
        return Array(pixels[i..<i + 4])
    }
    /// The pixels of `rect`, row-major RGBA.
    func crop(x: Int, y: Int, width w: Int, height h: Int) -> [UInt8] {
        var out: [UInt8] = []
        for row in y..<y + h { out += pixels[((row * width + x) * 4)..<((row * width + x + w) * 4)] }
        return out
    }
}

/// RGBA of a `FixtureGIF.primaries` index, opaque.
func rgba(_ index: Int) -> [UInt8] {
    let c = FixtureGIF.primaries[index]
    return [c.r, c.g, c.b, 255]
}

let clearPixel: [UInt8] = [0, 0, 0, 0]

/// A canvas of `width`×`height` filled with one RGBA value.
func filled(_ pixel: [UInt8], _ width: Int, _ height: Int) -> [UInt8] {
    Array([[UInt8]](repeating: pixel, count: width * height).joined())
}

/// The `rect` of a yy frame entry.
struct JSONRect: Equatable {
    var x: Int, y: Int, width: Int, height: Int
    init(x: Int, y: Int, width: Int, height: Int) { self.x = x; self.y = y; self.width = width; self.height = height }
    init(_ any: Any?) throws {
        let d = try #require(any as? [String: Any])
        x = try #require(d["x"] as? Int); y = try #require(d["y"] as? Int)
        width = try #require(d["width"] as? Int); height = try #require(d["height"] as? Int)
    }
}

/// The yy `frames` array.
func yyFrames(_ json: [String: Any]) throws -> [[String: Any]] {
    try #require(json["frames"] as? [[String: Any]])
}

/// Checks every yy frame: rect inside its page, contentsRect = rect / page size (1e-9), and returns rects.
func checkContentsRects(_ json: [String: Any]) throws -> [JSONRect] {
    let images = try #require(json["images"] as? [[String: Any]])
    var rects: [JSONRect] = []
    for frame in try yyFrames(json) {
        let page = try #require(frame["page"] as? Int)
        let image = images[page]
        let w = try #require(image["width"] as? Int), h = try #require(image["height"] as? Int)
        #expect(frame["image"] as? String == image["name"] as? String)
        let rect = try JSONRect(frame["rect"])
        #expect(rect.x >= 0 && rect.y >= 0 && rect.x + rect.width <= w && rect.y + rect.height <= h)
        let unit = try #require(frame["contentsRect"] as? [String: Any])
        let ux = try #require(unit["x"] as? Double), uy = try #require(unit["y"] as? Double)
        let uw = try #require(unit["width"] as? Double), uh = try #require(unit["height"] as? Double)
        #expect(abs(ux - Double(rect.x) / Double(w)) < 1e-9)
        #expect(abs(uy - Double(rect.y) / Double(h)) < 1e-9)
        #expect(abs(uw - Double(rect.width) / Double(w)) < 1e-9)
        #expect(abs(uh - Double(rect.height) / Double(h)) < 1e-9)
        rects.append(rect)
    }
    return rects
}

/// The sheet of `inputPath` alone: a `Conversion` with one sprite sheet output, its result completed with the
/// run's figures, as `gifx to-sprite` runs it (through GifConverter).
func writeSpriteSheet(inputPath: String, options: SpriteOptions, settings: RunSettings = RunSettings()) throws -> SpriteResult {
    SpriteResult(sheetOf: try Conversion(inputPath: inputPath, settings: settings).run([.spriteSheet(options)]))
}
