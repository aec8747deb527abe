import CAV
import Frames

/// One libavcodec video encoder (libx264 / libx265) opened for yuv420p at a constant frame rate, with the
/// BT.709 limited-range tags on its stream. Owns its codec context, the frame it fills and a packet.
final class VideoEncoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    /// The reusable input frame: the converter writes into it, `encode` sends it.
    let frame: UnsafeMutablePointer<AVFrame>
    private let packet: UnsafeMutablePointer<AVPacket>
    /// `1 / fps`: one tick per output frame.
    let timeBase: AVRational

    /// Opens `codec` at `width`×`height`, `frameRate` fps (time base its inverse).
    /// `globalHeader`: the container (MP4) wants SPS/PPS in extradata, not in the stream.
    init(
        codec: VideoCodec, width: Int, height: Int, frameRate: AVRational, tuning: EncoderTuning, globalHeader: Bool
    ) throws {
        guard let encoder = avcodec_find_encoder_by_name(codec.encoderName) else {
            throw MP4Error("this libavcodec has no \(codec.encoderName) encoder", exitCode: ExitStatus.software)
        }
        var context = avcodec_alloc_context3(encoder)
        var frame = av_frame_alloc()
        guard let context, let frame, let packet = av_packet_alloc() else {
            av_frame_free(&frame)
            avcodec_free_context(&context)
            throw MP4Error("out of memory (encoder)")
        }
        self.context = context
        self.frame = frame
        self.packet = packet
        timeBase = AVRational(num: frameRate.den, den: frameRate.num)

        let c = context
        c.pointee.width = Int32(width)
        c.pointee.height = Int32(height)
        c.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        c.pointee.time_base = timeBase
        c.pointee.framerate = frameRate
        c.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        c.pointee.color_primaries = AVCOL_PRI_BT709
        c.pointee.color_trc = AVCOL_TRC_BT709
        c.pointee.colorspace = AVCOL_SPC_BT709
        c.pointee.color_range = AVCOL_RANGE_MPEG
        c.pointee.thread_count = Int32(tuning.threads)
        if globalHeader { c.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }

        let privateOptions = c.pointee.priv_data
        try check(av_opt_set(privateOptions, "preset", tuning.preset, 0), "setting preset \(tuning.preset)")
        try check(av_opt_set_double(privateOptions, "crf", tuning.crf, 0), "setting crf \(tuning.crf)")
        if !tuning.params.isEmpty {
            let key = codec == .h264 ? "x264-params" : "x265-params"
            try check(av_opt_set(privateOptions, key, tuning.params, 0), "setting \(key) \(tuning.params)")
        }
        try check(avcodec_open2(c, encoder, nil), "opening the \(codec.encoderName) encoder at \(width)x\(height)")

        frame.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        frame.pointee.width = Int32(width)
        frame.pointee.height = Int32(height)
        frame.pointee.color_primaries = AVCOL_PRI_BT709
        frame.pointee.color_trc = AVCOL_TRC_BT709
        frame.pointee.colorspace = AVCOL_SPC_BT709
        frame.pointee.color_range = AVCOL_RANGE_MPEG
        try check(av_frame_get_buffer(frame, 0), "allocating a \(width)x\(height) frame")
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&packet)
        var frame: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&frame)
        var context: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&context)
    }

    /// Makes `frame`'s buffers safe to overwrite (the encoder may still hold a reference to the last one).
    func prepareFrameForWriting() throws {
        try check(av_frame_make_writable(frame), "making the frame writable")
    }

    /// Sends `frame` with presentation time `pts` (in `timeBase` ticks), or flushes when `pts` is nil,
    /// and hands every packet the encoder returns to `deliver` (each lasts exactly one tick).
    func encode(pts: Int64?, deliver: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        if let pts {
            frame.pointee.pts = pts
            try check(avcodec_send_frame(context, frame), "encoding frame \(pts)")
        } else {
            try check(avcodec_send_frame(context, nil), "flushing the encoder")
        }
        while true {
            let status = avcodec_receive_packet(context, packet)
            if status == gifx_averror_eagain() || status == gifx_averror_eof() { return }
            try check(status, "encoding")
            packet.pointee.duration = 1
            defer { av_packet_unref(packet) }
            try deliver(packet)
        }
    }
}
