internal import CAV
internal import CX264

/// libx264 driven through its own API, for H.264 with repeat pictures and B-frames (docs/repeats.md, "B-frames
/// with repeats (H.264)"): a picture that repeat pictures will copy must stay a reference picture, and where x264 would
/// make it a B-frame only x264's own `X264_TYPE_BREF` keeps it one; libavcodec's wrapper forces I, P or a
/// disposable B. Everything else is set as libavcodec's wrapper sets it for gifx: the preset, `crf`, the
/// `x264-params` items (through `x264_param_parse`, as the wrapper passes them), the time base and peak rate,
/// BT.709 limited-range tags, square pixels, the parameter sets out of band (for the MP4's `avcC`) and Annex B
/// NAL units. x264's SEI (its version and settings) goes before the first picture, where the wrapper puts it.
final class X264Encoder {
    /// One coded picture: x264's NAL units (Annex B) and its timestamps in the encoder's time base.
    struct Picture {
        var bytes: [UInt8]
        var pts: Int64
        var dts: Int64
        var keyframe: Bool
    }

    /// What a picture sent must be: x264's choice, a key frame (IDR), or a reference picture (a B reference
    /// where x264 makes it a B-frame; P and I pictures are references anyway).
    enum PictureType {
        case automatic, keyframe, reference
    }

    /// The settings x264 runs with: B-frames and their pyramid, references, what B-frames predict by (as parsed, or
    /// as the open encoder validated them: x264 may drop B-frames, e.g. lossless at `crf` 0).
    struct Settings: Equatable {
        var bFrames: Int
        var pyramid: Bool
        var references: Int
        var weightedBiprediction: Bool
        var spatialDirect: Bool
    }

    private let handle: OpaquePointer
    /// SPS and PPS (Annex B), for the container's `avcC`.
    let extradata: [UInt8]
    /// x264's SEI, written before the first picture's NAL units.
    private var sei: [UInt8]?
    /// The settings the open encoder runs with (after x264's own validation).
    let settings: Settings

    /// Loads libx264 (once per process) or throws why it cannot.
    static func load() throws {
        var reason = [CChar](repeating: 0, count: 512)
        guard gifx_x264_load(&reason, reason.count) == 0 else {
            throw LibavError(String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
    }

    /// The x264 parameters of `tuning` (preset, `crf`, parameters) before the picture's own: what
    /// `Settings` reports without opening an encoder.
    private static func parameters(tuning: EncoderTuning, extra: EncoderParameters) throws -> x264_param_t {
        try load()
        var param = x264_param_t()
        guard gifx_x264_param_default_preset(&param, tuning.preset, nil) == 0 else {
            throw LibavError("libx264 has no preset \(tuning.preset)", failure: .internalError)
        }
        func parse(_ name: String, _ value: String) throws {
            guard gifx_x264_param_parse(&param, name, value) == 0 else {
                throw LibavError("setting libx264's \(name) to \(value)", failure: .internalError)
            }
        }
        try parse("crf", EncoderTuning.crfText(tuning.crf))
        for item in (tuning.parameters + extra).items {
            let text = item.rendered
            let value = text.split(separator: "=", maxSplits: 1).dropFirst().first.map(String.init) ?? "1"
            try parse(item.key, value)
        }
        return param
    }

    /// The settings x264 would run with for `tuning` and `extra`.
    static func settings(tuning: EncoderTuning, extra: EncoderParameters) throws -> Settings {
        Settings(try parameters(tuning: tuning, extra: extra))
    }

    /// Opens libx264 at `width`×`height`, announcing `frameRate` (the peak rate) with timestamps in `timeBase`.
    /// `keyframeMaximum`: x264's `keyint` (`KeyframeSchedule`), -1 for the preset's.
    init(
        width: Int, height: Int, frameRate: AVRational, timeBase: AVRational, tuning: EncoderTuning,
        extra: EncoderParameters, keyframeMaximum: Int32
    ) throws {
        var param = try Self.parameters(tuning: tuning, extra: extra)
        param.i_width = Int32(width)
        param.i_height = Int32(height)
        param.i_csp = gifx_x264_csp_i420()
        param.i_fps_num = UInt32(frameRate.num)
        param.i_fps_den = UInt32(frameRate.den)
        param.i_timebase_num = UInt32(timeBase.num)
        param.i_timebase_den = UInt32(timeBase.den)
        param.b_vfr_input = 1
        param.vui.i_sar_width = 1
        param.vui.i_sar_height = 1
        param.vui.i_colorprim = 1  // BT.709
        param.vui.i_transfer = 1
        param.vui.i_colmatrix = 1
        param.vui.b_fullrange = 0
        param.b_repeat_headers = 0
        param.b_annexb = 1
        param.i_threads = Int32(tuning.threads)
        param.i_log_level = gifx_x264_log_none()
        if keyframeMaximum > 0 { param.i_keyint_max = keyframeMaximum }
        guard let handle = gifx_x264_encoder_open(&param) else {
            throw LibavError("opening libx264 at \(width)x\(height)", failure: .internalError)
        }
        self.handle = handle
        var validated = x264_param_t()
        gifx_x264_encoder_parameters(handle, &validated)
        settings = Settings(validated)
        var nals: UnsafeMutablePointer<x264_nal_t>?
        var count: Int32 = 0
        guard gifx_x264_encoder_headers(handle, &nals, &count) >= 0, let nals else {
            gifx_x264_encoder_close(handle)
            throw LibavError("reading libx264's parameter sets", failure: .internalError)
        }
        var parameterSets: [UInt8] = []
        var sei: [UInt8] = []
        for k in 0..<Int(count) {
            let nal = nals[k]
            let bytes = Array(UnsafeBufferPointer(start: nal.p_payload, count: Int(nal.i_payload)))
            if nal.i_type == 6 { sei += bytes } else { parameterSets += bytes }
        }
        extradata = parameterSets
        self.sei = sei.isEmpty ? nil : sei
    }

    deinit { gifx_x264_encoder_close(handle) }

    /// Sends the yuv420p picture in `frame` at `pts`; returns the pictures x264 hands back (decode order).
    func encode(_ frame: UnsafeMutablePointer<AVFrame>, pts: Int64, type: PictureType) throws -> Picture? {
        var picture = x264_picture_t()
        gifx_x264_picture_init(&picture)
        picture.img.i_csp = gifx_x264_csp_i420()
        picture.img.i_plane = 3
        picture.img.plane = (frame.pointee.data.0, frame.pointee.data.1, frame.pointee.data.2, nil)
        picture.img.i_stride = (frame.pointee.linesize.0, frame.pointee.linesize.1, frame.pointee.linesize.2, 0)
        picture.i_pts = pts
        switch type {
        case .automatic: picture.i_type = gifx_x264_type_auto()
        case .keyframe: picture.i_type = gifx_x264_type_idr()
        case .reference: picture.i_type = gifx_x264_type_bref()
        }
        return try call(&picture)
    }

    /// The pictures x264 still holds, one per call; `nil` when none is left.
    func flush() throws -> Picture? {
        while gifx_x264_encoder_delayed_frames(handle) > 0 {
            if let picture = try call(nil) { return picture }
        }
        return nil
    }

    private func call(_ input: UnsafeMutablePointer<x264_picture_t>?) throws -> Picture? {
        var nals: UnsafeMutablePointer<x264_nal_t>?
        var count: Int32 = 0
        var output = x264_picture_t()
        let size = gifx_x264_encoder_encode(handle, &nals, &count, input, &output)
        guard size >= 0 else { throw LibavError("libx264 failed to encode a picture", failure: .internalError) }
        guard size > 0, let nals else { return nil }
        // x264's NAL units of one picture lie back to back in one buffer.
        var bytes = sei ?? []
        sei = nil
        bytes.append(contentsOf: UnsafeBufferPointer(start: nals[0].p_payload, count: Int(size)))
        return Picture(bytes: bytes, pts: output.i_pts, dts: output.i_dts, keyframe: output.b_keyframe != 0)
    }
}

extension X264Encoder.Settings {
    /// Whether held pictures can be B references and repeats follow them (`H264ReferenceRepeatSplicer`): 2 B-frames
    /// or more in a pyramid, more references than B references + 3 (x264 keeps several B references only then), no
    /// implicit weighted bi-prediction and spatial direct prediction (neither depends on picture order counts).
    var allowReferenceRepeats: Bool {
        bFrames >= 2 && pyramid && references >= bFrames + 3 && !weightedBiprediction && spatialDirect
    }

    fileprivate init(_ param: x264_param_t) {
        bFrames = Int(param.i_bframe)
        pyramid = param.i_bframe_pyramid == gifx_x264_pyramid_normal()
        references = Int(param.i_frame_reference)
        weightedBiprediction = param.analyse.b_weighted_bipred != 0
        spatialDirect = param.analyse.i_direct_mv_pred == gifx_x264_direct_spatial()
    }
}
