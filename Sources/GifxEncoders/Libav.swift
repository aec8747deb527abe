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
public struct LibavUnavailable: GifxError {
    public let description: String
    public var failureClass: FailureClass { .internalError }
}
