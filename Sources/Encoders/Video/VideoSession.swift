internal import CAV
import Foundation
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
    /// Repeats written as codec-level repeat pictures (H.264 P_Skip pictures, VP9 skip frames, AV1 show_existing_frame; docs/repeats.md), and their
    /// bytes: 0 where every sample went through the encoder.
    public var repeatPictures = 0
    public var repeatBytes = 0
    /// When each key frame is shown, in seconds from the start of the video (plays after the first included),
    /// in order: the packets the encoder flagged as key frames, which the container marks as sync samples
    /// (docs/repeats.md, "Key frames").
    public var keyframeTimes: [Double] = []

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
    /// (twice where VP9 and AV1 code the copy after a key frame) and the rest of the run spliced in as repeat pictures.
    private let splicer: (any RepeatSplicer)?
    /// Where key frames go: at the first distinct picture at or after each due time (`KeyframeSchedule`).
    private var keyframes: KeyframeSchedule
    /// The timestamps (time-base units) of the packets flagged as key frames, as written.
    private var keyframeTimestamps: [Int64] = []
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
    /// H.264 with B-frames (`H264ReferenceRepeatSplicer`): x264 returns its pictures in decode order, and a held
    /// picture's repeats are written once every picture shown before them is (`releaseRepeats`).
    private let referenceSplicer: H264ReferenceRepeatSplicer?
    /// Pictures sent to the encoder and not yet returned: by the encoder's pts, their first output frame and
    /// how many they fill; and those first output frames, in order.
    private var inFlight: [Int64: (start: Int64, samples: Int64)] = [:]
    private var outstandingStarts: [Int64] = []
    /// Pictures returned whose repeats wait for an earlier-shown picture: in order of their first output frame.
    private var heldBack: [(start: Int64, samples: Int64, picture: H264ReferenceRepeatSplicer.CodedPicture)] = []
    /// Samples written so far, in decode order: each sample's decode time is its index less the reorder delay.
    private var decodeIndex: Int64 = 0
    /// The splicer's reorder delay (`H264ReferenceRepeatSplicer.reorderDelay`), in output frames: the most
    /// samples decoded before one and shown after it.
    private var reorderDelay: Int64 { Int64(referenceSplicer?.reorderDelay ?? 0) }
    /// `Diagnostics.x264StreamPath`: x264's stream as it came, before splicing.
    private var x264Stream: FileHandle?

    init(
        plan: OutputPlan, timeline: Timeline, converter: YUVConverter, encoder: VideoEncoder, muxer: VideoMuxer,
        timeBase: AVRational, splicing: RepeatSplicing? = nil, durationCap: Int64 = 0,
        keyframes: KeyframeSchedule, x264StreamPath: String? = nil
    ) {
        let reordered: H264ReferenceRepeatSplicer?
        switch splicing {
        case .inOrder(let splicer)?: self.splicer = splicer; reordered = nil
        case .reordered(let splicer)?: self.splicer = nil; reordered = splicer
        case nil: splicer = nil; reordered = nil
        }
        referenceSplicer = reordered
        if let x264StreamPath, reordered != nil {  // begun by `VideoPlan` with x264's parameter sets
            x264Stream = FileHandle(forWritingAtPath: x264StreamPath)
            x264Stream?.seekToEndOfFile()
        }
        self.durationCap = durationCap
        self.keyframes = keyframes
        self.plan = plan
        self.timeline = timeline
        self.converter = converter
        self.encoder = encoder
        self.muxer = muxer
        self.timeBase = timeBase
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
        if splicer != nil || referenceSplicer != nil {
            try encodeRun(start: Int64(offset + placement.firstTimestamp), samples: Int64(placement.samples))
            return
        }
        for sample in 0..<placement.samples {
            let pts = offset + placement.firstTimestamp + sample * placement.unitsEach
            // Only the first sample shows a new picture: the others are copies, where no key frame goes.
            let keyframe = sample == 0 && keyframes.keyframeDue(at: Int64(pts))
            keyframes.sent(at: Int64(pts))
            try encoder.encode(pts: Int64(pts), duration: Int64(placement.unitsEach), keyframe: keyframe) {
                encodedBytes += Int($0.pointee.size)
                try deliver($0)
            }
            outputFrames += 1
            encodedPictures += 1
        }
    }

    /// Repeats as skip pictures: the canvas in `encoder.frame` is shown for `samples` output frames from
    /// `start`. It is encoded once (its real duration up to the cap as the packet's, so the encoder's rate
    /// control sees the true cadence, as in VFR) and the rest of the run is spliced in as repeat pictures. A
    /// key frame due goes on this picture, never inside the run (`KeyframeSchedule`); for VP9 and AV1 the copy after a
    /// key frame is encoded too, so no repeat shows a key frame.
    /// A hold longer than `H264ReferenceRepeatSplicer.maximumRun` repeats sends the picture to the encoder again
    /// (a copy, coded as a near-empty inter picture) before each further run.
    private func encodeRun(start: Int64, samples: Int64) throws {
        var start = start, samples = samples
        var keyframe = keyframes.keyframeDue(at: start)
        if keyframe && keyframes.codesCopyAfterKeyframe && samples > 1 {
            try encodePicture(start: start, count: 1, keyframe: true)
            (start, samples, keyframe) = (start + 1, samples - 1, false)
        }
        if let referenceSplicer {
            let longest = Int64(referenceSplicer.maximumRun) + 1  // a picture and its repeats
            while samples > longest {
                try encodePicture(start: start, count: longest, keyframe: keyframe)
                (start, samples, keyframe) = (start + longest, samples - longest, false)
            }
        }
        try encodePicture(start: start, count: samples, keyframe: keyframe)
    }

    /// Sends the picture in `encoder.frame`, shown for `count` output frames from `start`, to the encoder.
    private func encodePicture(start: Int64, count: Int64, keyframe: Bool) throws {
        keyframes.sent(at: start)
        if referenceSplicer != nil {
            let pts = durationCap > 0 ? encoderClock : start
            let seen = durationCap > 0 ? min(count, durationCap) : count
            inFlight[pts] = (start, count)
            outstandingStarts.append(start)
            try encoder.encode(pts: pts, duration: seen, keyframe: keyframe, reference: count > 1) {
                try spliceReordered($0)
            }
            encoderClock += seen
            return
        }
        if durationCap > 0 {
            sent.append((start, count))
            let seen = min(count, durationCap)
            try encoder.encode(pts: encoderClock, duration: seen, keyframe: keyframe) { try splice($0) }
            encoderClock += seen
        } else {
            try encoder.encode(pts: start, duration: count, keyframe: keyframe) { try splice($0) }
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

    /// Writes one of x264's pictures (decode order) with its order count rewritten, then the repeats that may
    /// follow now.
    private func spliceReordered(_ packet: UnsafeMutablePointer<AVPacket>) throws {
        guard let referenceSplicer, let data = packet.pointee.data,
              case let (start, samples)? = inFlight.removeValue(forKey: packet.pointee.pts)
        else { throw LibavError("splicing repeat pictures: a packet of no picture sent", failure: .internalError) }
        if let index = outstandingStarts.firstIndex(of: start) { outstandingStarts.remove(at: index) }
        encodedPictures += 1
        encodedBytes += Int(packet.pointee.size)
        x264Stream?.write(Data(UnsafeBufferPointer(start: data, count: Int(packet.pointee.size))))
        do {
            let (bytes, picture) = try referenceSplicer.rewrite(UnsafeBufferPointer(start: data, count: Int(packet.pointee.size)))
            try writeInDecodeOrder(bytes: bytes, pts: start, flags: packet.pointee.flags)
            if samples > 1 {
                let at = heldBack.firstIndex { $0.start > start } ?? heldBack.count
                heldBack.insert((start, samples, picture), at: at)
            }
            try releaseRepeats()
        } catch let error as BitstreamError {
            throw LibavError("splicing repeat pictures: \(error)", failure: .internalError)
        }
    }

    /// Writes the repeats of every held picture shown before the earliest picture still in the encoder (all of
    /// them once it is empty): a repeat goes in decode order after every picture shown before it.
    private func releaseRepeats() throws {
        guard let referenceSplicer else { return }
        let limit = outstandingStarts.min() ?? Int64.max
        while let held = heldBack.first, held.start < limit {
            for k in 1..<held.samples {
                let bytes = try referenceSplicer.repeatPicture(of: held.picture, k: Int(k))
                try writeInDecodeOrder(bytes: bytes, pts: held.start + k, flags: 0)
            }
            heldBack.removeFirst()
        }
    }

    /// Writes `bytes` as one packet one output frame long shown at `pts`, decoded at its place in decode order
    /// less the reorder delay.
    private func writeInDecodeOrder(bytes: [UInt8], pts: Int64, flags: Int32) throws {
        let dts = decodeIndex - reorderDelay
        guard dts <= pts else {
            throw BitstreamError("output frame \(pts) would be decoded at \(dts), after it is shown")
        }
        decodeIndex += 1
        try write(bytes: bytes, pts: pts, dts: dts, flags: flags)
        outputFrames += 1
    }

    /// Writes `bytes` as one packet one output frame long at `pts` (= dts: no reordering).
    private func write(bytes: [UInt8], pts: Int64, flags: Int32) throws {
        try write(bytes: bytes, pts: pts, dts: pts, flags: flags)
    }

    private func write(bytes: [UInt8], pts: Int64, dts: Int64, flags: Int32) throws {
        if scratch == nil { scratch = gifx_av_packet_alloc() }
        guard let scratch else { throw LibavError("out of memory (packet)") }
        gifx_av_packet_unref(scratch)
        try check(gifx_av_new_packet(scratch, Int32(bytes.count)), "allocating a packet")
        bytes.withUnsafeBufferPointer { scratch.pointee.data.update(from: $0.baseAddress!, count: bytes.count) }
        scratch.pointee.pts = pts
        scratch.pointee.dts = dts
        scratch.pointee.duration = 1
        scratch.pointee.flags = flags
        try deliver(scratch)
        gifx_av_packet_unref(scratch)
    }

    private func deliver(_ packet: UnsafeMutablePointer<AVPacket>) throws {
        if packet.pointee.flags & AV_PKT_FLAG_KEY != 0 {
            keyframeTimestamps.append(packet.pointee.pts)
            keyframes.encoderWroteKeyframe(at: packet.pointee.pts)
        }
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
        if referenceSplicer != nil {
            try encoder.finish { try spliceReordered($0) }
            do { try releaseRepeats() } catch let error as BitstreamError {
                throw LibavError("splicing repeat pictures: \(error)", failure: .internalError)
            }
        } else if splicer != nil {
            try encoder.finish { try splice($0) }
        } else {
            try encoder.finish {
                encodedBytes += Int($0.pointee.size)
                try deliver($0)
            }
        }
        try muxer.finish()
        var summary = VideoSummary(canvases: canvases, outputFrames: outputFrames)
        summary.encodedPictures = encodedPictures
        summary.encodedBytes = encodedBytes
        summary.repeatPictures = splicer?.repeatsWritten ?? referenceSplicer?.repeatsWritten ?? 0
        summary.repeatBytes = splicer?.repeatBytes ?? referenceSplicer?.repeatBytes ?? 0
        summary.keyframeTimes = keyframeTimestamps.sorted().map {
            Double($0) * Double(timeBase.num) / Double(timeBase.den)
        }
        return summary
    }
}
