import GifxPipeline
#if canImport(Glibc)
import Glibc
#endif

/// How the MP4's sample index is laid out. libavformat's MP4 muxer keeps one index entry per sample
/// (about 76 bytes: size, offset, duration, flags) until the trailer writes the `moov`, so a faststart file
/// of 5 million video frames needs ~380 MB for its index alone. A fragmented MP4 writes the index per
/// fragment (`moof`) and frees it, so memory stays flat in the frame count.
package enum MP4Layout: String, Sendable, Hashable, Codable {
    /// One `moov` with the whole index, moved in front of the data (players start before the file arrives).
    /// Every player and editor reads it.
    case faststart
    /// `moov` with the stream's parameters, then one `moof`+`mdat` per fragment (at a keyframe, at least one
    /// second long, at most 8 MiB). Browsers, ffmpeg, VLC, mpv and every DASH/HLS player read it; a few
    /// editors and old hardware players do not, which is why it is kept for videos too long for faststart.
    case fragmented

    /// Output frames above which the MP4 is fragmented: 250,000 frames keep a faststart index at ~19 MB
    /// (about 42 minutes at 100 fps, longer than any real GIF). `Diagnostics.fragmentedMP4Above` overrides
    /// it (tests use 0 to exercise the fragmented layout on small GIFs).
    package static let defaultFragmentAbove = 250_000

    /// The layout for a video of `outputFrames` frames in `container` (`nil` for WebM, whose cues are
    /// written per cluster anyway), fragmented above `fragmentAbove` frames.
    package static func choose(
        outputFrames: Int, container: VideoContainer, fragmentAbove: Int = defaultFragmentAbove
    ) -> MP4Layout? {
        guard container == .mp4 else { return nil }
        return outputFrames > fragmentAbove ? .fragmented : .faststart
    }

    /// The `movflags` and other muxer options that make this layout.
    var muxerOptions: [(key: String, value: String)] {
        switch self {
        case .faststart:
            return [("movflags", "+faststart")]
        case .fragmented:
            // delay_moov: the moov is written with the first fragment, once the encoder's extradata and the
            // first packets' timing (the B-frame delay's edit list) are known. default_base_moof: offsets
            // relative to each moof, as ISO BMFF readers and MSE expect.
            return [
                ("movflags", "+frag_keyframe+delay_moov+default_base_moof"),
                ("min_frag_duration", "1000000"),
                ("frag_size", "8388608"),
            ]
        }
    }
}

extension Diagnostics {
    /// The MP4 fragmenting threshold in effect.
    var fragmentAbove: Int { fragmentedMP4Above ?? MP4Layout.defaultFragmentAbove }
}
