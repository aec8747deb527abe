import CAV
import Frames
import Timeline

#if canImport(Glibc)
import Glibc
#endif

/// What one `MP4Writer.write` produced.
public struct MP4Summary: Sendable, Hashable {
    /// Canvases pulled from the sources (GIF frames × loops).
    public var canvases: Int
    /// Video frames encoded.
    public var outputFrames: Int
}

/// `gifx to-mp4`'s engine: plans an MP4 from a GIF's `Timeline` and writes it from composited canvases.
///
/// The video is true constant frame rate: at the GIF's tick rate (100/tick fps, time base tick/100 s) each
/// canvas is sent `delay / tick` times with consecutive timestamps, so the duration equals the GIF's, last
/// delay included; at another `frameRate` Timeline's drift-free `repeatCounts(at:)` decides. Every limit
/// (frame size, rate) is checked in `init`, before anything is encoded or written.
public final class MP4Writer {
    public let timeline: Timeline
    public let options: MP4Options
    public let canvasSize: CanvasSize
    /// The encoded frame size: the canvas padded to even, or the requested size rounded to even.
    public let outputSize: CanvasSize
    /// Output frames per second (exact).
    public let frameRate: Rational
    /// For each GIF frame, how many output frames show it (one play).
    public let repeatCounts: [Int]
    /// The encoder settings (low-memory mode included).
    public let tuning: EncoderTuning

    /// Output frames for one play of the animation.
    public var framesPerLoop: Int { repeatCounts.reduce(0, +) }
    /// Output frames in the whole video.
    public var totalOutputFrames: Int { framesPerLoop * options.loops }

    /// Plans the video. `encoderBudget` (bytes) bounds the encoder's own buffers (low-memory mode when the
    /// preset's defaults would exceed it); `cores` sets how many threads low-memory mode keeps.
    /// Throws `MP4Error` with exit 64 when the request is unusable (size, rate, loops) or 65 when the GIF
    /// itself is (no frames, canvas beyond the encoder's limits).
    public init(
        timeline: Timeline, options: MP4Options, encoderBudget: Int? = nil,
        cores: Int = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    ) throws {
        self.timeline = timeline
        self.options = options
        canvasSize = timeline.canvas
        guard !timeline.frames.isEmpty else {
            throw MP4Error("the GIF has no frames to encode", exitCode: ExitStatus.dataError)
        }
        guard options.loops >= 1 else { throw MP4Error("--loops must be at least 1", exitCode: ExitStatus.usage) }
        guard options.crf >= 0 && options.crf <= 51 else {
            throw MP4Error("--crf must be between 0 and 51", exitCode: ExitStatus.usage)
        }
        guard VideoCodec.presets.contains(options.preset) else {
            throw MP4Error(
                "unknown preset \(options.preset) (one of \(VideoCodec.presets.joined(separator: ", ")))",
                exitCode: ExitStatus.usage)
        }
        let rate = options.frameRate ?? timeline.tickRate
        guard rate.num > 0, rate.den > 0, rate.num <= Int(Int32.max), rate.den <= Int(Int32.max) else {
            throw MP4Error("frame rate \(rate) is out of range", exitCode: ExitStatus.usage)
        }
        frameRate = rate

        let size: CanvasSize
        if options.size == .original {
            size = CanvasSize(
                width: canvasSize.width + canvasSize.width % 2, height: canvasSize.height + canvasSize.height % 2)
        } else {
            size = options.size.size(for: canvasSize, even: true)
        }
        let codec = options.codec
        if max(size.width, size.height) > codec.maximumSide || min(size.width, size.height) < codec.minimumSide {
            let what = options.size == .original ? "the canvas" : "the requested size"
            let hint = options.size == .original ? "; use --scale, --width or --height" : ""
            let bound = min(size.width, size.height) < codec.minimumSide
                ? "is below \(codec.encoderName)'s minimum of \(codec.minimumSide)x\(codec.minimumSide)"
                : "exceeds \(codec.encoderName)'s limit of \(codec.maximumSide) pixels a side"
            throw MP4Error(
                "\(what) (\(size.width)x\(size.height) as encoded) \(bound)\(hint)",
                exitCode: options.size == .original ? ExitStatus.dataError : ExitStatus.usage)
        }
        outputSize = size
        repeatCounts = options.frameRate == nil
            ? timeline.frames.map { $0.delay / timeline.tick.centiseconds }
            : timeline.repeatCounts(at: rate)
        let (total, overflow) = repeatCounts.reduce(0, +).multipliedReportingOverflow(by: options.loops)
        guard !overflow, total < Int(Int32.max) else {
            throw MP4Error("too many output frames", exitCode: ExitStatus.usage)
        }
        tuning = EncoderTuning.choose(options: options, frameSize: size, budget: encoderBudget, cores: max(1, cores))
    }

    /// Encodes the video into the file at `path` (created or truncated; the caller writes to a temporary
    /// file and renames it). `source(loop)` returns a fresh canvas source for each play, `progress` is told
    /// the number of output frames done. On error the file is left incomplete for the caller to discard.
    public func write<Source: CanvasSource>(
        to path: String, source: (Int) throws -> Source, progress: (Int) -> Void = { _ in }
    ) throws -> MP4Summary {
        try Libav.require(GIFX_AV_ENCODER)
        setLibavLogLevel()
        let converter = try YUVConverter(canvas: canvasSize, output: outputSize, background: options.background)
        let muxer = try MP4Muxer(path: path)
        let avRate = AVRational(num: Int32(frameRate.num), den: Int32(frameRate.den))
        let encoder = try VideoEncoder(
            codec: options.codec, width: outputSize.width, height: outputSize.height, frameRate: avRate,
            tuning: tuning, globalHeader: muxer.wantsGlobalHeader)
        let tag: UInt32? = options.codec == .hevc ? gifx_mktag(0x68, 0x76, 0x63, 0x31) : nil  // "hvc1"
        try muxer.addStream(from: encoder, codecTag: tag, frameRate: avRate)
        try muxer.writeHeader()

        let timeBase = encoder.timeBase
        let repeatCounts = self.repeatCounts
        var pts: Int64 = 0
        var canvases = 0
        for loop in 0..<options.loops {
            var frames = try source(loop)
            var index = 0
            while try frames.nextCanvas({ (canvas: Canvas) throws -> Void in
                guard index < repeatCounts.count else { return }
                let count = repeatCounts[index]
                index += 1
                guard count > 0 else { return }
                try encoder.prepareFrameForWriting()
                try converter.convert(canvas, into: encoder.frame)
                for _ in 0..<count {
                    try encoder.encode(pts: pts) { try muxer.write($0, timeBase: timeBase) }
                    pts += 1
                    progress(Int(pts))
                }
            }) != nil {
                canvases += 1
            }
            guard index == repeatCounts.count else {
                throw MP4Error(
                    "the frame source delivered \(index) of \(repeatCounts.count) frames", exitCode: ExitStatus.software)
            }
        }
        try encoder.encode(pts: nil) { try muxer.write($0, timeBase: timeBase) }
        try muxer.finish()
        return MP4Summary(canvases: canvases, outputFrames: Int(pts))
    }

    /// libav and x264 print banners and statistics on stderr; gifx reports errors itself.
    /// `GIFX_AV_LOG=1` keeps libav's messages (warnings and errors) for debugging.
    private func setLibavLogLevel() {
        let verbose = getenv("GIFX_AV_LOG").map { String(cString: $0) == "1" } ?? false
        av_log_set_level(verbose ? AV_LOG_WARNING : AV_LOG_QUIET)
    }
}
