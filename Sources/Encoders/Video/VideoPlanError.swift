import GifxFrames

/// Why a video cannot be planned, found by `VideoPlan` before anything is opened or written: the request is
/// unusable (`usage`: the settings, a size or rate beyond the encoder or the level, too many frames), or the
/// GIF itself is (`malformedData`: no frames, a canvas beyond the encoder). One line, without flag syntax.
package struct VideoPlanError: GifxError {
    package let reason: String
    package let failureClass: FailureClass
    /// Set when the size is what is refused: encoding a resized video would work (the CLI names the flags).
    package let resizingHelps: Bool

    package var description: String { reason }

    init(_ reason: String, failure: FailureClass, resizingHelps: Bool = false) {
        self.reason = reason
        self.failureClass = failure
        self.resizingHelps = resizingHelps
    }
}
