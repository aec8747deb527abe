internal import CAV
import GifxFrames
import GifxTimeline

/// Turns a composited GIF canvas into what an output of a given geometry should show: over the background
/// when the output has no alpha (as every gifx encoder composites), then scaled the way gifx scales (libswscale,
/// area when shrinking, lanczos when growing) when the output's size is neither the canvas nor the canvas padded to
/// even. A padded output is compared on the canvas region only, so the reference stays at the canvas size.
final class ReferenceMaker {
    let canvas: CanvasSize
    /// The reference's size, which is the region compared.
    let width: Int
    let height: Int
    let keepsAlpha: Bool
    private let background: UInt32
    private let scaler: OpaquePointer?
    private var composited: [UInt8]

    /// Scales with the sprite sheet's own `RGBAScaler` (premultiplied, bit-exact), for a sheet's cells.
    private let sheetScaler: RGBAScaler?

    /// `sheet`: a sprite sheet's cells, scaled as to-sprite scales them (so gifx's scaled sheets compare exactly).
    init(canvas: CanvasSize, output: CanvasSize, keepAlpha: Bool, background: RGBColor, sheet: Bool = false) throws {
        self.canvas = canvas
        keepsAlpha = keepAlpha
        self.background = UInt32(background.red) | UInt32(background.green) << 8 | UInt32(background.blue) << 16
            | 0xFF00_0000
        let padded = CanvasSize(width: canvas.width + canvas.width % 2, height: canvas.height + canvas.height % 2)
        let scaling = output != canvas && output != padded
        width = scaling ? output.width : canvas.width
        height = scaling ? output.height : canvas.height
        composited = [UInt8](repeating: 0, count: scaling ? canvas.width * canvas.height * 4 : 0)
        sheetScaler = sheet && scaling ? try RGBAScaler(from: canvas, to: output) : nil
        if scaling && !sheet {
            try Libav.require(GIFX_AV_SCALER)
            let shrinking = output.width * output.height < canvas.width * canvas.height
            guard let context = gifx_sws_getContext(
                Int32(canvas.width), Int32(canvas.height), AV_PIX_FMT_RGBA, Int32(output.width), Int32(output.height),
                AV_PIX_FMT_RGBA, shrinking ? SWS_AREA : SWS_LANCZOS, nil, nil, nil)
            else { throw LibavError("creating the reference scaler") }
            scaler = context
        } else {
            scaler = nil
        }
    }

    deinit { if let scaler { gifx_sws_freeContext(scaler) } }

    var bytes: Int { width * height * 4 }
    /// What a reference buffer is allocated with: libswscale's vector code may write a little past the last
    /// pixel of a packed image.
    var allocationBytes: Int { bytes + 64 }

    /// Writes the reference of `canvas` into `destination` (`bytes` long).
    func make(_ canvas: Canvas, into destination: UnsafeMutablePointer<UInt8>) {
        guard let source = canvas.pixels.baseAddress?.assumingMemoryBound(to: UInt32.self) else { return }
        let count = canvas.width * canvas.height
        if let sheetScaler {
            sheetScaler.scale(canvas.pixels, into: UnsafeMutableRawPointer(destination), stride: width * 4)
        } else if let scaler {
            composited.withUnsafeMutableBytes { buffer in
                let target = buffer.baseAddress!.assumingMemoryBound(to: UInt32.self)
                composite(source, into: target, count: count)
                _ = gifx_sws_scale_packed_to_packed(
                    scaler, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(canvas.width * 4),
                    Int32(canvas.height), destination, Int32(width * 4))
            }
        } else {
            composite(source, into: UnsafeMutableRawPointer(destination).assumingMemoryBound(to: UInt32.self), count: count)
        }
    }

    private func composite(_ source: UnsafePointer<UInt32>, into target: UnsafeMutablePointer<UInt32>, count: Int) {
        if keepsAlpha {
            target.update(from: source, count: count)
            return
        }
        let background = self.background
        for i in 0..<count {
            let pixel = UInt32(littleEndian: source[i])
            let alpha = pixel >> 24
            target[i] = UInt32(littleEndian: alpha == 255 ? pixel
                : alpha == 0 ? background : YUVConverter.blend(pixel, over: background, alpha: alpha))
        }
    }
}

/// The GIF's composited canvases, one play after another for as long as they are asked for (a video of
/// several plays holds the animation several times): each play is one pass of a fresh `FrameStream` in the
/// stand-alone verifier, or, under `--verify`, the conversion's own canvases handed over by a sink.
protocol CanvasFeed: AnyObject {
    /// Lends the next canvas to `body`; false when there is none (yet).
    func next(_ body: (Canvas) throws -> Void) throws -> Bool
}

/// `CanvasFeed` over the GIF file: one `FrameStream` pass per play.
final class StreamCanvasFeed: CanvasFeed {
    private let path: String
    private let metadata: GifMetadata
    private let settings: RunSettings
    private var stream: FrameStream?
    private var delivered = 0

    init(path: String, metadata: GifMetadata, settings: RunSettings) {
        self.path = path
        self.metadata = metadata
        self.settings = settings
    }

    deinit { stream?.close() }

    func next(_ body: (Canvas) throws -> Void) throws -> Bool {
        if stream == nil || delivered == metadata.images.count {
            stream?.close()
            stream = try FrameStream(
                path: path, metadata: metadata, limits: settings.limits, memoryBudget: settings.memoryBudget,
                threads: settings.threads)
            delivered = 0
        }
        guard let stream, try stream.nextCanvas(body) != nil else { return false }
        delivered += 1
        return true
    }
}
