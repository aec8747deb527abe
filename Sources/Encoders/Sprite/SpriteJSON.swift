import Foundation
import Timeline

/// Which JSON the sprite sheet comes with.
public enum SpriteJSONFormat: String, Codable, Sendable, CaseIterable {
    /// gifx's own (schema `gifx.sprite/1`): what a YYSpriteSheetImage-style player needs (`contentsRect`
    /// in the unit square, durations in seconds, loop count).
    case yy
    /// TexturePacker's "JSON (Hash)" data format, read by Phaser, PixiJS, Cocos and most engines.
    case texturepacker
    /// Aseprite's `--format json-hash` sprite sheet data (durations in ms, frame tags).
    case aseprite
}

/// Everything the JSON writers need to know about a finished sheet.
public struct SpriteSheetDescription: Sendable {
    public struct Image: Sendable {
        /// Path written into the JSON (relative to the JSON file when both share a folder).
        public var name: String
        public var size: CanvasSize
        public init(name: String, size: CanvasSize) { self.name = name; self.size = size }
    }

    public struct Frame: Sendable {
        public var page: Int
        /// The frame's own pixels on its page, top-left origin.
        public var rect: PixelRect
        /// Resolved delay in centiseconds.
        public var delay: Int
        public init(page: Int, rect: PixelRect, delay: Int) { self.page = page; self.rect = rect; self.delay = delay }
    }

    /// Base for frame names (the input's file name without extension).
    public var name: String
    public var images: [Image]
    public var frames: [Frame]
    /// The GIF's canvas.
    public var sourceSize: CanvasSize
    /// Cell size (the canvas after `--width`/`--height`/`--scale`).
    public var frameSize: CanvasSize
    public var loopCount: Int?
    public var plays: Int?
    public var policy: TimelinePolicy
    public var padding: Int
    public var extrude: Int
    /// Frames sharing an earlier frame's cell (`--dedupe`), `nil` when deduplication was off.
    public var cellsSaved: Int?

    public init(
        name: String, images: [Image], frames: [Frame], sourceSize: CanvasSize, frameSize: CanvasSize,
        loopCount: Int?, plays: Int?, policy: TimelinePolicy, padding: Int, extrude: Int, cellsSaved: Int?
    ) {
        self.name = name; self.images = images; self.frames = frames; self.sourceSize = sourceSize
        self.frameSize = frameSize; self.loopCount = loopCount; self.plays = plays; self.policy = policy
        self.padding = padding; self.extrude = extrude; self.cellsSaved = cellsSaved
    }

    /// The JSON document in `format`, UTF-8, pretty-printed with sorted keys (diffable, deterministic).
    public func json(_ format: SpriteJSONFormat) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        switch format {
        case .yy: return try encoder.encode(YYSpriteSheet(self))
        case .texturepacker: return try encoder.encode(HashSpriteSheet(self, aseprite: false))
        case .aseprite: return try encoder.encode(HashSpriteSheet(self, aseprite: true))
        }
    }

    /// Frame names for the hash formats, zero-padded so that sorted keys keep frame order.
    func frameName(_ index: Int) -> String {
        let digits = max(4, String(frames.count - 1).count)
        let number = String(index)
        return "\(name) \(String(repeating: "0", count: max(0, digits - number.count)))\(number)"
    }
}

// MARK: yy

/// `gifx.sprite/1`: the YY sprite protocol (`contentsRectForFrame`, `animatedImageDurationAtIndex`,
/// `animatedImageLoopCount`) with nothing left to compute.
struct YYSpriteSheet: Encodable {
    struct Size: Encodable { var width: Int, height: Int }
    struct UnitRect: Encodable { var x: Double, y: Double, width: Double, height: Double }
    struct Image: Encodable { var name: String, width: Int, height: Int }
    struct Frame: Encodable {
        var index: Int
        var page: Int
        var image: String
        var rect: PixelRect
        var contentsRect: UnitRect
        /// Seconds.
        var duration: Double
        /// Centiseconds, exact.
        var delay: Int
    }

    var schema = "gifx.sprite/1"
    var images: [Image]
    var frameSize: Size
    var sourceSize: Size
    var padding: Int
    var extrude: Int
    var policy: TimelinePolicy
    /// Raw NETSCAPE2.0 count, `null` when the GIF has none.
    var loopCount: Int?
    /// Total plays under `policy`, `null` = forever.
    var plays: Int?
    var duration: Double
    var cellsSaved: Int?
    var frames: [Frame]

    init(_ sheet: SpriteSheetDescription) {
        images = sheet.images.map { Image(name: $0.name, width: $0.size.width, height: $0.size.height) }
        frameSize = Size(width: sheet.frameSize.width, height: sheet.frameSize.height)
        sourceSize = Size(width: sheet.sourceSize.width, height: sheet.sourceSize.height)
        padding = sheet.padding
        extrude = sheet.extrude
        policy = sheet.policy
        loopCount = sheet.loopCount
        plays = sheet.plays
        duration = Double(sheet.frames.reduce(0) { $0 + $1.delay }) / 100
        cellsSaved = sheet.cellsSaved
        frames = sheet.frames.enumerated().map { index, frame in
            let size = sheet.images[frame.page].size
            let w = Double(size.width), h = Double(size.height)
            let r = frame.rect
            return Frame(
                index: index, page: frame.page, image: sheet.images[frame.page].name, rect: r,
                contentsRect: UnitRect(
                    x: Double(r.x) / w, y: Double(r.y) / h, width: Double(r.width) / w, height: Double(r.height) / h),
                duration: Double(frame.delay) / 100, delay: frame.delay)
        }
    }

    private enum CodingKeys: String, CodingKey {
        case schema, images, frameSize, sourceSize, padding, extrude, policy, loopCount, plays, duration
        case cellsSaved, frames
    }

    /// `loopCount` and `plays` are always present (`null` has a meaning); `cellsSaved` only with `--dedupe`.
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(schema, forKey: .schema)
        try c.encode(images, forKey: .images)
        try c.encode(frameSize, forKey: .frameSize)
        try c.encode(sourceSize, forKey: .sourceSize)
        try c.encode(padding, forKey: .padding)
        try c.encode(extrude, forKey: .extrude)
        try c.encode(policy, forKey: .policy)
        try c.encode(loopCount, forKey: .loopCount)
        try c.encode(plays, forKey: .plays)
        try c.encode(duration, forKey: .duration)
        try c.encodeIfPresent(cellsSaved, forKey: .cellsSaved)
        try c.encode(frames, forKey: .frames)
    }
}

// MARK: texturepacker / aseprite

/// The JSON-hash layout TexturePacker and Aseprite share: `frames` keyed by name, each with `frame`
/// {x,y,w,h}, `rotated`, `trimmed`, `spriteSourceSize`, `sourceSize` and (Aseprite; also written for
/// TexturePacker, whose readers ignore unknown keys) `duration` in milliseconds; `meta` with `app`,
/// `version`, `image`, `format`, `size`, `scale` (a string), and for Aseprite `frameTags`/`layers`/`slices`.
/// Several pages: each frame also gets `page`, and `meta.pages` lists every image (`meta.image` is page 0).
struct HashSpriteSheet: Encodable {
    struct Rect: Encodable { var x: Int, y: Int, w: Int, h: Int }
    struct Size: Encodable { var w: Int, h: Int }
    struct Frame: Encodable {
        var frame: Rect
        var rotated = false
        var trimmed = false
        var spriteSourceSize: Rect
        var sourceSize: Size
        var duration: Int
        var page: Int?
    }
    struct Tag: Encodable {
        var name: String
        var from: Int
        var to: Int
        var direction = "forward"
        var color = "#000000ff"
        /// Aseprite 1.3: plays as a string; absent = forever.
        var `repeat`: String?
    }
    struct Layer: Encodable { var name: String, opacity: Int, blendMode: String }
    struct Page: Encodable { var image: String, size: Size }
    struct Meta: Encodable {
        var app: String
        var version: String
        var image: String
        var format = "RGBA8888"
        var size: Size
        var scale = "1"
        var frameTags: [Tag]?
        var layers: [Layer]?
        var slices: [String]?
        var pages: [Page]?
        var loopCount: Int?
    }

    var frames: OrderedFrames
    var meta: Meta

    /// A JSON object whose keys keep frame order whatever the encoder's key sorting does.
    struct OrderedFrames: Encodable {
        var entries: [(String, Frame)]
        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            for (name, frame) in entries { try c.encode(frame, forKey: Key(stringValue: name)) }
        }
    }

    init(_ sheet: SpriteSheetDescription, aseprite: Bool) {
        let paged = sheet.images.count > 1
        let size = Size(w: sheet.frameSize.width, h: sheet.frameSize.height)
        frames = OrderedFrames(entries: sheet.frames.enumerated().map { index, frame in
            let r = frame.rect
            return (
                sheet.frameName(index),
                Frame(
                    frame: Rect(x: r.x, y: r.y, w: r.width, h: r.height),
                    spriteSourceSize: Rect(x: 0, y: 0, w: r.width, h: r.height), sourceSize: size,
                    duration: frame.delay * 10, page: paged ? frame.page : nil)
            )
        })
        let first = sheet.images[0]
        meta = Meta(
            app: aseprite ? "https://www.aseprite.org/ (written by gifx)" : "https://www.codeandweb.com/texturepacker (written by gifx)",
            version: aseprite ? "1.3" : "1.0", image: first.name,
            size: Size(w: first.size.width, h: first.size.height))
        if aseprite {
            meta.frameTags = [
                Tag(name: sheet.name, from: 0, to: sheet.frames.count - 1, repeat: sheet.plays.map(String.init))
            ]
            meta.layers = [Layer(name: "Layer", opacity: 255, blendMode: "normal")]
            meta.slices = []
        }
        if paged {
            meta.pages = sheet.images.map { Page(image: $0.name, size: Size(w: $0.size.width, h: $0.size.height)) }
        }
        meta.loopCount = sheet.loopCount
    }
}
