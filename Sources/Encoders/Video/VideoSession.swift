internal import CAV
import GifxFrames
import GifxTimeline

#if canImport(Glibc)
import Glibc
#endif

/// What one `VideoSession` wrote.
public struct VideoSummary: Sendable, Hashable {
    /// Canvases pulled from the sources (GIF frames × loops).
    public var canvases: Int
    /// Video frames encoded.
    public var outputFrames: Int
}

/// One video being written: canvases in frame order, one play after another (`endLoop` between plays), then
/// `finish`. Each canvas is converted once and sent as the samples its `OutputPlan` placement says, at the
/// plan's timestamps (offset by whole plays).
public final class VideoSession {
    private let plan: OutputPlan
    private let timeline: Timeline
    private let converter: YUVConverter
    private let encoder: VideoEncoder
    private let muxer: VideoMuxer
    private let timeBase: AVRational
    private var index = 0
    private var loop = 0
    /// Canvases received (GIF frames × plays so far).
    public private(set) var canvases = 0
    /// Video frames encoded so far.
    public private(set) var outputFrames = 0
    /// Sees every packet before the muxer does, in the encoder's time base (a verifying conversion decodes them as they come).
    var packetObserver: ((UnsafeMutablePointer<AVPacket>, AVRational) throws -> Void)?
    /// Sees every converted frame before it is encoded (a verifying conversion keeps a copy until it is decoded);
    /// `nil` for a canvas the plan never shows.
    var frameObserver: ((UnsafeMutablePointer<AVFrame>?) -> Void)?
    /// The encoder's context (the verifier's decoder is set up from its parameters).
    var encoderContext: UnsafeMutablePointer<AVCodecContext> { encoder.context }

    init(
        plan: OutputPlan, timeline: Timeline, converter: YUVConverter, encoder: VideoEncoder, muxer: VideoMuxer,
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
        guard placement.samples > 0 else {
            frameObserver?(nil)
            return
        }
        try encoder.prepareFrameForWriting()
        try converter.convert(canvas, into: encoder.frame)
        frameObserver?(encoder.frame)
        let offset = loop * plan.unitsPerPlay
        let timeBase = self.timeBase
        for sample in 0..<placement.samples {
            let pts = offset + placement.firstTimestamp + sample * placement.unitsEach
            try encoder.encode(pts: Int64(pts), duration: Int64(placement.unitsEach)) {
                try packetObserver?($0, timeBase)
                try muxer.write($0, timeBase: timeBase)
            }
            outputFrames += 1
        }
    }

    /// Ends one play: every GIF frame must have arrived.
    public func endLoop() throws {
        guard index == timeline.frames.count else {
            throw LibavError(
                "the frame source delivered \(index) of \(timeline.frames.count) frames", failure: .internalError)
        }
        index = 0
        loop += 1
    }

    /// Drains the encoder and writes the trailer.
    public func finish() throws -> VideoSummary {
        let timeBase = self.timeBase
        try encoder.finish {
            try packetObserver?($0, timeBase)
            try muxer.write($0, timeBase: timeBase)
        }
        try muxer.finish()
        return VideoSummary(canvases: canvases, outputFrames: outputFrames)
    }
}
