internal import CAV
import GifxFrames

/// libav is opened on first use rather than linked, so `timeline` and unscaled `to-sprite` never load
/// libavcodec and its ~100 dependencies (about 25 MB of resident memory and 30 ms per process).
/// Every libav call in Encoders happens after `Libav.require` succeeded for its group.
enum Libav {
    /// Opens the libraries `group` needs (once per process); throws a one-line error naming the missing library.
    static func require(_ group: gifx_av_group) throws {
        var buffer = [CChar](repeating: 0, count: 512)
        if gifx_av_load(group, &buffer, buffer.count) != 0 {
            let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw LibavUnavailable(description: text)
        }
    }

    /// Whether libavutil's functions (e.g. `av_strerror`) can be called.
    static var isLoaded: Bool {
        gifx_av_is_loaded(GIFX_AV_SCALER) != 0 || gifx_av_is_loaded(GIFX_AV_ENCODER) != 0
    }
}

/// The libav shared libraries could not be opened: an installation problem, reported as `internalError`.
package struct LibavUnavailable: GifxError {
    package let description: String
    package var failureClass: FailureClass { .internalError }
}

/// The libav libraries as this process loads them, for a version report: opening them is the point, so this
/// loads the encoder group (as `to-mp4` would) and reports each library's run-time version and file.
package enum LibavVersions {
    package struct Library: Sendable {
        package let name: String
        /// major.minor.micro, from the library's own `*_version()` (not the headers gifx was built with).
        package let version: String
        /// The file dlopen picked (dlinfo), e.g. /lib/x86_64-linux-gnu/libavcodec.so.59.
        package let path: String?
    }

    /// The four libraries in load order, and FFmpeg's release string (`av_version_info`).
    package static func load() throws -> (libraries: [Library], ffmpeg: String) {
        try Libav.require(GIFX_AV_ENCODER)
        func dotted(_ v: UInt32) -> String { "\(v >> 16).\((v >> 8) & 0xff).\(v & 0xff)" }
        let versions: [(String, UInt32)] = [
            ("libavutil", gifx_avutil_version()), ("libswscale", gifx_swscale_version()),
            ("libavcodec", gifx_avcodec_version()), ("libavformat", gifx_avformat_version()),
        ]
        let libraries = versions.enumerated().map { index, entry in
            Library(name: entry.0, version: dotted(entry.1), path: gifx_av_library_path(Int32(index)).map { String(cString: $0) })
        }
        return (libraries, gifx_av_version_info().map { String(cString: $0) } ?? "unknown")
    }
}
