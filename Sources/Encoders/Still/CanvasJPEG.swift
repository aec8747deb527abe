internal import CAV
import GifxFrames
import GifxPOSIXFiles
import GifxPipeline
import SystemPackage
import GifxTimeline

#if canImport(Glibc)
import Glibc
#endif

/// A `.jpg` poster's settings.
public struct JPEGOptions: Sendable, Hashable {
    /// 1...100, as image tools take it (90 by default): mapped onto libavcodec's MJPEG quantiser scale.
    public var quality: Int
    /// What transparent pixels show: JPEG has no alpha (the same background colour as the video).
    public var background: RGBColor

    public init(quality: Int = 90, background: RGBColor = .white) {
        self.quality = quality
        self.background = background
    }

    /// libavcodec's `qscale` for `quality`: 100 → 1 (finest) ... 1 → 31 (coarsest), linear between.
    var quantiser: Int { 1 + (100 - min(100, max(1, quality))) * 30 / 99 }
}

/// Writes one composited canvas as a baseline JFIF JPEG through libavcodec's MJPEG encoder (one intra
/// frame is exactly a JPEG file): composited over the background, BT.601 full range as JFIF has it, at the
/// canvas's own size, to the open file `fd` (`path` names it in errors). Chroma is 4:2:0, or 4:4:4 when a
/// side is odd: libavcodec's MJPEG encoder gets the last chroma column of an odd-width 4:2:0 picture
/// wrong (measured: pure red at the right edge decodes as 188,28,30 with the ffmpeg CLI too).
func writeCanvasJPEG(_ canvas: Canvas, options: JPEGOptions, fileDescriptor fd: Int32, path: String) throws {
    try Libav.require(GIFX_AV_ENCODER)
    gifx_av_log_set_level(AV_LOG_QUIET)
    let size = CanvasSize(width: canvas.width, height: canvas.height)
    let fullChroma = canvas.width % 2 == 1 || canvas.height % 2 == 1
    let converter = try YUVConverter(
        canvas: size, output: size, background: options.background, jpeg: true, fullChroma: fullChroma)
    let encoder = try StillEncoder(
        name: "mjpeg", width: canvas.width, height: canvas.height, quantiser: options.quantiser,
        format: fullChroma ? AV_PIX_FMT_YUVJ444P : AV_PIX_FMT_YUVJ420P)
    try converter.convert(canvas, into: encoder.frame)
    try encoder.encode { packet in
        do throws(Errno) {
            try POSIXFiles.writeAll(
                FileDescriptor(rawValue: fd), UnsafeRawBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size)))
        } catch {
            throw OutputError.writing(path, errno: error.rawValue)
        }
    }
}

/// One libavcodec image encoder opened for a single full-range YUV frame at a fixed quantiser.
private final class StillEncoder {
    private let handles: EncoderHandles
    var frame: UnsafeMutablePointer<AVFrame> { handles.frame }

    init(name: String, width: Int, height: Int, quantiser: Int, format: AVPixelFormat) throws {
        handles = try EncoderHandles(encoder: name)
        let context = handles.context, frame = handles.frame
        let lambda = Int32(quantiser) * FF_QP2LAMBDA
        context.pointee.width = Int32(width)
        context.pointee.height = Int32(height)
        context.pointee.pix_fmt = format
        context.pointee.color_range = AVCOL_RANGE_JPEG
        context.pointee.time_base = AVRational(num: 1, den: 25)
        context.pointee.flags |= Int32(AV_CODEC_FLAG_QSCALE)
        context.pointee.global_quality = lambda
        context.pointee.qmin = 1
        context.pointee.qmax = 31
        try check(gifx_avcodec_open2(context, handles.codec, nil), "opening the \(name) encoder at \(width)x\(height)")
        frame.pointee.format = format.rawValue
        frame.pointee.width = Int32(width)
        frame.pointee.height = Int32(height)
        frame.pointee.color_range = AVCOL_RANGE_JPEG
        frame.pointee.quality = lambda
        frame.pointee.pts = 0
        try check(gifx_av_frame_get_buffer(frame, 0), "allocating a \(width)x\(height) frame")
    }

    /// Sends the frame, flushes, and hands each packet (one, for an image codec) to `deliver`.
    func encode(_ deliver: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        let context = handles.context, packet = handles.packet
        try check(gifx_avcodec_send_frame(context, frame), "encoding the image")
        try check(gifx_avcodec_send_frame(context, nil), "flushing the image encoder")
        while true {
            let status = gifx_avcodec_receive_packet(context, packet)
            if status == gifx_averror_eof() { return }
            try check(status, "encoding the image")
            defer { gifx_av_packet_unref(packet) }
            try deliver(packet)
        }
    }
}
