internal import CAV
import GifxFrames

/// One libavcodec video encoder (libx264, libx265, libvpx-vp9, libsvtav1) opened for yuv420p, or yuva420p for
/// VP9 with alpha, with the BT.709 limited-range tags on its stream. Owns its codec context, the frame it
/// fills and a packet.
///
/// Timestamps: the encoder's time base is the plan's (1/fps for CFR, 1/100 s for VFR) and every frame carries
/// its real pts. libavcodec's libx264 wrapper hands x264 `time_base` as `i_timebase` and `framerate` as
/// `i_fps`, and x264 defaults to `b_vfr_input = 1`, so rate control spaces frames by their timestamps (the
/// real cadence) while `i_fps` (the peak rate for VFR) decides the level and VBV. Packet durations are the
/// sample's length, looked up by pts because x264 returns packets in decode order.
package final class VideoEncoder {
    private let handles: EncoderHandles
    var context: UnsafeMutablePointer<AVCodecContext> { handles.context }
    /// The reusable input frame: the converter writes into it, `encode` sends it.
    var frame: UnsafeMutablePointer<AVFrame> { handles.frame }
    private var packet: UnsafeMutablePointer<AVPacket> { handles.packet }
    /// Seconds per pts unit: `1 / fps` for CFR, 1/100 for VFR.
    let timeBase: AVRational
    /// Durations (in `timeBase`) of frames sent but not yet returned, by pts; only those not 1 unit long.
    private var pendingDurations: [Int64: Int64] = [:]
    /// libx264 through its own API (`X264Encoder`: H.264 with B-frame repeats), in place of libavcodec's wrapper;
    /// the codec context is then not opened, and carries the stream's parameters for the muxer and verifier.
    private let x264: X264Encoder?
    /// The settings libx264 runs with where it is driven directly, `nil` otherwise.
    var directX264Settings: X264Encoder.Settings? { x264?.settings }

    /// Opens `codec` at `width`×`height`, announcing `frameRate` fps (the peak rate for VFR) with timestamps
    /// in `timeBase`. `globalHeader`: the container (MP4) wants SPS/PPS in extradata, not in the stream.
    /// `alpha`: encode yuva420p (libvpx-vp9 only: a second libvpx instance codes the alpha plane).
    /// `keyframeMaximum`: libavcodec's `gop_size`, the encoder's own longest gap between key frames in frames.
    /// `directX264`: drive libx264 through its own API with these parameters after the tuning's (H.264 only).
    init(
        codec: VideoCodec, width: Int, height: Int, frameRate: AVRational, timeBase: AVRational,
        tuning: EncoderTuning, globalHeader: Bool, alpha: Bool = false, keyframeMaximum: Int32 = -1,
        directX264: EncoderParameters? = nil
    ) throws {
        let pixelFormat = alpha ? AV_PIX_FMT_YUVA420P : AV_PIX_FMT_YUV420P
        handles = try EncoderHandles(encoder: tuning.encoder)
        self.timeBase = timeBase
        let frame = handles.frame
        let c = handles.context
        c.pointee.width = Int32(width)
        c.pointee.height = Int32(height)
        c.pointee.pix_fmt = pixelFormat
        c.pointee.time_base = timeBase
        c.pointee.framerate = frameRate
        c.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        c.pointee.color_primaries = AVCOL_PRI_BT709
        c.pointee.color_trc = AVCOL_TRC_BT709
        c.pointee.colorspace = AVCOL_SPC_BT709
        c.pointee.color_range = AVCOL_RANGE_MPEG
        c.pointee.thread_count = Int32(tuning.threads)
        // No bitrate target: libvpx and SVT-AV1 would otherwise cap `crf` at libavcodec's default 200 kbit/s.
        c.pointee.bit_rate = 0
        if globalHeader { c.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        // The encoder's own longest gap between key frames, in frames (`KeyframeSchedule`): libx264's `keyint`
        // (`1 << 30` is x264's "infinite"), libx265's `keyint`, libvpx's and libaom's `kf_max_dist`, SVT-AV1's
        // intra period (`gop_size - 1`); -1 leaves each its own default.
        if keyframeMaximum > 0 { c.pointee.gop_size = keyframeMaximum }

        if let extra = directX264 {
            let x264 = try X264Encoder(
                width: width, height: height, frameRate: frameRate, timeBase: timeBase, tuning: tuning, extra: extra,
                keyframeMaximum: keyframeMaximum)
            self.x264 = x264
            try replaceExtradata(x264.extradata)
        } else {
            x264 = nil
        }
        for option in tuning.options where x264 == nil {
            try check(
                gifx_av_opt_set(c.pointee.priv_data, option.name, option.value, 0),
                "setting \(tuning.encoder)'s \(option.name) to \(option.value)")
        }
        // An encoder that would run its threads at real-time priority in a process that may (root: SVT-AV1's 99)
        // would starve the machine: gifx never lets an encoder do that (`gifx_drop_realtime_scheduling`, CAV.h).
        if codec.descriptor.takesRealtimePriority(encoder: tuning.encoder) { _ = gifx_drop_realtime_scheduling() }
        if x264 == nil {
            try check(gifx_avcodec_open2(c, handles.codec, nil), "opening the \(tuning.encoder) encoder at \(width)x\(height)")
        }

        frame.pointee.format = pixelFormat.rawValue
        frame.pointee.width = Int32(width)
        frame.pointee.height = Int32(height)
        frame.pointee.color_primaries = AVCOL_PRI_BT709
        frame.pointee.color_trc = AVCOL_TRC_BT709
        frame.pointee.colorspace = AVCOL_SPC_BT709
        frame.pointee.color_range = AVCOL_RANGE_MPEG
        try check(gifx_av_frame_get_buffer(frame, 0), "allocating a \(width)x\(height) frame")
    }

    /// Makes `frame`'s buffers safe to overwrite (the encoder may still hold a reference to the last one).
    func prepareFrameForWriting() throws {
        try check(gifx_av_frame_make_writable(frame), "making the frame writable")
    }

    /// Sends `frame` with presentation time `pts` lasting `duration` (both in `timeBase` units) and hands
    /// every packet the encoder returns to `deliver` with its own duration.
    /// `keyframe`: force a key frame (libx264 makes it an IDR: gifx never opens GOPs). `reference`: the picture
    /// must stay a reference picture (repeats copy it; `X264Encoder` only).
    func encode(
        pts: Int64, duration: Int64, keyframe: Bool = false, reference: Bool = false,
        deliver: (UnsafeMutablePointer<AVPacket>) throws -> Void
    ) throws {
        if let x264 {
            if duration != 1 { pendingDurations[pts] = duration }
            let type: X264Encoder.PictureType = keyframe ? .keyframe : reference ? .reference : .automatic
            if let picture = try x264.encode(frame, pts: pts, type: type) { try self.deliver(picture, deliver) }
            return
        }
        frame.pointee.pts = pts
        frame.pointee.pkt_duration = duration
        frame.pointee.pict_type = keyframe ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
        if duration != 1 { pendingDurations[pts] = duration }
        try check(gifx_avcodec_send_frame(context, frame), "encoding frame \(pts)")
        try drain(deliver)
    }

    /// The codec context's extradata (the parameter sets the container stores), a copy.
    var extradata: [UInt8] {
        guard let data = context.pointee.extradata else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(context.pointee.extradata_size)))
    }

    /// Replaces the extradata (before the muxer and any verifying decoder copy it), in a buffer libavcodec
    /// frees with the context, padded with zeros as libavcodec requires.
    func replaceExtradata(_ bytes: [UInt8]) throws {
        let buffer = try Self.extradataBuffer(bytes)
        gifx_av_freep(&context.pointee.extradata)
        context.pointee.extradata = buffer
        context.pointee.extradata_size = Int32(bytes.count)
    }

    /// A copy of `bytes` in a buffer libav frees with its owner (a codec context or a stream's parameters),
    /// padded with zeros as libavcodec requires.
    static func extradataBuffer(_ bytes: [UInt8]) throws -> UnsafeMutablePointer<UInt8> {
        let padding = 64  // AV_INPUT_BUFFER_PADDING_SIZE
        guard let raw = gifx_av_malloc(bytes.count + padding) else { throw LibavError("out of memory (extradata)") }
        let buffer = raw.bindMemory(to: UInt8.self, capacity: bytes.count + padding)
        buffer.initialize(repeating: 0, count: bytes.count + padding)
        bytes.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress!, count: bytes.count) }
        return buffer
    }

    /// Flushes the encoder and delivers the last packets.
    ///
    /// Each packet's duration is its sample's own (looked up by pts), so the muxer's presentation end
    /// (max pts + duration: the edit list, what players show) is the GIF's duration exactly. The `stts`
    /// holds decode-time deltas: with B-frames x264's decode times are earlier frames' presentation times,
    /// so for VFR the `stts` entries are those frames' delays and the media (`mdhd`) duration can differ
    /// from the presentation by the reorder delay; players follow the edit list and `ctts`.
    func finish(deliver: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        if let x264 {
            while let picture = try x264.flush() { try self.deliver(picture, deliver) }
            return
        }
        try check(gifx_avcodec_send_frame(context, nil), "flushing the encoder")
        try drain(deliver)
    }

    /// Delivers one of `X264Encoder`'s pictures as a packet, with its own duration as libavcodec's are.
    private func deliver(
        _ picture: X264Encoder.Picture, _ deliver: (UnsafeMutablePointer<AVPacket>) throws -> Void
    ) throws {
        try check(gifx_av_new_packet(packet, Int32(picture.bytes.count)), "allocating a packet")
        defer { gifx_av_packet_unref(packet) }
        picture.bytes.withUnsafeBufferPointer { packet.pointee.data.update(from: $0.baseAddress!, count: $0.count) }
        packet.pointee.pts = picture.pts
        packet.pointee.dts = picture.dts
        packet.pointee.flags = picture.keyframe ? AV_PKT_FLAG_KEY : 0
        packet.pointee.duration = pendingDurations.removeValue(forKey: picture.pts) ?? 1
        try deliver(packet)
    }

    /// Receives every packet ready and delivers it.
    private func drain(_ deliver: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        while true {
            let status = gifx_avcodec_receive_packet(context, packet)
            if status == gifx_averror_eagain() || status == gifx_averror_eof() { return }
            try check(status, "encoding")
            packet.pointee.duration = pendingDurations.removeValue(forKey: packet.pointee.pts) ?? 1
            defer { gifx_av_packet_unref(packet) }
            try deliver(packet)
        }
    }
}
