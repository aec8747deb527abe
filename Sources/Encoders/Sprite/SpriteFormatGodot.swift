import Foundation
import GifxTimeline

/// A Godot 4 `SpriteFrames` resource in the text format (`.tres`, `format=3`), loaded with
/// `load("res://…/Y.tres")` and given to an `AnimatedSprite2D`: one `ext_resource` Texture2D per page
/// (paths relative to the `.tres`, which Godot resolves against its folder), one `AtlasTexture`
/// sub-resource per distinct cell (aliases share it) with its `region`, and for trimmed cells a `margin`
/// whose position is the trim offset and whose size is what was cut, so the texture keeps the untrimmed
/// size. Godot shows a frame for `duration / speed` seconds: `speed` is 100 / g fps and each duration
/// delay / g, with g the greatest common divisor of the delays (centiseconds), so both stay exact.
extension SpriteSheetDescription {
    func writeGodot(to out: TextOutput) throws {
        var divisor = 0
        for index in 0..<frameCount { divisor = gcd(divisor, frame(index).delay) }
        if divisor == 0 { divisor = 1 }
        try out.write("[gd_resource type=\"SpriteFrames\" load_steps=\(images.count + cellCount + 1) format=3]\n\n")
        for (page, image) in images.enumerated() {
            try out.write("[ext_resource type=\"Texture2D\" path=\(jsonQuoted(image.name)) id=\"\(page + 1)_page\"]\n")
        }
        for cell in 0..<cellCount {
            let f = cellFrame(cell)
            let r = f.rect, s = f.source
            try out.write("\n[sub_resource type=\"AtlasTexture\" id=\"AtlasTexture_\(cell)\"]\n")
            try out.write("atlas = ExtResource(\"\(f.page + 1)_page\")\n")
            try out.write("region = Rect2(\(r.x), \(r.y), \(r.width), \(r.height))\n")
            if s.width != frameSize.width || s.height != frameSize.height {
                try out.write(
                    "margin = Rect2(\(s.x), \(s.y), \(frameSize.width - s.width), \(frameSize.height - s.height))\n")
            }
        }
        try out.write("\n[resource]\nanimations = [{\n\"frames\": [")
        for index in 0..<frameCount {
            let f = frame(index)
            try out.write(index == 0 ? "{\n" : ", {\n")
            try out.write("\"duration\": \(Double(f.delay / divisor)),\n\"texture\": SubResource(\"AtlasTexture_\(f.cell)\")\n}")
        }
        try out.write("],\n\"loop\": \(plays == nil),\n\"name\": &\(jsonQuoted(name)),\n\"speed\": \(100.0 / Double(divisor))\n}]\n")
    }
}

private func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
