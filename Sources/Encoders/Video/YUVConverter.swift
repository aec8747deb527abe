internal import CAV
import GifxFrames
import GifxPipeline
import GifxTimeline

/// Turns straight-alpha RGBA canvases into the encoder's yuv420p frames: composites every pixel over the
/// background, pads an odd canvas to even with that colour (no scaling for that), then lets libswscale
/// resize (area when shrinking, lanczos when growing) and convert with the BT.709 matrix to limited range.
/// With `keepAlpha` (VP9 in WebM) the output is yuva420p instead: alpha is kept (the padding is transparent)
/// and each transparent pixel takes the colour of the nearest opaque pixel before it in its row (after it,
/// for a row's leading run; the background in an empty row), so chroma subsampling and the lossy alpha
/// plane do not pull a dark or background fringe into the edges of what is visible.
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
    /// yuva420p out, transparency kept (see the type's comment).
    let keepsAlpha: Bool
    private let context: OpaquePointer
    private let slice: UnsafeMutablePointer<UInt32>
    private static let sliceRows = 16

    /// When `output` equals the canvas, or the canvas rounded up to even (the extra column/row is padding),
    /// nothing is scaled; otherwise the canvas is scaled to it.
    /// `jpeg`: yuvj420p (yuvj444p with `fullChroma`) with the BT.601 matrix at full range instead (JFIF's
    /// colours), for a `.jpg` poster.
    init(
        canvas: CanvasSize, output: CanvasSize, background: RGBColor, keepAlpha: Bool = false, jpeg: Bool = false,
        fullChroma: Bool = false
    ) throws {
        keepsAlpha = keepAlpha
        canvasWidth = canvas.width
        canvasHeight = canvas.height
        outputWidth = output.width
        outputHeight = output.height
        let padded = CanvasSize(width: canvas.width + canvas.width % 2, height: canvas.height + canvas.height % 2)
        let scaling = output != canvas && output != padded
        sourceWidth = scaling ? canvas.width : output.width
        sourceHeight = scaling ? canvas.height : output.height
        self.background = UInt32(background.red) | UInt32(background.green) << 8 | UInt32(background.blue) << 16
            | (keepAlpha ? 0 : 0xFF00_0000)
        let flags: Int32
        if !scaling {
            flags = SWS_BICUBIC  // same size: only the chroma subsampling filter, as the ffmpeg CLI does
        } else if output.width * output.height < canvas.width * canvas.height {
            flags = SWS_AREA
        } else {
            flags = SWS_LANCZOS
        }
        let format = jpeg ? (fullChroma ? AV_PIX_FMT_YUVJ444P : AV_PIX_FMT_YUVJ420P)
            : keepAlpha ? AV_PIX_FMT_YUVA420P : AV_PIX_FMT_YUV420P
        guard let context = gifx_sws_getContext(
            Int32(sourceWidth), Int32(sourceHeight), AV_PIX_FMT_RGBA, Int32(outputWidth), Int32(outputHeight),
            format, flags, nil, nil, nil)
        else {
            throw LibavError("creating the \(sourceWidth)x\(sourceHeight) to \(outputWidth)x\(outputHeight) scaler")
        }
        self.context = context
        slice = .allocate(capacity: Self.sliceRows * sourceWidth)
        let matrixSet = jpeg ? gifx_sws_use_jpeg(context) : gifx_sws_use_bt709(context)
        if matrixSet < 0 {  // fully initialized: deinit frees both
            throw LibavError("setting the colour matrix on the scaler")
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
                && Transparency.isOpaque(canvasPixels + y * canvasWidth, count: rows * canvasWidth)
            {
                // Nothing to blend or pad: swscale reads the canvas rows in place (same bytes, no copy).
                source = canvasPixels + y * canvasWidth
            } else {
                for row in 0..<rows {
                    if keepsAlpha {
                        bleed(row: y + row, from: pixels, into: slice + row * sourceWidth)
                    } else {
                        composite(row: y + row, from: pixels, into: slice + row * sourceWidth)
                    }
                }
                source = UnsafePointer(slice)
            }
            let produced = gifx_sws_scale_packed_slice(
                context, UnsafeRawPointer(source).assumingMemoryBound(to: UInt8.self), Int32(sourceWidth * 4),
                Int32(y), Int32(rows), frame)
            if produced < 0 { throw LibavError("converting to \(keepsAlpha ? "yuva420p" : "yuv420p")", code: produced) }
            y += rows
        }
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

    /// One source row with its alpha kept: every transparent pixel (alpha 0) takes the colour of the last
    /// visible pixel before it in the row, the row's leading run that of its first visible pixel, with alpha
    /// 0; visible pixels are copied; padding to `sourceWidth` is transparent.
    private func bleed(row: Int, from pixels: UnsafeRawPointer, into destination: UnsafeMutablePointer<UInt32>) {
        let background = self.background  // alpha 0 in this mode
        guard row < canvasHeight else {
            destination.update(repeating: background, count: sourceWidth)
            return
        }
        let source = (pixels + row * canvasWidth * 4).assumingMemoryBound(to: UInt32.self)
        var colour: UInt32? = nil
        var leading = 0
        for x in 0..<canvasWidth {
            let pixel = UInt32(littleEndian: source[x])
            if pixel >> 24 != 0 {
                if colour == nil {
                    let first = pixel & 0x00FF_FFFF
                    destination.update(repeating: UInt32(littleEndian: first), count: leading)
                }
                colour = pixel & 0x00FF_FFFF
                destination[x] = source[x]
            } else if let colour {
                destination[x] = UInt32(littleEndian: colour)
            } else {
                leading += 1
            }
        }
        if colour == nil { destination.update(repeating: background, count: canvasWidth) }
        if sourceWidth > canvasWidth {
            let edge = colour.map { UInt32(littleEndian: $0) } ?? background
            (destination + canvasWidth).update(repeating: edge, count: sourceWidth - canvasWidth)
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
