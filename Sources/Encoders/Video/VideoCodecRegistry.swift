/// The codecs gifx writes, each described in its own folder under Sources/Encoders/Video/ (`H264/`, `HEVC/`,
/// `VP9/`, `AV1/`): a fifth codec is its folder, with a `VideoCodecDescriptor` and its `VideoCodec` static
/// member, and one line in `builtIn`. Names parse (`VideoCodec(rawValue:)`), containers pick their default
/// codec and libav streams find their codec's decoders through this list alone.
package enum VideoCodecRegistry {
    /// The codecs gifx ships, in order: a container's default codec is the first that names it
    /// (`VideoCodecDescriptor.defaultIn`).
    package static let builtIn: [VideoCodec] = [.h264, .hevc, .vp9, .av1]

    /// The codecs this task sees: `builtIn`, unless a caller (a test of a codec of its own) binds a list for
    /// the length of a closure with `$codecs.withValue(builtIn + [codec]) { ... }`.
    @TaskLocal package static var codecs: [VideoCodec] = builtIn

    /// The codec libavcodec names `name` (`avcodec_get_name`: `h264`, `hevc`, `vp9`, `av1`), `nil` for others.
    package static func codec(libavName name: String) -> VideoCodec? {
        codecs.first { $0.descriptor.libavName == name }
    }

    /// The codec one of whose encoders is `encoder` (`libx264`, `libaom-av1`), `nil` for an encoder of none.
    package static func codec(encoder: String) -> VideoCodec? {
        codecs.first { $0.descriptor.encoderNames.contains(encoder) }
    }
}
