/// Settings for an MP4 streamed to a pipe.
extension EncoderTuning {
    /// The same settings without B-frames (H.264 and HEVC; other codecs unchanged). A fragmented MP4 read from
    /// a pipe has no edit-list duration, so with B-frames its samples and its presentation disagree by the
    /// reorder delay (ffprobe reports 2.22 s for a 2.20 s GIF, or, without gifx's last-sample stretch, Chromium
    /// plays it 20 ms short). Without reordering, decode and presentation times coincide and every reader gets
    /// the GIF's duration exactly; the stream is a few percent larger (docs/delivery.md).
    func withoutBFrames(codec: VideoCodec) -> EncoderTuning {
        guard codec == .h264 || codec == .hevc else { return self }
        var tuning = withParams(["bframes=0"], codec: codec)
        tuning.setting += ", no B-frames (streamed)"
        return tuning
    }

    /// The same settings with `extra` `key=value` items in the x264/x265 params (replacing those keys).
    func withParams(_ extra: [String], codec: VideoCodec) -> EncoderTuning {
        guard codec == .h264 || codec == .hevc, !extra.isEmpty else { return self }
        var tuning = self
        let keys = Set(extra.map { $0.split(separator: "=").first.map(String.init) ?? $0 })
        var params = params.split(separator: ":").map(String.init).filter {
            !keys.contains($0.split(separator: "=").first.map(String.init) ?? $0)
        }
        params += extra
        tuning.params = params.joined(separator: ":")
        let name = codec == .h264 ? "x264-params" : "x265-params"
        tuning.options.removeAll { $0.name == name }
        tuning.options.append(EncoderOption(name, tuning.params))
        return tuning
    }

    /// The settings a stream with repeat pictures needs (H.264; docs/repeats.md): no B-frames, so decode
    /// order is presentation order and x264 writes `pic_order_cnt_type` 2, and one reference frame, so x264's
    /// picture after a run of repeats predicts from the last repeat, an exact copy of what it predicted from.
    /// VP9 needs nothing: every packet of libvpx's ends with one shown frame whose slot its header names.
    func forRepeatPictures(codec: VideoCodec = .h264) -> EncoderTuning {
        guard codec == .h264 else { return self }
        var tuning = withParams(["bframes=0", "ref=1"], codec: .h264)
        tuning.setting += ", no B-frames, 1 reference (repeat pictures)"
        return tuning
    }
}
