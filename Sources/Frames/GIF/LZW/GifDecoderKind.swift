/// Which LZW decoder turns an image's data into colour indices. Both give byte-identical canvases, the same
/// warnings and the same errors (the differential tests and the fuzz target hold them to it); giflib stays
/// as the oracle and as a run-time fallback (`--decoder giflib`).
public enum GifDecoderKind: String, Sendable, Hashable, CaseIterable {
    /// gifx's own streaming decoder (Sources/Frames/LZW): whole strings per code, rows composited as
    /// they complete. The default.
    case gifx
    /// giflib's `DGifGetLine`, one row at a time into a line buffer, then composited.
    case giflib
}
