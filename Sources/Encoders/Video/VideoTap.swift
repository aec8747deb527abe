internal import CAV
import Foundation
import GifxChecks
import GifxFrames
import GifxPipeline
import GifxTimeline

/// A verifying conversion's check of a video without decoding the GIF again: the encoder's packets are decoded as
/// they are written (the same bytes the muxer stores), and each decoded frame is compared, plane by plane, with a
/// copy of the YUV frame the encoder was given, held from the moment it reaches the encoder until its frame comes
/// out of the decoder (the encoder's delay: a bounded queue). This measures the encoder's loss and the timing; the
/// RGB conversion itself is what the stand-alone `Verifier` checks, as a player shows it. Before the commit the finished temporary is read back with libavformat, packet by packet (no
/// decoding), and must hold exactly the packets that were verified, and the duration the schedule asks for.
final class VideoTap {
    private let decoder: UnsafeMutablePointer<AVCodecContext>
    private var frame: UnsafeMutablePointer<AVFrame>?
    private let references: QueuedReferenceSource
    private let matcher: TimedMatcher
    private let settings: VerifySettings
    private let codecName: String
    private let timeBase: AVRational
    /// One digest per packet, in the order the muxer got them (a few bytes per output frame).
    private var packetDigests: [Int] = []
    private let framing: NALFraming
    private var report: OutputVerification

    /// `memoryBudget`: the check's share of the run's memory plan (sizes the ring of references compared).
    init(session: VideoSession, video: VideoPlan, keepAlpha: Bool, timeline: Timeline, settings: VerifySettings,
         run: RunSettings, memoryBudget: Int) throws {
        self.settings = settings
        let encoder = session.encoderContext
        codecName = String(cString: gifx_avcodec_get_name(encoder.pointee.codec_id))
        timeBase = encoder.pointee.time_base
        // The decoder that reads the stream's alpha where the codec names one (libvpx for VP9), else libavcodec's.
        let alphaDecoder = keepAlpha ? VideoCodecRegistry.codec(libavName: codecName)?.descriptor.alphaDecoderName : nil
        let decoderCodec = alphaDecoder.flatMap { gifx_avcodec_find_decoder_by_name($0) }
            ?? gifx_avcodec_find_decoder(encoder.pointee.codec_id)
        guard let decoderCodec, let decoder = gifx_avcodec_alloc_context3(decoderCodec) else {
            throw LibavError("no decoder for \(codecName) to verify with")
        }
        self.decoder = decoder
        framing = NALFraming(codec: encoder.pointee.codec_id, extradata: encoder.pointee.extradata,
                             size: Int(encoder.pointee.extradata_size))
        var parameters = gifx_avcodec_parameters_alloc()
        defer { gifx_avcodec_parameters_free(&parameters) }
        guard let parameters, gifx_avcodec_parameters_from_context(parameters, encoder) >= 0,
              gifx_avcodec_parameters_to_context(decoder, parameters) >= 0
        else { throw LibavError("cannot set up the \(codecName) decoder to verify with") }
        decoder.pointee.pkt_timebase = timeBase
        decoder.pointee.thread_count = Int32(run.readBackThreads)
        let opened = gifx_avcodec_open2(decoder, decoderCodec, nil)
        if opened < 0 { throw LibavError("cannot open the \(codecName) decoder to verify with", code: opened) }
        frame = gifx_av_frame_alloc()
        references = QueuedReferenceSource(width: video.outputSize.width, height: video.outputSize.height)
        matcher = TimedMatcher(
            timeline: timeline, source: references, plays: video.options.loops,
            bound: settings.minPSNR ?? VerifyDefaults.minPSNR, memoryBudget: memoryBudget)
        report = OutputVerification(
            path: "", kind: OutputReader.video.name, codec: codecName, width: video.outputSize.width,
            height: video.outputSize.height,
            exact: false)
        report.pixelFormat = keepAlpha ? "yuva420p" : "yuv420p"
        report.colorSpace = gifx_av_color_space_name(encoder.pointee.colorspace).map { String(cString: $0) }
        report.colorRange = gifx_av_color_range_name(encoder.pointee.color_range).map { String(cString: $0) }
        report.colorPrimaries = gifx_av_color_primaries_name(encoder.pointee.color_primaries).map { String(cString: $0) }
        report.colorTransfer = gifx_av_color_transfer_name(encoder.pointee.color_trc).map { String(cString: $0) }
        report.level = video.signalledLevel.map { $0.levelIDC }
        session.packetObserver = { [unowned self] packet, _ in try self.packet(packet) }
        session.frameObserver = { [unowned self] frame in
            references.push(planes: frame.flatMap(PlaneView.init)?.packed())
        }
    }

    deinit {
        var decoder: UnsafeMutablePointer<AVCodecContext>? = self.decoder
        gifx_avcodec_free_context(&decoder)
        if frame != nil { gifx_av_frame_free(&frame) }
    }

    private func packet(_ packet: UnsafeMutablePointer<AVPacket>) throws {
        packetDigests.append(Self.digest(packet, framing: framing))
        let sent = gifx_avcodec_send_packet(decoder, packet)
        if sent < 0 { throw LibavError("decoding the encoded stream to verify it", code: sent) }
        try receive()
    }

    private func receive() throws {
        guard let frame else { return }
        while true {
            let status = gifx_avcodec_receive_frame(decoder, frame)
            if status == gifx_averror_eagain() || status == gifx_averror_eof() { return }
            if status < 0 { throw LibavError("decoding the encoded stream to verify it", code: status) }
            defer { gifx_av_frame_unref(frame) }
            guard let planes = PlaneView(frame) else {
                throw LibavError("the decoder returned frames in a format the encoder was not given")
            }
            let pts = frame.pointee.best_effort_timestamp != gifx_av_nopts_value()
                ? frame.pointee.best_effort_timestamp : frame.pointee.pts
            let start = MediaTime(ticks: pts, of: timeBase)?.approximateMilliseconds ?? 0
            let duration = MediaTime(ticks: frame.pointee.pkt_duration, of: timeBase)?.approximateMilliseconds ?? 0
            try matcher.add(ShownFrame(
                planes: planes, pixels: planes.pointers[0], stride: planes.strides[0], startMs: start,
                endMs: start + duration))
        }
    }

    /// Drains the decoder, reads the finished temporary back and says what was found (`target` names it).
    func finish(temporaryPath: String, target: String) throws -> OutputVerification {
        _ = gifx_avcodec_send_packet(decoder, nil)
        try receive()
        report.path = target
        let file = try PacketReadback(path: temporaryPath)
        matcher.finish(into: &report, settings: settings, endMs: file.durationMs)
        if file.digests != packetDigests {
            let first = zip(file.digests, packetDigests).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(file.digests.count, packetDigests.count)
            report.failures.append(
                "the file holds \(file.digests.count) packets, \(packetDigests.count) were encoded and verified; "
                    + "they differ from packet \(first)")
        }
        return report
    }

    /// A digest of a packet's payload. H.264 and HEVC are hashed NAL unit by NAL unit, so the encoder's Annex B
    /// start codes and the MP4 muxer's 4-byte lengths (it rewrites one into the other) digest alike.
    static func digest(_ packet: UnsafeMutablePointer<AVPacket>, framing: NALFraming) -> Int {
        var hasher = Hasher()
        guard let data = packet.pointee.data else { return hasher.finalize() }
        let bytes = UnsafeBufferPointer(start: data, count: Int(packet.pointee.size))
        for unit in framing.units(bytes) {
            hasher.combine(bytes: UnsafeRawBufferPointer(start: data + unit.lowerBound, count: unit.count))
        }
        return hasher.finalize()
    }
}

/// How an H.264/HEVC stream delimits its NAL units: Annex B start codes (an encoder's raw output) or lengths of
/// the configuration record's size (avcC/hvcC extradata, whose first byte, the configuration version, is 1:
/// 4 bytes from libavformat, 2 from `AVCShortLengths`); other codecs' packets are taken whole.
enum NALFraming {
    /// `obu`: AV1's OBUs without temporal delimiters and padding, which the WebM muxer drops.
    /// `lengthPrefixed(n)`: each unit after an n-byte big-endian length.
    case annexB, lengthPrefixed(Int), whole, obu

    /// The framing of `codec`'s packets, from its descriptor (`VideoCodecDescriptor.packetUnits`): whole packets
    /// for a codec gifx does not write.
    init(codec: AVCodecID, extradata: UnsafeMutablePointer<UInt8>?, size: Int) {
        let name = String(cString: gifx_avcodec_get_name(codec))
        switch VideoCodecRegistry.codec(libavName: name)?.descriptor.packetUnits ?? .whole {
        case .obus: self = .obu
        case .whole: self = .whole
        case .nalUnits(let lengthSizeOffset):
            if let extradata, size > lengthSizeOffset, extradata[0] == 1 {
                self = .lengthPrefixed(Int(extradata[lengthSizeOffset] & 3) + 1)
            } else {
                self = .annexB
            }
        }
    }

    init(_ parameters: UnsafeMutablePointer<AVCodecParameters>) {
        self.init(codec: parameters.pointee.codec_id, extradata: parameters.pointee.extradata,
                  size: Int(parameters.pointee.extradata_size))
    }

    func units(_ bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        let n = bytes.count
        switch self {
        case .whole:
            return [0..<n]
        case .obu:
            var units: [Range<Int>] = []
            var i = 0
            while i < n {
                let header = bytes[i]
                let type = (header >> 3) & 0xF, hasExtension = header & 4 != 0, hasSize = header & 2 != 0
                var payload = i + 1 + (hasExtension ? 1 : 0)
                var size = n - payload
                if hasSize {
                    size = 0
                    var shift = 0
                    while payload < n {
                        let byte = bytes[payload]
                        size |= Int(byte & 0x7F) << shift
                        payload += 1
                        shift += 7
                        if byte & 0x80 == 0 || shift > 56 { break }
                    }
                }
                guard size >= 0, payload + size <= n else { return [0..<n] }
                if type != 2 && type != 15 { units.append(payload..<payload + size) }  // temporal delimiter, padding
                i = payload + size
            }
            return units
        case .lengthPrefixed(let width):
            var units: [Range<Int>] = []
            var i = 0
            while i + width <= n {
                let length = (i..<i + width).reduce(0) { $0 << 8 | Int(bytes[$1]) }
                guard i + width + length <= n else { return [0..<n] }
                units.append(i + width..<i + width + length)
                i += width + length
            }
            return units
        case .annexB:
            var units: [Range<Int>] = []
            var start: Int?
            var i = 0
            while i + 3 <= n {
                if bytes[i] == 0 && bytes[i + 1] == 0 && bytes[i + 2] == 1 {
                    if let start {
                        var end = i
                        while end > start && bytes[end - 1] == 0 { end -= 1 }  // the 4-byte code's zero, trailing zeros
                        units.append(start..<end)
                    }
                    i += 3
                    start = i
                } else {
                    i += 1
                }
            }
            if let start, start < n { units.append(start..<n) }
            return units
        }
    }
}

/// A video file's packets read back with libavformat, without decoding: a digest of each, and the stream's
/// duration in ms (the end of its presentation).
struct PacketReadback {
    var digests: [Int] = []
    var durationMs: Double?

    init(path: String) throws {
        var opening: UnsafeMutablePointer<AVFormatContext>?
        let opened = gifx_avformat_open_input(&opening, path, nil, nil)
        guard opened >= 0, let context = opening else {
            throw LibavError("cannot open the output to read it back", code: opened)
        }
        defer { gifx_avformat_close_input(&opening) }
        if gifx_avformat_find_stream_info(context, nil) < 0 { throw LibavError("cannot read the output's streams") }
        guard let stream = gifx_format_stream(context, 0) else { throw LibavError("the output has no stream") }
        let framing = NALFraming(stream.pointee.codecpar)
        if stream.pointee.duration > 0, let duration = MediaTime(ticks: stream.pointee.duration, of: stream.pointee.time_base) {
            durationMs = duration.approximateMilliseconds
        } else if context.pointee.duration > 0 {
            durationMs = MediaTime(avTimeBaseUnits: context.pointee.duration).approximateMilliseconds
        }
        guard let packet = gifx_av_packet_alloc() else { throw LibavError("out of memory (packet)") }
        defer {
            var p: UnsafeMutablePointer<AVPacket>? = packet
            gifx_av_packet_free(&p)
        }
        while gifx_av_read_frame(context, packet) >= 0 {
            if packet.pointee.stream_index == 0 { digests.append(VideoTap.digest(packet, framing: framing)) }
            gifx_av_packet_unref(packet)
        }
    }
}
