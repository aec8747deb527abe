internal import CAV
import Foundation
import GifxFrames
import GifxTimeline

/// Reads a video (MP4, WebM, …) or a JPEG with libavformat and libavcodec, frame by frame in presentation order,
/// each converted to RGBA the way a player shows it: the stream's own matrix and range (BT.601 when untagged,
/// as libswscale assumes). Two decoded frames (one ahead, for durations) and one RGBA buffer are held at a time.
final class AVFrameReader {
    let path: String
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    /// The decoded frame `next` returns next (valid when `aheadValid`).
    private var ahead: UnsafeMutablePointer<AVFrame>?
    private var aheadValid = false
    private let converter = RGBAFrameConverter()
    private let streamIndex: Int32
    private let stream: AVStream
    private let timeBase: AVRational
    private var draining = false
    private var firstPts: Int64?
    let width: Int
    let height: Int
    /// The stream's duration in ms (container), when known.
    let durationMs: Double?
    let codecName: String
    let hasAlpha: Bool

    init(path: String, threads: Int?) throws {
        self.path = path
        try Libav.require(GIFX_AV_ENCODER)
        gifx_av_log_set_level(AV_LOG_QUIET)
        var context: UnsafeMutablePointer<AVFormatContext>?
        let opened = gifx_avformat_open_input(&context, path, nil, nil)
        guard opened >= 0, let context else { throw LibavError("cannot open the output to read it", code: opened) }
        format = context
        if gifx_avformat_find_stream_info(context, nil) < 0 { throw LibavError("cannot read the output's streams") }
        var found: (Int32, UnsafeMutablePointer<AVStream>)?
        for index in 0..<context.pointee.nb_streams {
            if let stream = gifx_format_stream(context, index), stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO {
                found = (Int32(index), stream)
                break
            }
        }
        guard let (index, stream) = found else {
            throw LibavError("the output has no video stream", failure: .verificationFailed)
        }
        streamIndex = index
        self.stream = stream.pointee
        timeBase = stream.pointee.time_base
        let parameters = stream.pointee.codecpar!
        codecName = String(cString: gifx_avcodec_get_name(parameters.pointee.codec_id))
        let alphaMode = gifx_av_dict_get(stream.pointee.metadata, "alpha_mode", nil, 0)
        hasAlpha = alphaMode.map { String(cString: $0.pointee.value) == "1" } ?? false
        // libavcodec's own VP9 decoder ignores the alpha plane WebM keeps beside the stream; the codec's
        // descriptor names the decoder that reads it (libvpx: `VideoCodecDescriptor.alphaDecoderName`).
        let alphaDecoder = hasAlpha ? VideoCodecRegistry.codec(libavName: codecName)?.descriptor.alphaDecoderName : nil
        let decoder = alphaDecoder.flatMap { gifx_avcodec_find_decoder_by_name($0) }
            ?? gifx_avcodec_find_decoder(parameters.pointee.codec_id)
        guard let decoder, let codec = gifx_avcodec_alloc_context3(decoder) else {
            throw LibavError("no decoder for \(codecName)")
        }
        self.codec = codec
        if gifx_avcodec_parameters_to_context(codec, parameters) < 0 { throw LibavError("cannot set up the decoder") }
        codec.pointee.thread_count = Int32(threads ?? 0)
        let status = gifx_avcodec_open2(codec, decoder, nil)
        if status < 0 { throw LibavError("cannot open the \(codecName) decoder", code: status) }
        packet = gifx_av_packet_alloc()
        frame = gifx_av_frame_alloc()
        ahead = gifx_av_frame_alloc()
        width = Int(parameters.pointee.width)
        height = Int(parameters.pointee.height)
        if stream.pointee.duration > 0, let duration = MediaTime(ticks: stream.pointee.duration, of: timeBase) {
            durationMs = duration.approximateMilliseconds
        } else if context.pointee.duration > 0 {
            durationMs = MediaTime(avTimeBaseUnits: context.pointee.duration).approximateMilliseconds
        } else {
            durationMs = nil
        }
        tags = Tags(
            pixelFormat: name(gifx_av_get_pix_fmt_name(AVPixelFormat(parameters.pointee.format))),
            colorSpace: name(gifx_av_color_space_name(parameters.pointee.color_space)),
            colorRange: name(gifx_av_color_range_name(parameters.pointee.color_range)),
            colorPrimaries: name(gifx_av_color_primaries_name(parameters.pointee.color_primaries)),
            colorTransfer: name(gifx_av_color_transfer_name(parameters.pointee.color_trc)),
            level: parameters.pointee.level > 0 ? Int(parameters.pointee.level) : nil,
            profile: parameters.pointee.profile >= 0 ? String(parameters.pointee.profile) : nil)
    }

    struct Tags {
        var pixelFormat, colorSpace, colorRange, colorPrimaries, colorTransfer: String?
        var level: Int?
        var profile: String?
    }

    let tags: Tags

    deinit {
        if frame != nil { gifx_av_frame_free(&frame) }
        if ahead != nil { gifx_av_frame_free(&ahead) }
        if packet != nil { gifx_av_packet_free(&packet) }
        if codec != nil { gifx_avcodec_free_context(&codec) }
        if format != nil { gifx_avformat_close_input(&format) }
    }

    /// The next frame in presentation order, converted into `rgba`: its start and duration in ms (times from
    /// the first frame's), or `nil` at the end. A frame lasts until the next one starts: the decoder is one frame
    /// ahead, since a decoded frame's own duration is its packet's in decode order, which B-frames reorder
    /// (an H.264 `--vfr` MP4 read as 10 ms frames held 30-40 ms). The last frame keeps its own duration.
    func next() throws -> (startMs: Double, durationMs: Double)? {
        guard let frame, let ahead else { return nil }
        if !aheadValid {
            guard try receive(into: ahead) else { return nil }
            aheadValid = true
        }
        // `ahead` is the frame to return; the frame after it goes into `frame`, then the two swap.
        gifx_av_frame_unref(frame)
        let hasNext = try receive(into: frame)
        let current = ahead
        defer {
            self.ahead = frame
            self.frame = current
            aheadValid = hasNext
        }
        try convert(current)
        let pts = Self.timestamp(current)
        if firstPts == nil { firstPts = pts }
        let start = MediaTime(ticks: pts - (firstPts ?? 0), of: timeBase)?.approximateMilliseconds ?? 0
        let ticks = hasNext && Self.timestamp(frame) > pts ? Self.timestamp(frame) - pts : current.pointee.pkt_duration
        let duration = MediaTime(ticks: ticks, of: timeBase)?.approximateMilliseconds ?? 0
        return (start, duration)
    }

    private static func timestamp(_ frame: UnsafeMutablePointer<AVFrame>) -> Int64 {
        frame.pointee.best_effort_timestamp != gifx_av_nopts_value() ? frame.pointee.best_effort_timestamp : frame.pointee.pts
    }

    /// Decodes the next frame in presentation order into `target`; false at the end.
    private func receive(into target: UnsafeMutablePointer<AVFrame>) throws -> Bool {
        guard let codec, let packet, let format else { return false }
        while true {
            let received = gifx_avcodec_receive_frame(codec, target)
            if received >= 0 { return true }
            if received == gifx_averror_eof() { return false }
            if received != gifx_averror_eagain() { throw LibavError("decoding the output failed", code: received) }
            if draining { return false }
            let read = gifx_av_read_frame(format, packet)
            if read < 0 {
                draining = true
                _ = gifx_avcodec_send_packet(codec, nil)
                continue
            }
            defer { gifx_av_packet_unref(packet) }
            if packet.pointee.stream_index != streamIndex { continue }
            let sent = gifx_avcodec_send_packet(codec, packet)
            if sent < 0 && sent != gifx_averror_eagain() {
                throw LibavError("the output's stream is damaged", code: sent, failure: .verificationFailed)
            }
        }
    }

    /// How long the video's packets last: from the earliest presentation time to the latest end (pts + duration)
    /// of the first video stream, by demuxing alone (no decoding). What the frames say, whatever the header
    /// declares; `nil` where the file cannot be read or has no timed packet.
    static func packetSpan(path: String) -> MediaTime? {
        var opened: UnsafeMutablePointer<AVFormatContext>?
        guard gifx_avformat_open_input(&opened, path, nil, nil) >= 0, let context = opened else { return nil }
        defer { gifx_avformat_close_input(&opened) }
        guard gifx_avformat_find_stream_info(context, nil) >= 0 else { return nil }
        var video: (index: Int32, timeBase: AVRational)?
        for index in 0..<context.pointee.nb_streams {
            if let stream = gifx_format_stream(context, index), stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO {
                video = (Int32(index), stream.pointee.time_base)
                break
            }
        }
        var allocated = gifx_av_packet_alloc()
        defer { gifx_av_packet_free(&allocated) }
        guard let video, let packet = allocated else { return nil }
        var first = Int64.max, end = Int64.min
        while gifx_av_read_frame(context, packet) >= 0 {
            defer { gifx_av_packet_unref(packet) }
            guard packet.pointee.stream_index == video.index, packet.pointee.pts != gifx_av_nopts_value() else { continue }
            first = min(first, packet.pointee.pts)
            end = max(end, packet.pointee.pts + max(0, packet.pointee.duration))
        }
        guard end > first else { return nil }
        return MediaTime(ticks: end - first, of: video.timeBase)
    }

    /// The first frame's presentation time in ms from the stream's zero (times are reported from it).
    var startOffsetMs: Double {
        guard let firstPts else { return 0 }
        let start = stream.start_time == gifx_av_nopts_value() ? 0 : stream.start_time
        return MediaTime(ticks: firstPts - start, of: timeBase)?.approximateMilliseconds ?? 0
    }

    /// Row stride of `rgba` in pixels.
    var frameWidth: Int { converter.width == 0 ? width : converter.stridePixels }
    var rgba: [UInt8] { converter.rgba }
    /// The decoded frames' YUV format (after the first frame).
    var yuvFormat: YUVFormat? { converter.format }

    private func convert(_ frame: UnsafeMutablePointer<AVFrame>) throws { try converter.convert(frame) }
}

/// Converts decoded frames to packed RGBA as a player shows them: the frame's own matrix and range in (BT.601 when
/// untagged, libswscale's assumption), full-range RGB out, chroma interpolated at full resolution.
final class RGBAFrameConverter {
    private var scaler: OpaquePointer?
    private var key: (Int32, Int32, Int32)?
    private(set) var rgba: [UInt8] = []
    private(set) var width = 0
    private var strideBytes = 0
    /// The last frame's YUV format (`nil` for RGB frames), for the references' chroma round trip.
    private(set) var format: YUVFormat?
    /// Row stride of `rgba` in pixels.
    var stridePixels: Int { strideBytes / 4 }

    deinit { if let scaler { gifx_sws_freeContext(scaler) } }

    func convert(_ frame: UnsafeMutablePointer<AVFrame>) throws {
        let w = frame.pointee.width, h = frame.pointee.height, f = frame.pointee.format
        if key.map({ $0 != (w, h, f) }) ?? true {
            if let scaler { gifx_sws_freeContext(scaler) }
            scaler = gifx_sws_getContext(
                w, h, AVPixelFormat(f), w, h, AV_PIX_FMT_RGBA,
                Int32(SWS_BICUBIC | SWS_FULL_CHR_H_INT | SWS_ACCURATE_RND), nil, nil, nil)
            guard let scaler else { throw LibavError("cannot convert the output's frames to RGB") }
            _ = gifx_sws_to_rgb(scaler, Int32(frame.pointee.colorspace.rawValue), gifx_frame_full_range(frame))
            let descriptor = gifx_av_pix_fmt_desc_get(AVPixelFormat(f))
            let isRGB = descriptor.map { $0.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0 } ?? true
            format = isRGB ? nil : YUVFormat(
                pixelFormat: f, colorSpace: Int32(frame.pointee.colorspace.rawValue),
                fullRange: gifx_frame_full_range(frame) != 0)
            key = (w, h, f)
            // Rows 64-byte aligned and a spare row: libswscale's vector code writes whole vectors.
            strideBytes = (Int(w) * 4 + 63) & ~63
            width = Int(w)
            rgba = [UInt8](repeating: 0, count: strideBytes * (Int(h) + 1))
        }
        let scaler = self.scaler
        let status = rgba.withUnsafeMutableBufferPointer {
            gifx_sws_scale_to_packed(scaler, frame, $0.baseAddress, Int32(strideBytes))
        }
        if status < 0 { throw LibavError("converting the output's frame to RGB", code: status) }
    }
}

private func name(_ text: UnsafePointer<CChar>?) -> String? { text.map { String(cString: $0) } }
