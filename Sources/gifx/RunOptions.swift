import ArgumentParser
import GifxKit
import GifxTimeline

/// Options every converting subcommand shares: output handling, reporting and resource limits.
struct RunOptions: ParsableArguments {
    @Flag(help: "Replace an existing output file.") var overwrite = false
    @Flag(help: "No progress bar and no warnings on stderr.") var quiet = false
    @Flag(help: ArgumentHelp(
        "Print a JSON summary (frames, fps, wall time, peak cache bytes) on stdout when done.",
        discussion: """
            One format for convert, to-mp4 and to-sprite (and the stats of batch's report): command, frames (the \
            input's), decodedFrames, wallSeconds, peakCacheBytes, cacheCapacity, decode (threads, window, \
            peakWindowBytes), peakRSSBytes, memory, and outputs, one object per output: kind, paths, bytes, frames \
            (samples, cells, 1 for a poster), width, height and its kind's own fields (a video's fps, codec, alpha, \
            encoder, mp4Layout, loops, durationSeconds, timing, pictures, keyframes, targetSize; a WebP's \
            webpSettings; a sheet's cells, cellsSaved, pages, pageSizes, cellSize, columns, indexed, pixelFormat, \
            rowBufferBytes). to-mp4 and to-sprite, which write one output, also give its fields at the top level \
            (its frames as outputFrames). A field that does not apply is absent.
            """))
    var stats = false
    @Flag(help: "Fail on damaged image data instead of keeping the frames that decode.") var strict = false
    @Option(
        help: ArgumentHelp(
            "Memory the whole run may hold (peak RSS), e.g. 512M or 2G, shared by the frame ring and every encoder; gifx picks leaner settings to fit, or refuses with exit 78 naming the smallest that works (default: the cgroup's limit, else half of the available memory).",
            valueName: "size"))
    var memoryBudget: ByteCount?
    @Option(
        help: ArgumentHelp(
            "Threads of every pool: decoding, encoders, PNG deflate, libwebp, outputs side by side (default: the cores this process may use: affinity mask or cgroup quota; 1: everything on one thread). Decoding takes threads by the work: one per 2^20 composited pixels (frames × canvas), one for canvases under 32,768 pixels.",
            valueName: "n"))
    var threads: Int?
    @Option(
        help: ArgumentHelp(
            "LZW decoder: gifx (its own, the default) or giflib (the reference it is tested against).",
            valueName: "name"))
    var decoder: GifDecoderKind = .gifx
    @OptionGroup var progress: ProgressOptions

    func validate() throws {
        if let problem = settings(policy: .flanimated).problem { throw ValidationError(problem.commandLineWording) }
    }

    var limits: DecodeLimits { DecodeLimits(strict: strict, decoder: decoder) }

    /// The run's settings: these options, `policy`, and the developer switches of the environment.
    func settings(policy: TimelinePolicy) -> RunSettings {
        var settings = RunSettings(
            policy: policy, limits: limits, memoryBudget: memoryBudget?.bytes, threads: threads, overwrite: overwrite)
        DeveloperSwitches.current.apply(to: &settings)
        return settings
    }
}

extension GifDecoderKind: ExpressibleByArgument {}
