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
    /// Video frames written (samples).
    public var outputFrames: Int
    /// Pictures the encoder coded, and their bytes (as the encoder returned them).
    public var encodedPictures = 0
    public var encodedBytes = 0
    /// Repeats written as codec-level repeat pictures (H.264 P_Skip pictures, VP9 show_existing_frame; docs/repeats.md), and their
    /// bytes: 0 where every sample went through the encoder.
    public var repeatPictures = 0
    public var repeatBytes = 0

    package init(canvases: Int, outputFrames: Int) {
        self.canvases = canvases
        self.outputFrames = outputFrames
    }
}

/// One video being written: canvases in frame order, one play after another (`endLoop` between plays), then
/// `finish`. Each canvas is converted once and sent as the samples its `OutputPlan` placement says, at the
/// plan's timestamps (offset by whole plays).
package final class VideoSession {
    private let plan: OutputPlan
    private let timeline: Timeline
    private let converter: YUVConverter
    private let encoder: VideoEncoder
    private let muxer: VideoMuxer
    private let timeBase: AVRational
    private var index = 0
    private var loop = 0
    /// Canvases received (GIF frames × plays so far).
    package private(set) var canvases = 0
    /// Video frames encoded so far.
    package private(set) var outputFrames = 0
    /// Sees every packet before the muxer does, in the encoder's time base (a verifying conversion decodes them as they come).
    var packetObserver: ((UnsafeMutablePointer<AVPacket>, AVRational) throws -> Void)?
    /// Sees every converted frame before it is encoded (a verifying conversion keeps a copy until it is decoded);
    /// `nil` for a canvas the plan never shows.
    var frameObserver: ((UnsafeMutablePointer<AVFrame>?) -> Void)?
    /// The encoder's context (the verifier's decoder is set up from its parameters).
    var encoderContext: UnsafeMutablePointer<AVCodecContext> { encoder.context }
    /// Set where repeats are written as skip pictures: each shown canvas is encoded once per run of samples
    /// (split where a key frame is due) and the rest of the run spliced in as repeat pictures.
    private let splicer: (any RepeatSplicer)?
    /// Output frames between key frames at most, counted in output frames (the encoder's own default, which it
    /// applied to the frames it saw when it saw every copy: x264's `keyint` 250, libvpx's `kf_max_dist` 128),
    /// and the last key frame's output frame.
    let keyframeInterval: Int64
    static let h264KeyframeInterval: Int64 = 250
    static let vp9KeyframeInterval: Int64 = 128
    private var lastKeyframe: Int64 = 0
    /// The longest duration (output frames) the encoder is shown for one picture (`RepeatTimestamps`,
    /// docs/repeats.md); 0: real timestamps. With a cap the encoder's clock runs on the capped durations and
    /// `sent` maps its packets back to their output frames (no reordering: first in, first out).
    private let durationCap: Int64
    private var sent: [(pts: Int64, samples: Int64)] = []
    private var sentHead = 0
    private var encoderClock: Int64 = 0
    private var encodedPictures = 0, encodedBytes = 0
    /// A packet for the rewritten and spliced pictures.
    private var scratch: UnsafeMutablePointer<AVPacket>?

    init(
        plan: OutputPlan, timeline: Timeline, converter: YUVConverter, encoder: VideoEncoder, muxer: VideoMuxer,
        timeBase: AVRational, splicer: (any RepeatSplicer)? = nil, durationCap: Int64 = 0,
        keyframeInterval: Int64 = VideoSession.h264KeyframeInterval
    ) {
        self.durationCap = durationCap
        self.keyframeInterval = keyframeInterval
        self.plan = plan
        self.timeline = timeline
        self.converter = converter
        self.encoder = encoder
        self.muxer = muxer
        self.timeBase = timeBase
        self.splicer = splicer
    }

    deinit { gifx_av_packet_free(&scratch) }

    /// Encodes the next canvas of the current play (ignored past the play's last frame).
    package func add(_ canvas: Canvas) throws {
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
        if splicer != nil {
            try encodeRun(start: Int64(offset + placement.firstTimestamp), samples: Int64(placement.samples))
            return
        }
        for sample in 0..<placement.samples {
            let pts = offset + placement.firstTimestamp + sample * placement.unitsEach
            try encoder.encode(pts: Int64(pts), duration: Int64(placement.unitsEach)) {
                encodedBytes += Int($0.pointee.size)
                try packetObserver?($0, timeBase)
                try muxer.write($0, timeBase: timeBase)
            }
            outputFrames += 1
            encodedPictures += 1
        }
    }

    /// Repeats as skip pictures: the canvas in `encoder.frame` is shown for `samples` output frames from
    /// `start`. It is encoded once per stretch between key frames (its real duration as the packet's, so
    /// x264's rate control sees the true cadence, as in VFR) and a key frame is forced where one is due,
    /// so no repeat picture stands where a key frame must be.
    private func encodeRun(start: Int64, samples: Int64) throws {
        var start = start, remaining = samples
        while remaining > 0 {
            let due = lastKeyframe + keyframeInterval
            let keyframe = start >= due
            if keyframe { lastKeyframe = start }
            let count = keyframe ? min(remaining, keyframeInterval) : min(remaining, due - start)
            if durationCap > 0 {
                sent.append((start, count))
                let seen = min(count, durationCap)
                try encoder.encode(pts: encoderClock, duration: seen, keyframe: keyframe) { try splice($0) }
                encoderClock += seen
            } else {
                try encoder.encode(pts: start, duration: count, keyframe: keyframe) { try splice($0) }
            }
            start += count
            remaining -= count
        }
    }

    /// Writes one packet of the encoder's (its `frame_num`s advanced past the repeats before it) followed by
    /// the repeat pictures that fill its duration, each one output frame long.
    private func splice(_ packet: UnsafeMutablePointer<AVPacket>) throws {
        guard let splicer else { return }
        var pts = packet.pointee.pts, samples = max(1, packet.pointee.duration)
        if durationCap > 0 {
            (pts, samples) = sent[sentHead]
            sentHead += 1
            if sentHead >= 256 {  // only the encoder's delay is outstanding: keep the queue that short
                sent.removeFirst(sentHead)
                sentHead = 0
            }
            packet.pointee.pts = pts
            packet.pointee.dts = pts
        }
        if packet.pointee.flags & AV_PKT_FLAG_KEY != 0 { lastKeyframe = max(lastKeyframe, pts) }
        encodedPictures += 1
        encodedBytes += Int(packet.pointee.size)
        let rewritten: [UInt8]?
        do {
            rewritten = try packet.pointee.data.map {
                try splicer.rewrite(UnsafeBufferPointer(start: $0, count: Int(packet.pointee.size)))
            } ?? nil
        } catch let error as BitstreamError {
            throw LibavError("splicing repeat pictures: \(error)", failure: .internalError)
        }
        packet.pointee.duration = 1
        if let rewritten {
            let flags = packet.pointee.flags
            try write(bytes: rewritten, pts: pts, flags: flags)
        } else {
            try deliver(packet)
        }
        outputFrames += 1
        for k in 1..<samples {
            let picture: [UInt8]
            do { picture = try splicer.repeatPicture() } catch let error as BitstreamError {
                throw LibavError("splicing repeat pictures: \(error)", failure: .internalError)
            }
            try write(bytes: picture, pts: pts + k, flags: 0)
            outputFrames += 1
        }
    }

    /// Writes `bytes` as one packet one output frame long at `pts` (= dts: no reordering).
    private func write(bytes: [UInt8], pts: Int64, flags: Int32) throws {
        if scratch == nil { scratch = gifx_av_packet_alloc() }
        guard let scratch else { throw LibavError("out of memory (packet)") }
        gifx_av_packet_unref(scratch)
        try check(gifx_av_new_packet(scratch, Int32(bytes.count)), "allocating a packet")
        bytes.withUnsafeBufferPointer { scratch.pointee.data.update(from: $0.baseAddress!, count: bytes.count) }
        scratch.pointee.pts = pts
        scratch.pointee.dts = pts
        scratch.pointee.duration = 1
        scratch.pointee.flags = flags
        try deliver(scratch)
        gifx_av_packet_unref(scratch)
    }

    private func deliver(_ packet: UnsafeMutablePointer<AVPacket>) throws {
        try packetObserver?(packet, timeBase)
        try muxer.write(packet, timeBase: timeBase)
    }

    /// Ends one play: every GIF frame must have arrived.
    package func endLoop() throws {
        guard index == timeline.frames.count else {
            throw LibavError(
                "the frame source delivered \(index) of \(timeline.frames.count) frames", failure: .internalError)
        }
        index = 0
        loop += 1
    }

    /// Drains the encoder and writes the trailer.
    package func finish() throws -> VideoSummary {
        let timeBase = self.timeBase
        if splicer != nil {
            try encoder.finish { try splice($0) }
        } else {
            try encoder.finish {
                encodedBytes += Int($0.pointee.size)
                try packetObserver?($0, timeBase)
                try muxer.write($0, timeBase: timeBase)
            }
        }
        try muxer.finish()
        var summary = VideoSummary(canvases: canvases, outputFrames: outputFrames)
        summary.encodedPictures = encodedPictures
        summary.encodedBytes = encodedBytes
        summary.repeatPictures = splicer?.repeatsWritten ?? 0
        summary.repeatBytes = splicer?.repeatBytes ?? 0
        return summary
    }
}
