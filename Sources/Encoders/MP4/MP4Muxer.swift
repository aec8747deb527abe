internal import CAV
import Frames

/// An MP4 file written by libavformat with one video stream and `+faststart` (the index moved to the front
/// so players start before the whole file arrives), or a WebM file (Matroska keeps its own cues; VP9's
/// alpha travels as BlockAdditions, which the muxer writes when the stream is yuva420p, with AlphaMode 1).
/// The file is opened by name because faststart reopens it to shift the data; the format is given
/// explicitly since the temporary name has no extension.
final class MP4Muxer {
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private var stream: UnsafeMutablePointer<AVStream>?
    private let path: String
    private let container: VideoContainer
    private var fileOpen = false

    init(path: String, container: VideoContainer = .mp4) throws {
        self.path = path
        self.container = container
        var context: UnsafeMutablePointer<AVFormatContext>?
        let setUp = "setting up the \(container.rawValue) muxer"
        try check(gifx_avformat_alloc_output_context2(&context, nil, container.muxerName, path), setUp, path: path)
        guard let context else { throw MP4Error(setUp, path: path) }
        self.context = context
        // Matroska otherwise writes a random SegmentUID: the same GIF and options give the same WebM bytes.
        if container == .webm { context.pointee.flags |= AVFMT_FLAG_BITEXACT }
    }

    deinit {
        if let context {
            if fileOpen { gifx_avio_closep(&context.pointee.pb) }
            gifx_avformat_free_context(context)
        }
    }

    /// Whether the encoder must put its parameter sets in extradata (true for MP4).
    var wantsGlobalHeader: Bool {
        guard let format = context?.pointee.oformat else { return true }
        return format.pointee.flags & AVFMT_GLOBALHEADER != 0
    }

    /// Adds the video stream described by `encoder`'s opened context, with `codecTag` (e.g. `hvc1`) and
    /// the constant frame rate announced in the container (`nil` for VFR: the `stts` carries each sample's
    /// duration, in the encoder's time base, 1/100 s).
    func addStream(from encoder: VideoEncoder, codecTag: UInt32?, frameRate: AVRational?) throws {
        guard let context, let stream = gifx_avformat_new_stream(context, nil) else {
            throw MP4Error("out of memory (stream)")
        }
        try check(gifx_avcodec_parameters_from_context(stream.pointee.codecpar, encoder.context), "copying codec parameters")
        if let codecTag { stream.pointee.codecpar.pointee.codec_tag = codecTag }
        stream.pointee.time_base = encoder.timeBase
        if let frameRate {
            stream.pointee.avg_frame_rate = frameRate
            stream.pointee.r_frame_rate = frameRate
        }
        self.stream = stream
    }

    /// Opens the file and writes the header (the muxer may change the stream's time base here).
    func writeHeader() throws {
        guard let context else { return }
        try check(gifx_avio_open(&context.pointee.pb, path, AVIO_FLAG_WRITE), "opening the output", path: path)
        fileOpen = true
        var options: OpaquePointer?
        defer { gifx_av_dict_free(&options) }
        if container == .mp4 { gifx_av_dict_set(&options, "movflags", "+faststart", 0) }
        try check(gifx_avformat_write_header(context, &options), "writing the \(container.rawValue) header", path: path)
    }

    /// Writes one encoded packet whose times are in `timeBase`.
    func write(_ packet: UnsafeMutablePointer<AVPacket>, timeBase: AVRational) throws {
        guard let context, let stream else { return }
        gifx_av_packet_rescale_ts(packet, timeBase, stream.pointee.time_base)
        packet.pointee.stream_index = stream.pointee.index
        try check(gifx_av_write_frame(context, packet), "writing to the output", path: path)
    }

    /// Writes the index (moved to the front: faststart), flushes and closes the file.
    func finish() throws {
        guard let context else { return }
        try check(gifx_av_write_trailer(context), "finishing the \(container.rawValue)", path: path)
        fileOpen = false
        try check(gifx_avio_closep(&context.pointee.pb), "closing the output", path: path)
    }
}
