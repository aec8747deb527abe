internal import CAV
import Frames
import Timeline

/// Turns straight-alpha RGBA canvases into the encoder's yuv420p frames: composites every pixel over the
/// background, pads an odd canvas to even with that colour (no scaling for that), then lets libswscale
/// resize (area when shrinking, lanczos when growing) and convert with the BT.709 matrix to limited range.
/// Works a slice of rows at a time, so its own buffer is a few rows, not a canvas.
final class YUVConverter {
    let canvasWidth: Int
    let canvasHeight: Int
    /// swscale's source size: the canvas, padded to even when not scaling.
    let sourceWidth: Int
    let sourceHeight: Int
    let outputWidth: Int
    let outputHeight: Int
    private let background: UInt32
    private let context: OpaquePointer
    private let slice: UnsafeMutablePointer<UInt32>
    private static let sliceRows = 16

    /// `output` is even on both sides. When it equals the canvas rounded up to even, the extra column/row is
    /// padding; otherwise the canvas is scaled to it.
    init(canvas: CanvasSize, output: CanvasSize, background: RGBColor) throws {
        canvasWidth = canvas.width
        canvasHeight = canvas.height
        outputWidth = output.width
        outputHeight = output.height
        let padded = CanvasSize(width: canvas.width + canvas.width % 2, height: canvas.height + canvas.height % 2)
        let scaling = padded != output
        sourceWidth = scaling ? canvas.width : padded.width
        sourceHeight = scaling ? canvas.height : padded.height
        self.background = UInt32(background.red) | UInt32(background.green) << 8 | UInt32(background.blue) << 16
            | 0xFF00_0000
        let flags: Int32
        if !scaling {
            flags = SWS_BICUBIC  // same size: only the chroma subsampling filter, as the ffmpeg CLI does
        } else if output.width * output.height < canvas.width * canvas.height {
            flags = SWS_AREA
        } else {
            flags = SWS_LANCZOS
        }
        guard let context = gifx_sws_getContext(
            Int32(sourceWidth), Int32(sourceHeight), AV_PIX_FMT_RGBA, Int32(outputWidth), Int32(outputHeight),
            AV_PIX_FMT_YUV420P, flags, nil, nil, nil)
        else {
            throw MP4Error("creating the \(sourceWidth)x\(sourceHeight) to \(outputWidth)x\(outputHeight) scaler")
        }
        self.context = context
        slice = .allocate(capacity: Self.sliceRows * sourceWidth)
        if gifx_sws_use_bt709(context) < 0 {  // fully initialized: deinit frees both
            throw MP4Error("setting the BT.709 matrix on the scaler")
        }
    }

    deinit {
        gifx_sws_freeContext(context)
        slice.deallocate()
    }

    /// Converts `canvas` (which must be `canvasWidth` × `canvasHeight`) into `frame`'s planes.
    func convert(_ canvas: Canvas, into frame: UnsafeMutablePointer<AVFrame>) throws {
        precondition(canvas.width == canvasWidth && canvas.height == canvasHeight, "canvas size changed")
        guard let pixels = canvas.pixels.baseAddress else { return }
        let canvasPixels = pixels.assumingMemoryBound(to: UInt32.self)
        var y = 0
        while y < sourceHeight {
            let rows = min(Self.sliceRows, sourceHeight - y)
            let source: UnsafePointer<UInt32>
            if sourceWidth == canvasWidth && y + rows <= canvasHeight
                && Self.isOpaque(canvasPixels + y * canvasWidth, count: rows * canvasWidth)
            {
                // Nothing to blend or pad: swscale reads the canvas rows in place (same bytes, no copy).
                source = canvasPixels + y * canvasWidth
            } else {
                for row in 0..<rows {
                    composite(row: y + row, from: pixels, into: slice + row * sourceWidth)
                }
                source = UnsafePointer(slice)
            }
            let produced = gifx_sws_scale_packed_slice(
                context, UnsafeRawPointer(source).assumingMemoryBound(to: UInt8.self), Int32(sourceWidth * 4),
                Int32(y), Int32(rows), frame)
            if produced < 0 { throw MP4Error("converting to yuv420p", code: produced) }
            y += rows
        }
    }

    /// Whether every pixel of `count` has alpha 255 (a branch-free AND over the run, which vectorizes).
    @inline(__always)
    static func isOpaque(_ pixels: UnsafePointer<UInt32>, count: Int) -> Bool {
        var all: UInt32 = 0xFFFF_FFFF
        for x in 0..<count { all &= pixels[x] }
        return UInt32(littleEndian: all) >> 24 == 0xFF
    }

    /// One source row: canvas pixels over the background, then padding (background) to `sourceWidth`.
    @inline(__always)
    private func composite(row: Int, from pixels: UnsafeRawPointer, into destination: UnsafeMutablePointer<UInt32>) {
        let background = self.background
        guard row < canvasHeight else {
            destination.update(repeating: background, count: sourceWidth)
            return
        }
        let source = (pixels + row * canvasWidth * 4).assumingMemoryBound(to: UInt32.self)
        for x in 0..<canvasWidth {
            let pixel = UInt32(littleEndian: source[x])
            let alpha = pixel >> 24
            if alpha == 255 {
                destination[x] = pixel
            } else if alpha == 0 {
                destination[x] = background
            } else {
                destination[x] = Self.blend(pixel, over: background, alpha: alpha)
            }
        }
        if sourceWidth > canvasWidth {
            (destination + canvasWidth).update(repeating: background, count: sourceWidth - canvasWidth)
        }
    }

    /// Straight-alpha "over": each channel `(s·a + b·(255−a)) / 255`, rounded, fully opaque.
    @inline(__always)
    static func blend(_ pixel: UInt32, over background: UInt32, alpha: UInt32) -> UInt32 {
        @inline(__always) func channel(_ shift: UInt32) -> UInt32 {
            let s = (pixel >> shift) & 0xFF, b = (background >> shift) & 0xFF
            let t = s * alpha + b * (255 - alpha) + 128
            return ((t + (t >> 8)) >> 8) << shift
        }
        return 0xFF00_0000 | channel(0) | channel(8) | channel(16)
    }
}
