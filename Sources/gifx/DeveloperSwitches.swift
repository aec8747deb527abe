import GifxEncoders
import Foundation

/// The environment variables that change how a run works (not what it writes), for benchmarks, tests and
/// debugging. Read here, once, and nowhere else: the library takes them as `RunSettings`. Each is listed in
/// docs/architecture.md ("Environment switches"); a value that does not parse is ignored, as before.
struct DeveloperSwitches {
    /// `GIFX_SERIAL_SINKS=1`: feed the outputs one after another (the benchmark's baseline).
    var serialSinks = false
    /// `GIFX_PNG_THREADS=N`: threads deflating a sprite sheet page (1: libpng's single stream).
    var pngDeflateThreads: Int?
    /// `GIFX_MP4_FRAGMENT_ABOVE=N`: fragment MP4s above N output frames (tests use 0).
    var fragmentedMP4Above: Int?
    /// `GIFX_AV_LOG=1`: let libav print its own warnings and errors.
    var libavLogging = false
    /// `GIFX_REPEATS=encode`: encode every repeat again instead of writing repeat pictures (the old path);
    /// `GIFX_REPEATS=real` or `=dense`: repeat pictures, the encoder shown real or one-frame durations
    /// (`RepeatTimestamps`; docs/repeats.md).
    var encodeRepeats = false
    var repeatTimestamps: RepeatTimestamps = .capped

    static let current = DeveloperSwitches(environment: ProcessInfo.processInfo.environment)

    init(environment: [String: String]) {
        serialSinks = environment["GIFX_SERIAL_SINKS"] == "1"
        pngDeflateThreads = environment["GIFX_PNG_THREADS"].flatMap(Int.init).flatMap {
            RunSettings.threadRange.contains($0) ? $0 : nil
        }
        fragmentedMP4Above = environment["GIFX_MP4_FRAGMENT_ABOVE"].flatMap(Int.init).flatMap { $0 >= 0 ? $0 : nil }
        libavLogging = environment["GIFX_AV_LOG"] == "1"
        encodeRepeats = environment["GIFX_REPEATS"] == "encode"
        repeatTimestamps = environment["GIFX_REPEATS"].flatMap(RepeatTimestamps.init(rawValue:)) ?? .capped
    }

    func apply(to settings: inout RunSettings) {
        settings.serialSinks = serialSinks
        settings.pngDeflateThreads = pngDeflateThreads
        settings.fragmentedMP4Above = fragmentedMP4Above
        settings.libavLogging = libavLogging
        settings.encodeRepeats = encodeRepeats
        settings.repeatTimestamps = repeatTimestamps
    }
}
