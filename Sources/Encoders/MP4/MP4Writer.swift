internal import CAV
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
/// Where each canvas goes comes from the `OutputPlan`: by default true constant frame rate at the GIF's tick
/// (100/tick fps, time base tick/100 s), each canvas sent `delay / tick` times with consecutive timestamps,
/// so the duration equals the GIF's, last delay included; at another rate the plan's drift-free resample;
/// in VFR one sample per canvas at its start in cs (time base 1/100 s), lasting its delay. Every limit
/// (frame size, rate) is checked in `init`, before anything is encoded or written.
public final class MP4Writer {
    public let timeline: Timeline
    public let options: MP4Options
    public let canvasSize: CanvasSize
    /// The encoded frame size: the canvas padded to even, or the requested size rounded to even.
    public let outputSize: CanvasSize
    /// Output frames per second (exact): the constant rate, or for VFR the peak rate (100 / shortest delay),
    /// which is what the encoder's level must allow.
    public let frameRate: Rational
    /// Where every GIF frame goes in the video (computed per frame on demand, nothing stored per frame).
    public let plan: OutputPlan
    /// The encoder settings (low-memory mode included).
    public let tuning: EncoderTuning
    /// The H.264 level the stream needs at `outputSize` and `frameRate` (Annex A); `nil` for HEVC.
    public let requiredLevel: H264Level?
    /// How the MP4's index is written: faststart, or fragmented above `RunSettings.fragmentedMP4Above` output
    /// frames (so the muxer's per-sample index does not grow with the video); `nil` for WebM.
    public let layout: MP4Layout?
    /// Whether libav may print its own warnings and errors (a debugging aid).
    private let libavLogging: Bool

    /// Output frames for one play of the animation.
    public var framesPerLoop: Int { plan.outputFrames }
    /// Output frames in the whole video.
    public var totalOutputFrames: Int { framesPerLoop * options.loops }

    /// Plans the video. `encoderBudget` (bytes, the memory budget) bounds the encoder's own buffers
    /// (low-memory mode when the preset's defaults would exceed it); without it the budget comes from the
    /// `available` memory (read from the system when `nil`); `cores` sets how many threads low-memory mode keeps.
    /// Throws `MP4Error` with exit 64 when the request is unusable (size, rate, loops) or 65 when the GIF
    /// itself is (no frames, canvas beyond the encoder's limits).
    public init(
        timeline: Timeline, options: MP4Options, encoderBudget: Int? = nil,
        cores: Int = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), available: AvailableMemory? = nil,
        fragmentAbove: Int = MP4Layout.defaultFragmentAbove, libavLogging: Bool = false
    ) throws {
        self.libavLogging = libavLogging
        self.timeline = timeline
        self.options = options
        canvasSize = timeline.canvas
        guard !timeline.frames.isEmpty else {
            throw MP4Error("the GIF has no frames to encode", failure: .malformedData)
        }
        if let problem = options.problem { throw MP4Error(problem.description, failure: .usage) }
        plan = OutputPlan(timeline: timeline, request: options.timing, maxRate: options.maxFrameRate)
        frameRate = plan.rate ?? plan.peakRate

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
            let bound = min(size.width, size.height) < codec.minimumSide
                ? "is below \(codec.encoderName)'s minimum of \(codec.minimumSide)x\(codec.minimumSide)"
                : "exceeds \(codec.encoderName)'s limit of \(codec.maximumSide) pixels a side"
            throw MP4Error(
                "\(what) (\(size.width)x\(size.height) as encoded) \(bound)",
                failure: options.size == .original ? .malformedData : .usage,
                resizingHelps: options.size == .original)
        }
        outputSize = size
        let (total, overflow) = plan.outputFrames.multipliedReportingOverflow(by: options.loops)
        let (units, unitsOverflow) = plan.unitsPerPlay.multipliedReportingOverflow(by: options.loops)
        guard !overflow, !unitsOverflow, total < Int(Int32.max), units < Int(Int32.max) else {
            throw MP4Error("too many output frames", failure: .usage)
        }
        layout = MP4Layout.choose(outputFrames: total, container: options.container, fragmentAbove: fragmentAbove)
        requiredLevel = options.codec == .h264
            ? H264Level.required(width: size.width, height: size.height, fps: frameRate) : nil
        tuning = EncoderTuning.choose(
            options: options, frameSize: size, budget: encoderBudget, cores: max(1, cores), available: available)
    }

    /// Encodes the video into the file at `path` from one fresh canvas source per play (`source(loop)`);
    /// a convenience over `begin(path:)` for callers that own their sources (tests). `gifx` goes through
    /// `Conversion`, which pushes canvases into a `VideoSink` instead. On error the file is left incomplete
    /// for the caller to discard.
    public func write<Source: CanvasSource>(
        to path: String, source: (Int) throws -> Source, progress: (Int) -> Void = { _ in }
    ) throws -> MP4Summary {
        let session = try begin(path: path)
        for loop in 0..<options.loops {
            var frames = try source(loop)
            while try frames.nextCanvas({ (canvas: Canvas) throws -> Void in
                try session.add(canvas)
                progress(session.outputFrames)
            }) != nil {}
            try session.endLoop()
        }
        return try session.finish()
    }

    /// Whether the stream can carry transparency: VP9 in WebM (yuva420p). Whether it does is decided from
    /// the first canvas (`VideoSink`), since a GIF without transparency should not pay for an alpha plane.
    public var canKeepAlpha: Bool { options.codec.carriesAlpha && options.container == .webm }

    /// Opens the encoder and the muxer on `path` (created or truncated; the caller writes to a temporary
    /// file and renames it) and writes the header: the canvases are then pushed with `MP4Session.add`.
    /// `keepAlpha` (only where `canKeepAlpha`): encode yuva420p instead of compositing over the background.
    public func begin(path: String, keepAlpha: Bool = false) throws -> MP4Session {
        try Libav.require(GIFX_AV_ENCODER)
        setLibavLogLevel()
        let alpha = keepAlpha && canKeepAlpha
        let converter = try YUVConverter(
            canvas: canvasSize, output: outputSize, background: options.background, keepAlpha: alpha)
        let muxer = try MP4Muxer(path: path, container: options.container, layout: layout)
        let avRate = AVRational(num: Int32(frameRate.num), den: Int32(frameRate.den))
        let timeBase = AVRational(num: Int32(plan.timeBase.num), den: Int32(plan.timeBase.den))
        let encoder = try VideoEncoder(
            codec: options.codec, width: outputSize.width, height: outputSize.height, frameRate: avRate,
            timeBase: timeBase, tuning: tuning, globalHeader: muxer.wantsGlobalHeader, alpha: alpha)
        signalledLevel = encoder.signalledH264Level
        let hevcInMP4 = options.codec == .hevc && options.container == .mp4
        let tag: UInt32? = hevcInMP4 ? gifx_mktag(0x68, 0x76, 0x63, 0x31) : nil  // "hvc1"
        try muxer.addStream(from: encoder, codecTag: tag, frameRate: plan.kind == .cfr ? avRate : nil)
        try muxer.writeHeader()
        return MP4Session(
            plan: plan, timeline: timeline, converter: converter, encoder: encoder, muxer: muxer, timeBase: timeBase)
    }

    /// The stream's H.264 level when it is above 4.2, which many players cannot decode (the CLI warns once,
    /// naming the options that lower it); `nil` otherwise, and for other codecs.
    public var levelAboveWidelySupported: H264Level? {
        guard let level = signalledLevel ?? requiredLevel, level > H264Level.widelySupported else { return nil }
        return level
    }

    /// The level warning's text without its remedy: "H.264 level 5.1 (1920x1080 at 100 fps) is above 4.2,
    /// which many players cannot decode".
    public var levelProblem: String? {
        levelAboveWidelySupported.map {
            "H.264 level \($0) (\(outputSize.width)x\(outputSize.height) at \(frameRate) fps) is above 4.2, "
                + "which many players cannot decode"
        }
    }

    /// The warning printed (unless quiet) when the rate leaves GIF frames out (a capped rate, or a fixed rate
    /// below the GIF's pace): how many and the worst start error, never silently.
    public var droppedFramesWarning: String? {
        guard plan.framesNeverShown > 0, let rate = plan.rate else { return nil }
        let worst = String(format: "%.1f", Double(plan.worstStartErrorMicroseconds) / 1000)
        return "at \(rate) fps \(plan.framesNeverShown) of \(timeline.frames.count) GIF frames are never shown; "
            + "worst start error of the others \(worst) ms"
    }

    /// The level in the SPS libx264 wrote (read back from the stream's parameter sets after `write` opened
    /// the encoder); `nil` before that, or for HEVC.
    public private(set) var signalledLevel: H264Level?

    /// libav and x264 print banners and statistics on stderr; gifx reports errors itself.
    /// `libavLogging` keeps libav's messages (warnings and errors) for debugging.
    private func setLibavLogLevel() {
        gifx_av_log_set_level(libavLogging ? AV_LOG_WARNING : AV_LOG_QUIET)
    }
}

/// One MP4 being written: canvases in frame order, one play after another (`endLoop` between plays), then
/// `finish`. Each canvas is converted once and sent as the samples its `OutputPlan` placement says, at the
/// plan's timestamps (offset by whole plays).
public final class MP4Session {
    private let plan: OutputPlan
    private let timeline: Timeline
    private let converter: YUVConverter
    private let encoder: VideoEncoder
    private let muxer: MP4Muxer
    private let timeBase: AVRational
    private var index = 0
    private var loop = 0
    /// Canvases received (GIF frames × plays so far).
    public private(set) var canvases = 0
    /// Video frames encoded so far.
    public private(set) var outputFrames = 0

    init(
        plan: OutputPlan, timeline: Timeline, converter: YUVConverter, encoder: VideoEncoder, muxer: MP4Muxer,
        timeBase: AVRational
    ) {
        self.plan = plan
        self.timeline = timeline
        self.converter = converter
        self.encoder = encoder
        self.muxer = muxer
        self.timeBase = timeBase
    }

    /// Encodes the next canvas of the current play (ignored past the play's last frame).
    public func add(_ canvas: Canvas) throws {
        canvases += 1
        guard index < timeline.frames.count else { return }
        let placement = plan.placement(of: index, in: timeline)
        index += 1
        guard placement.samples > 0 else { return }
        try encoder.prepareFrameForWriting()
        try converter.convert(canvas, into: encoder.frame)
        let offset = loop * plan.unitsPerPlay
        let timeBase = self.timeBase
        for sample in 0..<placement.samples {
            let pts = offset + placement.firstTimestamp + sample * placement.unitsEach
            try encoder.encode(pts: Int64(pts), duration: Int64(placement.unitsEach)) {
                try muxer.write($0, timeBase: timeBase)
            }
            outputFrames += 1
        }
    }

    /// Ends one play: every GIF frame must have arrived.
    public func endLoop() throws {
        guard index == timeline.frames.count else {
            throw MP4Error(
                "the frame source delivered \(index) of \(timeline.frames.count) frames", failure: .internalError)
        }
        index = 0
        loop += 1
    }

    /// Drains the encoder and writes the trailer.
    public func finish() throws -> MP4Summary {
        let timeBase = self.timeBase
        try encoder.finish { try muxer.write($0, timeBase: timeBase) }
        try muxer.finish()
        return MP4Summary(canvases: canvases, outputFrames: outputFrames)
    }
}
