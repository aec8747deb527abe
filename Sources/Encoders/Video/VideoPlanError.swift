import GifxFrames
import GifxTimeline

/// Why a video cannot be planned, found by `VideoPlan` before anything is opened or written: the request is
/// unusable (`usage`: the settings, a size or rate beyond the encoder or the level, too many frames), or the
/// GIF itself is (`malformedData`: no frames, a canvas beyond the encoder). One line of facts, without flag
/// syntax: what would work instead is in `remedy`, which the CLI words with its flags and `gifx serve` with its
/// query's names.
package struct VideoPlanError: GifxError {
    /// What a caller could change for a plan that works, as facts.
    package enum Remedy: Sendable, Equatable {
        /// The size is what is refused: a resized video would be encoded.
        case resize
        /// The encoder takes frames of at most `longest` seconds at a constant rate, and this plan's frames last
        /// longer: a variable rate, or a constant rate of at least `1 / longest` fps, would be encoded.
        case shorterFrames(longest: Rational)
        /// The container cannot hold this one frame: a still (or animated WebP) output would.
        case stillOutput
    }

    package let reason: String
    package let failureClass: FailureClass
    package let remedy: Remedy?
    /// Set when the size is what is refused: encoding a resized video would work (the CLI names the flags).
    package var resizingHelps: Bool { remedy == .resize }

    package var description: String { reason }

    init(_ reason: String, failure: FailureClass, remedy: Remedy? = nil) {
        self.reason = reason
        self.failureClass = failure
        self.remedy = remedy
    }
}
