import Foundation
import GifxTimeline

/// Which description the sprite sheet comes with.
public enum SpriteJSONFormat: String, Codable, Sendable, CaseIterable {
    /// gifx's own (schema `gifx.sprite/1`): what a YYSpriteSheetImage-style player needs (`contentsRect`
    /// in the unit square, durations in seconds, loop count). Grid only.
    case yy
    /// TexturePacker's "JSON (Hash)", PixiJS's `SpritesheetData`: `frames` keyed by name, `animations`,
    /// `meta.related_multi_packs` for further pages (one JSON per page).
    case texturepacker
    /// TexturePacker's "JSON (Array)": `frames` as a list with `filename` (Phaser's `atlas` reads it).
    case texturepackerArray = "texturepacker-array"
    /// Phaser 3's multi-atlas: `textures[]`, one per page, each with its `frames`.
    case phaser
    /// Aseprite's json-hash sheet data: `duration` in ms, `meta.frameTags`. One page.
    case aseprite
    /// A Godot 4 `SpriteFrames` resource (`.tres`): `AtlasTexture` regions, durations relative to `speed`.
    case godot

    /// One document per page (TexturePacker's multipack) rather than one for the whole sheet.
    var documentPerPage: Bool { self == .texturepacker || self == .texturepackerArray }
}

/// Everything the format writers need to know about a finished sheet. Frames are produced on demand by
/// `frame`, so nothing here grows with the frame count.
package struct SpriteSheetDescription {
    package struct Image: Sendable {
        /// Path written into the document (relative to the document's folder).
        package var name: String
        package var size: CanvasSize
        package init(name: String, size: CanvasSize) { self.name = name; self.size = size }
    }

    package struct Frame: Sendable {
        /// The distinct region (cell) showing this frame; aliases share one.
        package var cell: Int
        package var page: Int
        /// The frame's own pixels on its page, top-left origin (trimmed when `trimmed`).
        package var rect: PixelRect
        /// Where `rect`'s pixels sit in the frame (`frameSize`); all of it unless trimmed.
        package var source: PixelRect
        /// Resolved delay in whole centiseconds, for the fields whose schema is in cs (`gifx.sprite/1`'s `delay`,
        /// Godot's frame durations).
        package var delay: Int
        /// The resolved delay, exact (a WebP's ms, an APNG's 1/30 s): the fields in seconds or ms.
        package var duration: MediaTime
        package init(cell: Int, page: Int, rect: PixelRect, source: PixelRect, delay: Int, duration: MediaTime? = nil) {
            self.cell = cell; self.page = page; self.rect = rect; self.source = source; self.delay = delay
            self.duration = duration ?? MediaTime(delay, timescale: 100)
        }
    }

    /// Base for frame and animation names (the input's file name without extension).
    package var name: String
    package var images: [Image]
    package var frameCount: Int
    package var frame: (Int) -> Frame
    package var cellCount: Int
    /// The first frame showing each cell (the cell's own placement comes from that frame).
    package var cellFrame: (Int) -> Frame
    /// The GIF's canvas.
    package var sourceSize: CanvasSize
    /// Frame size on the sheet before trimming (the canvas after resizing).
    package var frameSize: CanvasSize
    package var trimmed: Bool
    package var loopCount: Int?
    package var plays: Int?
    package var policy: TimelinePolicy
    package var padding: Int
    package var extrude: Int
    /// Frames sharing an earlier frame's cell (deduplication), `nil` when deduplication was off.
    package var cellsSaved: Int?

    package init(
        name: String, images: [Image], frameCount: Int, frame: @escaping (Int) -> Frame, cellCount: Int,
        cellFrame: @escaping (Int) -> Frame, sourceSize: CanvasSize, frameSize: CanvasSize, trimmed: Bool,
        loopCount: Int?, plays: Int?, policy: TimelinePolicy, padding: Int, extrude: Int, cellsSaved: Int?
    ) {
        self.name = name; self.images = images; self.frameCount = frameCount; self.frame = frame
        self.cellCount = cellCount; self.cellFrame = cellFrame; self.sourceSize = sourceSize
        self.frameSize = frameSize; self.trimmed = trimmed; self.loopCount = loopCount; self.plays = plays
        self.policy = policy; self.padding = padding; self.extrude = extrude; self.cellsSaved = cellsSaved
    }

    /// Frame names, zero-padded so that sorted keys keep frame order.
    func frameName(_ index: Int) -> String {
        let digits = max(4, String(frameCount - 1).count)
        let number = String(index)
        return "\(name) \(String(repeating: "0", count: max(0, digits - number.count)))\(number)"
    }

    /// Frame indices grouped by page (each group in frame order): `order[starts[k]..<starts[k+1]]` are
    /// page k's. A counting sort: 4 bytes a frame, only for formats that list frames per page.
    func framesByPage() -> (order: [UInt32], starts: [Int]) {
        var starts = [Int](repeating: 0, count: images.count + 1)
        for index in 0..<frameCount { starts[frame(index).page + 1] += 1 }
        for k in 0..<images.count { starts[k + 1] += starts[k] }
        var next = starts
        var order = [UInt32](repeating: 0, count: frameCount)
        for index in 0..<frameCount {
            let page = frame(index).page
            order[next[page]] = UInt32(index)
            next[page] += 1
        }
        return (order, starts)
    }
}

/// The documents a format writes for `jsonPath`: one, or for TexturePacker multipacks `NAME.json` (page 0,
/// the one to load) then `NAME-1.json`, `NAME-2.json`, … listed in its `meta.related_multi_packs`.
package func spriteDocumentPaths(_ jsonPath: String, format: SpriteJSONFormat, pageCount: Int) -> [String] {
    guard format.documentPerPage && pageCount > 1 else { return [jsonPath] }
    let url = URL(fileURLWithPath: jsonPath)
    let ext = url.pathExtension.isEmpty ? "json" : url.pathExtension
    let stem = url.pathExtension.isEmpty ? jsonPath : String(jsonPath.dropLast(ext.count + 1))
    return [jsonPath] + (1..<pageCount).map { "\(stem)-\($0).\(ext)" }
}

extension SpriteSheetDescription {
    /// Streams the `format` document(s) into `outputs` (as many as `spriteDocumentPaths` names).
    func write(_ format: SpriteJSONFormat, to outputs: [TextOutput], documentNames: [String]) throws {
        switch format {
        case .yy: try writeYY(to: outputs[0])
        case .texturepacker, .texturepackerArray, .aseprite:
            try writeTexturePacker(format, to: outputs, documentNames: documentNames)
        case .phaser: try writePhaser(to: outputs[0])
        case .godot: try writeGodot(to: outputs[0])
        }
        for output in outputs { try output.flush() }
    }
}

/// `{"x":…,"y":…,"w":…,"h":…}` (the TexturePacker family's rects).
func xywh(_ r: PixelRect) -> String { "{\"x\":\(r.x),\"y\":\(r.y),\"w\":\(r.width),\"h\":\(r.height)}" }

/// `{"w":…,"h":…}`.
func wh(_ s: CanvasSize) -> String { "{\"w\":\(s.width),\"h\":\(s.height)}" }
