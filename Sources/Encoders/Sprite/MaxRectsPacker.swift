import GifxTimeline

/// One bin of Jukka Jylänki's MaxRects packer (juj/RectangleBinPack, MaxRectsBinPack.cpp), with the
/// best-short-side-fit rule and free-rectangle pruning, without rotation (the engines' JSON could say
/// `rotated`, but Godot's AtlasTexture cannot).
///
/// Rects are inserted one at a time in cell order (the online variant), so each page holds a contiguous
/// run of cells and the writer needs only one page in memory; a rect that no free rectangle fits returns
/// `nil`, and the caller starts the next page.
package struct MaxRectsBin: Sendable {
    package let width: Int, height: Int
    private var free: [PixelRect]
    private var newFree: [PixelRect] = []
    /// The bottom-right extent of everything placed (the page is cropped to it).
    package private(set) var usedWidth = 0, usedHeight = 0

    package init(width: Int, height: Int) {
        self.width = width
        self.height = height
        free = [PixelRect(x: 0, y: 0, width: width, height: height)]
    }

    /// Places a `width`×`height` rect at the free position whose shorter leftover side is smallest (ties:
    /// the longer leftover side), and returns its top-left; `nil` when it fits nowhere.
    package mutating func insert(width w: Int, height h: Int) -> (x: Int, y: Int)? {
        var best: PixelRect?
        var bestShort = Int.max, bestLong = Int.max
        for rect in free where rect.width >= w && rect.height >= h {
            let leftoverH = rect.width - w, leftoverV = rect.height - h
            let short = min(leftoverH, leftoverV), long = max(leftoverH, leftoverV)
            if short < bestShort || (short == bestShort && long < bestLong) {
                best = PixelRect(x: rect.x, y: rect.y, width: w, height: h)
                bestShort = short
                bestLong = long
            }
        }
        guard let node = best else { return nil }
        place(node)
        usedWidth = max(usedWidth, node.x + w)
        usedHeight = max(usedHeight, node.y + h)
        return (node.x, node.y)
    }

    /// Splits every free rectangle `used` overlaps into up to four maximal ones, then prunes.
    private mutating func place(_ used: PixelRect) {
        newFree.removeAll(keepingCapacity: true)
        var index = 0
        while index < free.count {
            if split(free[index], by: used) {
                free.swapAt(index, free.count - 1)
                free.removeLast()
            } else {
                index += 1
            }
        }
        pruneFreeList()
    }

    /// Adds the parts of `rect` outside `used` to `newFree`; false when they do not intersect.
    private mutating func split(_ rect: PixelRect, by used: PixelRect) -> Bool {
        if used.x >= rect.x + rect.width || used.x + used.width <= rect.x
            || used.y >= rect.y + rect.height || used.y + used.height <= rect.y
        {
            return false
        }
        if used.x < rect.x + rect.width && used.x + used.width > rect.x {
            if used.y > rect.y && used.y < rect.y + rect.height {  // above
                insertNewFree(PixelRect(x: rect.x, y: rect.y, width: rect.width, height: used.y - rect.y))
            }
            if used.y + used.height < rect.y + rect.height {  // below
                insertNewFree(PixelRect(
                    x: rect.x, y: used.y + used.height, width: rect.width,
                    height: rect.y + rect.height - (used.y + used.height)))
            }
        }
        if used.y < rect.y + rect.height && used.y + used.height > rect.y {
            if used.x > rect.x && used.x < rect.x + rect.width {  // left
                insertNewFree(PixelRect(x: rect.x, y: rect.y, width: used.x - rect.x, height: rect.height))
            }
            if used.x + used.width < rect.x + rect.width {  // right
                insertNewFree(PixelRect(
                    x: used.x + used.width, y: rect.y, width: rect.x + rect.width - (used.x + used.width),
                    height: rect.height))
            }
        }
        return true
    }

    /// Keeps `newFree` free of rects contained in one another (as juj's InsertNewFreeRectangle).
    private mutating func insertNewFree(_ rect: PixelRect) {
        var i = 0
        while i < newFree.count {
            if contains(newFree[i], rect) { return }
            if contains(rect, newFree[i]) {
                newFree.swapAt(i, newFree.count - 1)
                newFree.removeLast()
            } else {
                i += 1
            }
        }
        newFree.append(rect)
    }

    /// Drops new free rects contained in an old one; the old ones cannot contain one another.
    private mutating func pruneFreeList() {
        for old in free {
            var j = 0
            while j < newFree.count {
                if contains(old, newFree[j]) {
                    newFree.swapAt(j, newFree.count - 1)
                    newFree.removeLast()
                } else {
                    j += 1
                }
            }
        }
        free += newFree
        newFree.removeAll(keepingCapacity: true)
    }

    private func contains(_ outer: PixelRect, _ inner: PixelRect) -> Bool {
        inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.width <= outer.x + outer.width
            && inner.y + inner.height <= outer.y + outer.height
    }
}
