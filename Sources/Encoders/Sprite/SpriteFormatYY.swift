import GifxTimeline

/// `gifx.sprite/1`: the YY sprite protocol (`contentsRectForFrame`, `animatedImageDurationAtIndex`,
/// `animatedImageLoopCount`) with nothing left to compute. `loopCount` and `plays` are always present
/// (`null` has a meaning); `cellsSaved` only when deduplicating.
extension SpriteSheetDescription {
    func writeYY(to out: TextOutput) throws {
        // One play, exact (the sum of the resolved delays, not of their whole cs).
        var total = MediaTime.zero
        for index in 0..<frameCount { total = (try? MediaTime.adding(total, frame(index).duration)) ?? total }
        try out.write("{\n  \"schema\": \"gifx.sprite/1\",\n  \"images\": [")
        for (k, image) in images.enumerated() {
            try out.write(k == 0 ? "\n" : ",\n")
            try out.write("    {\"name\": \(jsonQuoted(image.name)), \"width\": \(image.size.width), \"height\": \(image.size.height)}")
        }
        try out.write("\n  ],\n")
        try out.write("  \"frameSize\": {\"width\": \(frameSize.width), \"height\": \(frameSize.height)},\n")
        try out.write("  \"sourceSize\": {\"width\": \(sourceSize.width), \"height\": \(sourceSize.height)},\n")
        try out.write("  \"padding\": \(padding),\n  \"extrude\": \(extrude),\n  \"policy\": \(jsonQuoted(policy.rawValue)),\n")
        try out.write("  \"loopCount\": \(loopCount.map(String.init) ?? "null"),\n")
        try out.write("  \"plays\": \(plays.map(String.init) ?? "null"),\n")
        try out.write("  \"duration\": \(total.seconds),\n")
        if let cellsSaved { try out.write("  \"cellsSaved\": \(cellsSaved),\n") }
        try out.write("  \"frames\": [")
        for index in 0..<frameCount {
            let f = frame(index)
            let size = images[f.page].size
            let w = Double(size.width), h = Double(size.height), r = f.rect
            try out.write(index == 0 ? "\n    " : ",\n    ")
            try out.write(
                "{\"index\": \(index), \"page\": \(f.page), \"image\": \(jsonQuoted(images[f.page].name)), "
                    + "\"rect\": {\"x\": \(r.x), \"y\": \(r.y), \"width\": \(r.width), \"height\": \(r.height)}, "
                    + "\"contentsRect\": {\"x\": \(Double(r.x) / w), \"y\": \(Double(r.y) / h), "
                    + "\"width\": \(Double(r.width) / w), \"height\": \(Double(r.height) / h)}, "
                    + "\"duration\": \(f.duration.seconds), \"delay\": \(f.delay)}")
        }
        try out.write("\n  ]\n}\n")
    }
}
