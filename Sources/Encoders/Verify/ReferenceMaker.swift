internal import CAV
import GifxFrames
import GifxPipeline
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

    /// Scales with gifx's own `RGBAScaler` (premultiplied, bit-exact), for an output scaled by it.
    private let exactScaler: RGBAScaler?

    /// The output's pixel format, matrix and range when it is YUV: each reference goes through them and back, so the
    /// comparison measures the encoder's loss, not the chroma subsampling every 4:2:0 output shares (which on
    /// saturated pixel-art edges alone costs 20-30 dB of RGB PSNR).
    private var roundTrip: ChromaRoundTrip?

    /// `exactScaling`: scaled with `RGBAScaler`, as the output was (a sprite sheet's cells), so they compare exactly.
    /// `chroma`: the output's YUV format (see `roundTrip`).
    init(
        canvas: CanvasSize, output: CanvasSize, keepAlpha: Bool, background: RGBColor, exactScaling: Bool = false,
        chroma: YUVFormat? = nil
    ) throws {
        self.canvas = canvas
        keepsAlpha = keepAlpha
        self.background = UInt32(background.red) | UInt32(background.green) << 8 | UInt32(background.blue) << 16
            | 0xFF00_0000
        let padded = CanvasSize(width: canvas.width + canvas.width % 2, height: canvas.height + canvas.height % 2)
        let scaling = output != canvas && output != padded
        width = scaling ? output.width : canvas.width
        height = scaling ? output.height : canvas.height
        composited = [UInt8](repeating: 0, count: scaling ? canvas.width * canvas.height * 4 : 0)
        exactScaler = exactScaling && scaling ? try RGBAScaler(from: canvas, to: output) : nil
        if scaling && !exactScaling {
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
        if let chroma {
            // gifx converts an odd canvas padded to even (background, or transparent with alpha): so does the reference.
            let size = scaling ? output : output == padded ? padded : canvas
            roundTrip = try ChromaRoundTrip(width: size.width, height: size.height, format: chroma)
            work = [UInt32](repeating: 0, count: size.width * size.height + 16)
            workSize = size
        }
    }

    private var work: [UInt32] = []
    private var workSize = CanvasSize(width: 0, height: 0)

    deinit { if let scaler { gifx_sws_freeContext(scaler) } }

    var bytes: Int { width * height * 4 }
    /// Whether a reference is the canvas itself (alpha kept, no scaling, no chroma round trip): it can be read in place.
    var isIdentity: Bool { keepsAlpha && scaler == nil && exactScaler == nil && roundTrip == nil }
    /// What a reference buffer is allocated with: libswscale's vector code may write a little past the last
    /// pixel of a packed image.
    var allocationBytes: Int { bytes + 64 }

    /// Writes the reference of `canvas` into `destination` (`bytes` long).
    func make(_ canvas: Canvas, into destination: UnsafeMutablePointer<UInt8>) {
        guard let source = canvas.pixels.baseAddress?.assumingMemoryBound(to: UInt32.self) else { return }
        let count = canvas.width * canvas.height
        if let exactScaler {
            exactScaler.scale(canvas.pixels, into: UnsafeMutableRawPointer(destination), stride: width * 4)
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
        roundTrip(in: destination)
    }

    /// Takes an already made reference through the output's chroma (see `roundTrip`): padded as gifx pads, the colour
    /// under transparent pixels bled from the visible ones as `YUVConverter` does for a VP9 stream with alpha (the
    /// chroma of an edge pixel is shared with its transparent neighbours), then to YUV and back.
    func roundTrip(in pixels: UnsafeMutablePointer<UInt8>) {
        guard let roundTrip else { return }
        let (w, h) = (workSize.width, workSize.height)
        let padding = keepsAlpha ? background & 0x00FF_FFFF : background
        let source = UnsafeMutableRawPointer(pixels).assumingMemoryBound(to: UInt32.self)
        work.withUnsafeMutableBufferPointer { buffer in
            let work = buffer.baseAddress!
            for y in 0..<h {
                let row = work + y * w
                for x in 0..<w { row[x] = y < height && x < width ? source[y * width + x] : UInt32(littleEndian: padding) }
                if keepsAlpha { Self.bleed(row, count: w, empty: UInt32(littleEndian: padding)) }
            }
            roundTrip.apply(UnsafeMutableRawPointer(work).assumingMemoryBound(to: UInt8.self), stride: w * 4)
            for y in 0..<height { (source + y * width).update(from: work + y * w, count: width) }
        }
    }

    /// Transparent pixels take the colour of the last visible pixel before them in the row (the leading run, of the
    /// first visible one), alpha kept at 0; a row with nothing visible takes `empty`.
    private static func bleed(_ row: UnsafeMutablePointer<UInt32>, count: Int, empty: UInt32) {
        var colour: UInt32?
        var leading = 0
        for x in 0..<count {
            let pixel = UInt32(littleEndian: row[x])
            if pixel >> 24 != 0 {
                if colour == nil { for i in 0..<leading { row[i] = UInt32(littleEndian: pixel & 0x00FF_FFFF) } }
                colour = pixel & 0x00FF_FFFF
            } else if let colour {
                row[x] = UInt32(littleEndian: colour)
            } else {
                leading += 1
            }
        }
        if colour == nil { row.update(repeating: empty, count: count) }
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
/// stand-alone verifier, or, in a verifying conversion, the conversion's own canvases handed over by a sink.
protocol CanvasFeed: AnyObject {
    /// Lends the next canvas to `body`; false when there is none (yet).
    func next(_ body: (Canvas) throws -> Void) throws -> Bool
}

/// `CanvasFeed` over the GIF file: one `FrameStream` pass per play.
final class StreamCanvasFeed: CanvasFeed {
    private let path: String
    private let metadata: AnimationMetadata
    private let settings: RunSettings
    private var stream: FrameStream?
    private var delivered = 0

    init(path: String, metadata: AnimationMetadata, settings: RunSettings) {
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
                threads: settings.decodeThreads(for: metadata))
            delivered = 0
        }
        guard let stream, try stream.nextCanvas(body) != nil else { return false }
        delivered += 1
        return true
    }
}

/// A YUV output's pixel format (an AVPixelFormat), matrix (an AVColorSpace) and range.
struct YUVFormat {
    var pixelFormat: Int32
    var colorSpace: Int32
    var fullRange: Bool
}

/// RGBA → the output's YUV format → RGBA, in place, with the same libswscale conversions the output's frames go
/// through when they are read back (`RGBAFrameConverter`).
final class ChromaRoundTrip {
    private let forward: OpaquePointer
    private let backward: OpaquePointer
    private var frame: UnsafeMutablePointer<AVFrame>?
    private let height: Int

    init(width: Int, height: Int, format: YUVFormat) throws {
        try Libav.require(GIFX_AV_ENCODER)
        self.height = height
        let pixelFormat = AVPixelFormat(format.pixelFormat)
        guard let forward = gifx_sws_getContext(
            Int32(width), Int32(height), AV_PIX_FMT_RGBA, Int32(width), Int32(height), pixelFormat,
            SWS_BICUBIC, nil, nil, nil),
            let backward = gifx_sws_getContext(
                Int32(width), Int32(height), pixelFormat, Int32(width), Int32(height), AV_PIX_FMT_RGBA,
                Int32(SWS_BICUBIC | SWS_FULL_CHR_H_INT | SWS_ACCURATE_RND), nil, nil, nil),
            let frame = gifx_av_frame_alloc()
        else { throw LibavError("setting up the reference's chroma round trip") }
        self.forward = forward
        self.backward = backward
        self.frame = frame
        _ = gifx_sws_from_rgb(forward, format.colorSpace, format.fullRange ? 1 : 0)
        _ = gifx_sws_to_rgb(backward, format.colorSpace, format.fullRange ? 1 : 0)
        frame.pointee.format = format.pixelFormat
        frame.pointee.width = Int32(width)
        frame.pointee.height = Int32(height)
        if gifx_av_frame_get_buffer(frame, 0) < 0 { throw LibavError("allocating the reference's YUV frame") }
    }

    deinit {
        gifx_sws_freeContext(forward)
        gifx_sws_freeContext(backward)
        gifx_av_frame_free(&frame)
    }

    func apply(_ pixels: UnsafeMutablePointer<UInt8>, stride: Int) {
        guard let frame else { return }
        _ = gifx_sws_scale_packed_slice(forward, pixels, Int32(stride), 0, Int32(height), frame)
        _ = gifx_sws_scale_to_packed(backward, frame, pixels, Int32(stride))
    }
}
