import GifxTimeline

/// One composited canvas: what a viewer sees while GIF frame `index` is displayed.
/// Pixels are 8-bit RGBA, straight (not premultiplied) alpha, rows `width * 4` bytes apart, top row first.
/// Pixels never drawn are transparent (0, 0, 0, 0). The bytes are valid only inside the closure they are lent to.
public struct Canvas {
    public let index: Int
    public let width: Int
    public let height: Int
    public let pixels: UnsafeRawBufferPointer

    public init(index: Int, width: Int, height: Int, pixels: UnsafeRawBufferPointer) {
        self.index = index; self.width = width; self.height = height; self.pixels = pixels
    }
}
