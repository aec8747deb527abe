/// How a run works, not what it writes: the switches of benchmarks, differential tests and debugging, in one
/// value that no public type carries (issue 49). The CLI sets it from its environment (`GIFX_*`, read once in
/// `DeveloperSwitches`; docs/environment.md) and tests set it directly; a library
/// user always gets the defaults, which are what gifx ships.
package struct Diagnostics: Sendable, Equatable {
    /// Feed the outputs one after another instead of side by side (the benchmark's baseline).
    package var serialSinks = false
    /// Threads deflating a sprite sheet page, 1...256; `nil`: the run's threads, at most 4; 1: libpng's single
    /// zlib stream.
    package var pngDeflateThreads: Int?
    /// MP4s with more output frames than this (0 or more) are fragmented; `nil`: `MP4Layout.defaultFragmentAbove`.
    package var fragmentedMP4Above: Int?
    /// Let libav print its own warnings and errors on stderr (quiet otherwise).
    package var libavLogging = false
    /// Encode every repeat of a frame at a constant rate again, as gifx did before repeat pictures (the
    /// differential tests' and the benchmark's baseline; docs/repeats.md).
    package var encodeRepeats = false
    /// H.264 repeat pictures as before B-frame repeats: no B-frames, one reference, libavcodec's libx264 wrapper
    /// (the benchmark's baseline; docs/repeats.md, "B-frames with repeats (H.264)").
    package var noReferenceRepeats = false
    /// Where to write x264's own stream (Annex B, decode order) before the repeats are spliced in, with B-frame
    /// repeats: the tests decode it as the pictures the output must show (`GIFX_DEBUG_X264_STREAM`).
    package var x264StreamPath: String?
    /// With repeat pictures, the durations the encoder is shown (docs/repeats.md).
    package var repeatTimestamps: RepeatTimestamps = .capped

    package init() {}
}
