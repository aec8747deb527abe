internal import CAV
import GifxFrames

/// An MP4 file written by libavformat with one video stream, laid out per `MP4Layout` (`+faststart`: the
/// index moved to the front so players start before the whole file arrives; or fragmented, for videos whose
/// index would not fit in memory), or a WebM file (Matroska keeps its own cues; VP9's
/// alpha travels as BlockAdditions, which the muxer writes when the stream is yuva420p, with AlphaMode 1).
/// The file is opened by name because faststart reopens it to shift the data; the format is given
/// explicitly since the temporary name has no extension. Or an animated AVIF (libavformat's `avif` muxer: the
/// mov muxer in AVIF mode, which puts `meta` and `moov` in front of `mdat` by itself).
final class VideoMuxer {
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private var stream: UnsafeMutablePointer<AVStream>?
    private let path: String
    /// How errors name the output: `path`, or the descriptor's name (`<stdout>`).
    private let displayPath: String
    private let container: VideoContainer
    private let layout: MP4Layout?
    private var fileOpen = false
    /// The descriptor written to (standard output, or a caller's pipe or socket), not a file libavformat opens by name.
    private let descriptor: Int32?
    /// MP4 (either layout): the last packet written is held back until the next one arrives, so `finish` can
    /// stretch its duration to the presentation end (see `finish`).
    private var heldPacket: UnsafeMutablePointer<AVPacket>?
    /// Latest pts + duration seen, in the stream's time base: where the presentation ends.
    private var presentationEnd: Int64 = .min
    /// Earliest pts seen, in the stream's time base: where the presentation starts.
    private var presentationStart: Int64 = .max
    /// No constant rate announced (VFR): the faststart file's last sample is stretched and its durations set
    /// (see `finish`). A CFR file keeps libavformat's: its `mdhd` is what ffprobe divides the sample count by
    /// for `avg_frame_rate`, and Chromium and Firefox already time it exactly.
    private var variableRate = false
    /// The codec's own sample framing (`addStream`), `nil` for libavformat's.
    private var framing: (any MP4SampleFraming)?

    /// An AVIF's plays, written into its edit list when it is finished (`AVIFRepetition`).
    private let avifPlays: AVIFRepetition.Plays

    /// `streamingTo`: write to that descriptor (its `path` is then `pipe:N`), through gifx's own AVIO context
    /// (`gifx_descriptor_avio_open`), instead of the file at `path`. `avifPlays`: how many times an AVIF plays.
    init(
        path: String, streamingTo descriptor: Int32? = nil, container: VideoContainer = .mp4,
        layout: MP4Layout? = .faststart, displayPath: String? = nil, avifPlays: AVIFRepetition.Plays = .forever
    ) throws {
        self.avifPlays = avifPlays
        let path = descriptor.map { "pipe:\($0)" } ?? path
        self.path = path
        self.descriptor = descriptor
        self.displayPath = displayPath ?? path
        self.container = container
        self.layout = container == .mp4 ? layout : nil
        var context: UnsafeMutablePointer<AVFormatContext>?
        let setUp = "setting up the \(container.rawValue) muxer"
        try check(gifx_avformat_alloc_output_context2(&context, nil, container.muxerName, path), setUp, path: displayPath)
        guard let context else { throw LibavError(setUp, path: displayPath) }
        self.context = context
        // Matroska otherwise writes a random SegmentUID: the same GIF and options give the same WebM bytes.
        if container == .webm { context.pointee.flags |= AVFMT_FLAG_BITEXACT }
    }

    deinit {
        gifx_av_packet_free(&heldPacket)
        if let context {
            if fileOpen { closeOutput(context) }
            gifx_avformat_free_context(context)
        }
    }

    @discardableResult
    private func closeOutput(_ context: UnsafeMutablePointer<AVFormatContext>) -> Int32 {
        descriptor != nil ? gifx_descriptor_avio_close(&context.pointee.pb) : gifx_avio_closep(&context.pointee.pb)
    }

    /// Whether the encoder must put its parameter sets in extradata (true for MP4).
    var wantsGlobalHeader: Bool {
        guard let format = context?.pointee.oformat else { return true }
        return format.pointee.flags & AVFMT_GLOBALHEADER != 0
    }

    /// Adds the video stream described by `encoder`'s opened context, with `codecTag` (e.g. `hvc1`) and
    /// the constant frame rate announced in the container (`nil` for VFR: the `stts` carries each sample's
    /// duration, in the encoder's time base, 1/100 s).
    /// `framing`: the codec's own sample framing in MP4 (its configuration record replaces the extradata here,
    /// and `write` frames each packet), `nil` for libavformat's.
    func addStream(
        from encoder: VideoEncoder, codecTag: UInt32?, frameRate: AVRational?, framing: (any MP4SampleFraming)? = nil
    ) throws {
        guard let context, let stream = gifx_avformat_new_stream(context, nil) else {
            throw LibavError("out of memory (stream)")
        }
        try check(gifx_avcodec_parameters_from_context(stream.pointee.codecpar, encoder.context), "copying codec parameters")
        if let framing, container == .mp4 {
            let record: [UInt8]
            do { record = try framing.configurationRecord(extradata: encoder.extradata) } catch let error as BitstreamError {
                throw LibavError("writing the sample entry: \(error)", failure: .internalError)
            }
            let buffer = try VideoEncoder.extradataBuffer(record)
            gifx_av_freep(&stream.pointee.codecpar.pointee.extradata)
            stream.pointee.codecpar.pointee.extradata = buffer
            stream.pointee.codecpar.pointee.extradata_size = Int32(record.count)
            self.framing = framing
        }
        if let codecTag { stream.pointee.codecpar.pointee.codec_tag = codecTag }
        stream.pointee.time_base = encoder.timeBase
        if let frameRate {
            stream.pointee.avg_frame_rate = frameRate
            stream.pointee.r_frame_rate = frameRate
        }
        self.stream = stream
        variableRate = frameRate == nil
    }

    /// Opens the file and writes the header (the muxer may change the stream's time base here).
    /// `knownDuration` (microseconds), for a descriptor: written into a WebM's header, and into a fragmented
    /// MP4's moov as it goes out, so a reader of the pipe, which cannot seek to the end, knows the duration.
    func writeHeader(knownDuration: Int64? = nil) throws {
        guard let context else { return }
        if let descriptor {
            if let knownDuration, container == .webm { context.pointee.duration = knownDuration }
            try check(
                gifx_descriptor_avio_open(&context.pointee.pb, descriptor, container == .mp4 ? knownDuration ?? 0 : 0),
                "opening the output", path: displayPath)
        } else {
            try check(gifx_avio_open(&context.pointee.pb, path, AVIO_FLAG_WRITE), "opening the output", path: displayPath)
        }
        fileOpen = true
        var options: OpaquePointer?
        defer { gifx_av_dict_free(&options) }
        for option in layout?.muxerOptions ?? [] { gifx_av_dict_set(&options, option.key, option.value, 0) }
        try check(gifx_avformat_write_header(context, &options), "writing the \(container.rawValue) header", path: displayPath)
    }

    /// Writes one encoded packet whose times are in `timeBase`.
    func write(_ packet: UnsafeMutablePointer<AVPacket>, timeBase: AVRational) throws {
        guard let context, let stream else { return }
        if let framing { try frame(packet, framing) }
        gifx_av_packet_rescale_ts(packet, timeBase, stream.pointee.time_base)
        packet.pointee.stream_index = stream.pointee.index
        if layout != nil {
            presentationEnd = max(presentationEnd, packet.pointee.pts + packet.pointee.duration)
            presentationStart = min(presentationStart, packet.pointee.pts)
        }
        guard layout != nil else {
            try check(gifx_av_write_frame(context, packet), "writing to the output", path: displayPath)
            return
        }
        if heldPacket == nil {
            guard let fresh = gifx_av_packet_alloc() else { throw LibavError("out of memory (packet)") }
            heldPacket = fresh
        } else if let held = heldPacket {
            defer { gifx_av_packet_unref(held) }
            try check(gifx_av_write_frame(context, held), "writing to the output", path: displayPath)
        }
        gifx_av_packet_move_ref(heldPacket, packet)
    }

    /// Replaces `packet`'s data with its sample as `framing` frames it (never longer: rewritten in place).
    private func frame(_ packet: UnsafeMutablePointer<AVPacket>, _ framing: any MP4SampleFraming) throws {
        guard let data = packet.pointee.data, packet.pointee.size > 0 else { return }
        let sample: [UInt8]
        do { sample = try framing.sample(UnsafeBufferPointer(start: data, count: Int(packet.pointee.size))) } catch let error as BitstreamError {
            throw LibavError("writing a sample: \(error)", failure: .internalError)
        }
        guard sample.count <= packet.pointee.size else {
            throw LibavError("writing a sample: its framing is longer than the packet", failure: .internalError)
        }
        try check(gifx_av_packet_make_writable(packet), "writing to the output", path: displayPath)
        guard let writable = packet.pointee.data else { return }
        sample.withUnsafeBufferPointer { writable.update(from: $0.baseAddress!, count: sample.count) }
        gifx_av_shrink_packet(packet, Int32(sample.count))
    }

    /// Writes the index (moved to the front: faststart) or the last fragment, flushes and closes the file.
    func finish() throws {
        guard let context else { return }
        // The `stts` box holds decode-time deltas, and the last one is the last packet's duration. With
        // B-frames the last packet's dts is below the presentation end, so the samples would cover less than
        // the presentation (tick3 in VFR: 0.24 s of samples for an edit list that needs 0.30 s, its first
        // 0.06 s being the reorder delay): a reader that takes the duration from the samples (Chromium) plays
        // it short, and the `mdhd` duration disagrees with both. The last packet's duration is stretched so
        // the decode timeline ends at the presentation end. libavformat also takes the presentation end from
        // that packet (pts + duration), which the stretch lengthens, so a faststart file's edit list, `tkhd`,
        // `mvhd` and `mdhd` durations are then set in place (`MP4DurationPatch`): the `stts` sum = `mdhd` =
        // the edit's media start (the reorder delay) + its duration (the GIF's). A fragmented MP4 has no
        // edit-list duration (its moov is written before the end is known), so its presentation ends where
        // the decode timeline does: the stretch alone is enough. No bytes are added (docs/browsers.md compares
        // this with writing VFR without B-frames, 2-21 % larger).
        if let held = heldPacket, held.pointee.size > 0 {
            let stretch = layout == .fragmented || variableRate
            if stretch { held.pointee.duration = max(held.pointee.duration, presentationEnd - held.pointee.dts) }
            defer { gifx_av_packet_unref(held) }
            try check(gifx_av_write_frame(context, held), "writing to the output", path: displayPath)
        }
        try check(gifx_av_write_trailer(context), "finishing the \(container.rawValue)", path: displayPath)
        fileOpen = false
        try check(closeOutput(context), "closing the output", path: displayPath)
        // AVIF: FFmpeg's muxer in avif mode writes 0 as the `mvhd` and `tkhd` durations (only `mdhd`, the
        // `stts` sum, is right) and no edit list, which browsers read as "loop forever" (FFmpeg 5.1, the version
        // measured: docs/conformance.md, "AVIF plays"). AV1 has no reordering
        // (pts = dts), so the samples cover one play exactly: `AVIFRepetition` writes the edit list of that play,
        // its repetition, and the movie and track durations of every play.
        if container == .avif {
            try AVIFRepetition.apply(path: path, plays: avifPlays)
        } else if layout == .faststart && variableRate, let stream, presentationEnd > presentationStart {
            try MP4DurationPatch.apply(
                path: path, presentationUnits: presentationEnd - presentationStart, trackScale: stream.pointee.time_base.den)
        }
    }
}
