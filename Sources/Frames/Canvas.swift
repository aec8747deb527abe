import GifxTimeline

/// One composited canvas: what a viewer sees while GIF frame `index` is displayed.
/// Pixels are 8-bit RGBA, straight (not premultiplied) alpha, rows `width * 4` bytes apart, top row first.
/// Pixels never drawn are transparent (0, 0, 0, 0). The bytes are valid only inside the closure they are lent to.
package struct Canvas {
    package let index: Int
    package let width: Int
    package let height: Int
    package let pixels: UnsafeRawBufferPointer

    package init(index: Int, width: Int, height: Int, pixels: UnsafeRawBufferPointer) {
        self.index = index; self.width = width; self.height = height; self.pixels = pixels
    }
}
