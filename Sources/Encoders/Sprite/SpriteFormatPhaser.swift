import Foundation
import GifxTimeline

/// Phaser 3's multi-atlas (`this.load.multiatlas(key, url)`): `textures[]`, one per page with its
/// `image`, `size` and the `frames` on it (TexturePacker array entries with `filename`). Phaser copies
/// each frame object into `Frame.customData`, so the per-frame `duration` (ms) is there for animations.
extension SpriteSheetDescription {
    func writePhaser(to out: TextOutput) throws {
        let groups = framesByPage()
        try out.write("{\"textures\": [")
        for (page, image) in images.enumerated() {
            try out.write(page == 0 ? "\n{" : ",\n{")
            try out.write("\"image\": \(jsonQuoted(image.name)), \"format\": \"RGBA8888\", \"size\": \(wh(image.size)), \"scale\": 1, \"frames\": [")
            for (n, position) in (groups.starts[page]..<groups.starts[page + 1]).enumerated() {
                let index = Int(groups.order[position])
                try out.write(n == 0 ? "\n  " : ",\n  ")
                try out.write("{\"filename\": \(jsonQuoted(frameName(index))), \(frameFields(frame(index)))}")
            }
            try out.write("\n]}")
        }
        try out.write(
            "\n],\n\"meta\": {\"app\": \"https://www.codeandweb.com/texturepacker\", "
                + "\"version\": \"3.0 (written by gifx)\", \"scale\": \"1\"}\n}\n")
    }
}
