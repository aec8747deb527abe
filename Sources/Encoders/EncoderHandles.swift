internal import CAV

/// The three libavcodec objects every encoder needs, owned together: the codec context (not yet opened),
/// the reusable input frame and a packet. `deinit` frees all three; no pointer leaves the Encoders module.
final class EncoderHandles {
    let codec: UnsafePointer<AVCodec>
    let context: UnsafeMutablePointer<AVCodecContext>
    let frame: UnsafeMutablePointer<AVFrame>
    let packet: UnsafeMutablePointer<AVPacket>

    /// Finds the encoder named `name` (`libx264`, `mjpeg`, …) and allocates its context, a frame and a packet.
    init(encoder name: String) throws {
        guard let codec = gifx_avcodec_find_encoder_by_name(name) else {
            throw LibavError("this libavcodec has no \(name) encoder", failure: .internalError)
        }
        var context = gifx_avcodec_alloc_context3(codec)
        var frame = gifx_av_frame_alloc()
        var packet = gifx_av_packet_alloc()
        guard let context, let frame, let packet else {
            gifx_av_packet_free(&packet)
            gifx_av_frame_free(&frame)
            gifx_avcodec_free_context(&context)
            throw LibavError("out of memory (\(name) encoder)")
        }
        self.codec = codec
        self.context = context
        self.frame = frame
        self.packet = packet
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = packet
        gifx_av_packet_free(&packet)
        var frame: UnsafeMutablePointer<AVFrame>? = frame
        gifx_av_frame_free(&frame)
        var context: UnsafeMutablePointer<AVCodecContext>? = context
        gifx_avcodec_free_context(&context)
    }
}
