/// The file format around the video stream.
public enum VideoContainer: String, CaseIterable, Codable, Sendable {
    /// MP4 (ISO BMFF) with `+faststart`.
    case mp4
    /// WebM (Matroska's web subset): VP9 or AV1.
    case webm
    /// Animated AVIF (an AV1 image sequence in ISO BMFF, brand `avis`): AV1 only. FFmpeg's muxer takes one
    /// stream (in 5.1, the version gifx is built and measured against; an alpha auxiliary track came in 6.0), so
    /// transparency is composited over the background.
    case avif

    /// The codec used when none is asked for: H.264 in MP4, VP9 in WebM, AV1 in AVIF (the first codec of
    /// `VideoCodecRegistry` whose descriptor names the container in `defaultIn`).
    public var defaultCodec: VideoCodec {
        VideoCodecRegistry.codecs.first { $0.descriptor.defaultIn.contains(self) } ?? VideoCodecRegistry.builtIn[0]
    }

    /// Whether the file is ISO BMFF with a `moov` (MP4, AVIF): its durations can be checked and patched.
    var isISOBMFF: Bool { self != .webm }

    /// libavformat's muxer name.
    var muxerName: String { rawValue }
}
