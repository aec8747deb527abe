import Foundation
import GifxTimeline

/// TexturePacker's JSON (hash and array), which PixiJS's `Spritesheet` and Phaser's `atlas` load, and
/// Aseprite's json-hash, which is the same frame layout plus `meta.frameTags`.
///
/// Each frame has `frame` (on the page), `rotated` (always false), `trimmed`, `spriteSourceSize` (where
/// the trimmed pixels sit in the untrimmed frame), `sourceSize` (the untrimmed frame) and `duration` in
/// milliseconds: Aseprite's field; TexturePacker's format has none, and PixiJS users read this one from
/// `sheet.data.frames[name].duration`. Several pages: one document per page (TexturePacker's multipack),
/// each naming the others in `meta.related_multi_packs`, which PixiJS's loader follows.
extension SpriteSheetDescription {
    func writeTexturePacker(_ format: SpriteJSONFormat, to outputs: [TextOutput], documentNames: [String]) throws {
        let aseprite = format == .aseprite
        let array = format == .texturepackerArray
        let groups = images.count > 1 ? framesByPage() : (order: [], starts: [0, frameCount])
        func frameIndex(_ position: Int) -> Int { groups.order.isEmpty ? position : Int(groups.order[position]) }
        for (page, out) in outputs.enumerated() {
            let range = groups.starts[page]..<groups.starts[page + 1]
            try out.write(array ? "{\"frames\": [" : "{\"frames\": {")
            for (n, position) in range.enumerated() {
                let index = frameIndex(position)
                let f = frame(index)
                let name = jsonQuoted(frameName(index))
                try out.write(n == 0 ? "\n  " : ",\n  ")
                try out.write(array ? "{\"filename\": \(name), " : "\(name): {")
                try out.write(frameFields(f))
                try out.write("}")
            }
            try out.write(array ? "\n],\n" : "\n},\n")
            if !aseprite {
                try out.write("\"animations\": {\(jsonQuoted(name)): [")
                for (n, position) in range.enumerated() {
                    try out.write(n == 0 ? "" : n % 8 == 0 ? ",\n  " : ", ")
                    try out.write(jsonQuoted(frameName(frameIndex(position))))
                }
                try out.write("]},\n")
            }
            let image = images[page]
            try out.write("\"meta\": {\n")
            try out.write(
                aseprite
                    ? "  \"app\": \"https://www.aseprite.org/\", \"version\": \"1.3 (written by gifx)\",\n"
                    : "  \"app\": \"https://www.codeandweb.com/texturepacker\", \"version\": \"1.0 (written by gifx)\",\n")
            try out.write("  \"image\": \(jsonQuoted(image.name)), \"format\": \"RGBA8888\", \"size\": \(wh(image.size)), \"scale\": \"1\"")
            if aseprite {
                let repeatField = plays.map { ", \"repeat\": \"\($0)\"" } ?? ""
                try out.write(
                    ",\n  \"frameTags\": [{\"name\": \(jsonQuoted(name)), \"from\": 0, \"to\": \(frameCount - 1), "
                        + "\"direction\": \"forward\", \"color\": \"#000000ff\"\(repeatField)}],\n"
                        + "  \"layers\": [{\"name\": \"Layer\", \"opacity\": 255, \"blendMode\": \"normal\"}],\n"
                        + "  \"slices\": []")
            }
            if outputs.count > 1 {
                let others = documentNames.enumerated().filter { $0.offset != page }.map { jsonQuoted($0.element) }
                try out.write(",\n  \"related_multi_packs\": [\(others.joined(separator: ", "))]")
            }
            try out.write("\n}\n}\n")
        }
    }

    /// The fields every TexturePacker-family frame object carries (no braces).
    func frameFields(_ f: Frame) -> String {
        let trimmedHere = f.source != PixelRect(x: 0, y: 0, width: frameSize.width, height: frameSize.height)
        return "\"frame\": \(xywh(f.rect)), \"rotated\": false, \"trimmed\": \(trimmedHere), "
            + "\"spriteSourceSize\": \(xywh(f.source)), \"sourceSize\": \(wh(frameSize)), \"duration\": \((try? f.duration.milliseconds()) ?? 0)"
    }
}
