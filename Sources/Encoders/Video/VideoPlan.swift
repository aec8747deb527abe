internal import CAV
import Foundation
import GifxFrames
import GifxPipeline
import GifxTimeline

#if canImport(Glibc)
import Glibc
#endif

/// The plan of one video (MP4 or WebM; H.264, HEVC, VP9 or AV1) from a GIF's `Timeline`, and the factory
/// of the `VideoSession` that writes it from composited canvases.
///
/// Where each canvas goes comes from the `OutputPlan`: by default true constant frame rate at the GIF's tick
/// (100/tick fps, time base tick/100 s), each canvas sent `delay / tick` times with consecutive timestamps,
/// so the duration equals the GIF's, last delay included; at another rate the plan's drift-free resample;
/// in VFR one sample per canvas at its start in cs (time base 1/100 s), lasting its delay. Every limit
/// (frame size, rate) is checked in `init`, before anything is encoded or written.
package final class VideoPlan {
    package let timeline: Timeline
    package let options: VideoSettings
    package let canvasSize: CanvasSize
    /// The encoded frame size: the canvas padded to even, or the requested size rounded to even.
    package let outputSize: CanvasSize
    /// Output frames per second (exact): the constant rate, or for VFR the peak rate (100 / shortest delay),
    /// which is what the encoder's level must allow.
    package let frameRate: Rational
    /// Where every GIF frame goes in the video (computed per frame on demand, nothing stored per frame).
    package let plan: OutputPlan
    /// The encoder settings: `tuningLadder[0]` until the run's memory plan picks a level (`useTuning`).
    package private(set) var tuning: EncoderTuning
    /// The encoder's settings from the fastest to the leanest, with their estimated bytes.
    package let tuningLadder: [EncoderTuning]
    /// The H.264 level the stream needs at `outputSize` and `frameRate` (Annex A); `nil` for HEVC.
    package let requiredLevel: H264Level?
    /// The limits of the level asked for (`VideoSettings.level`), `nil` when none was.
    package let levelLimits: LevelLimits?
    /// The highest rate that level allows at `outputSize`, exact: the cap the plan was made under (unless a
    /// lower `--max-fps` was given); `nil` without a level.
    package let levelRateCap: Rational?
    /// How the MP4's index is written: faststart, or fragmented above `Diagnostics.fragmentedMP4Above` output
    /// frames (so the muxer's per-sample index does not grow with the video); `nil` for WebM.
    package private(set) var layout: MP4Layout?
    /// The run's benchmark and debugging switches: libav's logging, the old repeat path, VP9 repeat pictures,
    /// the durations the encoder is shown.
    private let diagnostics: Diagnostics
    /// Whether the video's repeats (a canvas shown for several output frames) are written as codec-level
    /// repeat pictures instead of being encoded again (docs/repeats.md): H.264 or HEVC in MP4 or VP9 in WebM or
    /// MP4, at a constant rate whose plan repeats some frame, unless `Diagnostics.encodeRepeats` keeps the old
    /// path. H.264 and HEVC then run without B-frames and with one reference, HEVC also without temporal motion
    /// vector prediction, libvpx error resilient (`EncoderTuning.forRepeatPictures`). A VP9 stream with alpha
    /// keeps the old path (`begin` decides: the alpha plane is a second libvpx stream).
    package private(set) var repeatsAsPictures: Bool

    /// The longest time the encoder is shown one picture for, under `.capped`.
    static let repeatCap = MediaTime(1, timescale: 10)

    /// The longest duration in output frames the encoder is shown for one picture: `repeatCap` (rounded up, at
    /// least one frame) for `.capped`, one frame for `.dense`, 0 (no cap: real timestamps) for `.real`.
    var repeatDurationCap: Int64 {
        guard let rate = plan.rate else { return 0 }
        switch diagnostics.repeatTimestamps {
        case .real: return 0
        case .dense: return 1
        case .capped:
            // Output frames in `repeatCap`, rounded up: cap × rate = (value × num) / (timescale × den).
            let cap = Self.repeatCap
            let whole = cap.timescale * rate.den
            return Int64(max(1, (cap.value * rate.num + whole - 1) / whole))
        }
    }

    /// Output frames for one play of the animation.
    package var framesPerLoop: Int { plan.outputFrames }
    /// Output frames in the whole video.
    package var totalOutputFrames: Int { framesPerLoop * options.loops }

    /// Plans the video. `threads`: the encoder's threads (the run's `--threads`, else the cores); the
    /// encoder's settings are `tuningLadder[0]` until `useTuning` picks a leaner level. `diagnostics`: the
    /// run's switches (the defaults are what gifx ships).
    /// Throws `VideoPlanError` (`usage`) when the request is unusable (size, rate, loops), or (`malformedData`)
    /// when the GIF itself is (no frames, canvas beyond the encoder's limits).
    package init(
        timeline: Timeline, options: VideoSettings, threads: Int = CacheCapacity.availableCores,
        diagnostics: Diagnostics = Diagnostics()
    ) throws {
        self.diagnostics = diagnostics
        self.timeline = timeline
        self.options = options
        canvasSize = timeline.canvas
        guard !timeline.frames.isEmpty else {
            throw VideoPlanError("the GIF has no frames to encode", failure: .malformedData)
        }
        if let problem = options.problem { throw VideoPlanError(problem.description, failure: .usage) }

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
            throw VideoPlanError(
                "\(what) (\(size.width)x\(size.height) as encoded) \(bound)",
                failure: options.size == .original ? .malformedData : .usage,
                remedy: options.size == .original ? .resize : nil)
        }
        outputSize = size

        // A level: refuse a size beyond it; cap the rate at what it allows at this size (with --max-fps, the
        // lower of the two), which the plan meets by resampling with the smallest timing error; refuse a
        // requested rate or a VFR peak rate above it (those are exact by request: no resampling is implied).
        var maxRate = options.maxFrameRate
        levelLimits = options.levelLimits
        if let limits = levelLimits {
            if let problem = limits.sizeProblem(size) {
                throw VideoPlanError(problem, failure: .usage, remedy: .resize)
            }
            let levelCap = limits.maxFrameRate(at: size)
            levelRateCap = levelCap
            let allowed = "\(limits.name) allows at most \(Self.decimal(levelCap)) fps at \(size.width)x\(size.height)"
            switch options.timing {
            case .rate(let rate) where Self.compare(rate, levelCap) > 0:
                throw VideoPlanError("\(rate) fps is too fast: \(allowed)", failure: .usage)
            case .vfr:
                let peak = OutputPlan(timeline: timeline, request: .vfr).peakRate
                if Self.compare(peak, levelCap) > 0 {
                    throw VideoPlanError(
                        "VFR's peak rate \(Self.decimal(peak)) fps (the shortest delay) is too fast: \(allowed); "
                            + "without VFR the level caps the rate", failure: .usage)
                }
            default:
                if let asked = maxRate, Self.compare(asked, levelCap) <= 0 { break }
                maxRate = levelCap
            }
        } else {
            levelRateCap = nil
        }
        plan = OutputPlan(timeline: timeline, request: options.timing, maxRate: maxRate)
        frameRate = plan.rate ?? plan.peakRate

        let (total, overflow) = plan.outputFrames.multipliedReportingOverflow(by: options.loops)
        let (units, unitsOverflow) = plan.unitsPerPlay.multipliedReportingOverflow(by: options.loops)
        guard !overflow, !unitsOverflow, total < Int(Int32.max), units < Int(Int32.max) else {
            throw VideoPlanError("too many output frames", failure: .usage)
        }
        layout = MP4Layout.choose(outputFrames: total, container: options.container, fragmentAbove: diagnostics.fragmentAbove)
        requiredLevel = codec.descriptor.requiredH264Level(size, rate: frameRate)
        repeatsAsPictures = !diagnostics.encodeRepeats
            && codec.descriptor.splicesRepeats(in: options.container, timeBase: plan.timeBase)
            && Self.hasRepeats(plan, timeline)
        tuningLadder = EncoderTuning.ladder(
            options: options, frameSize: size, threads: threads,
            referenceRepeats: repeatsAsPictures && codec.descriptor.hasReferenceRepeats && !diagnostics.noReferenceRepeats)
        // Found by the encoder matrix (docs/reliability.md): an encoder that refuses the time base at open
        // (libaom: over 1 s, a tick over 100 cs at a constant rate; `VideoCodecDescriptor.frameLengthProblem`), and
        // FFmpeg's AVIF muxer writes one sample as a still image without a `moov`, which its own reader cannot
        // open (FFmpeg 5.1, the version measured: docs/reliability.md, "Encoder matrix"). One line instead.
        if let problem = codec.descriptor.frameLengthProblem(encoder: codec.encoderName(for: size), timeBase: plan.timeBase) {
            throw VideoPlanError(problem, failure: .usage, remedy: .shorterFrames(longest: Rational(1)))
        }
        if options.container == .avif && total == 1 {
            throw VideoPlanError(
                "an AVIF of one frame is a still image, which FFmpeg 5.1 writes without the track its own reader "
                    + "needs", failure: .usage, remedy: .stillOutput)
        }
        tuning = tuningLadder[0]
    }

    /// Whether some GIF frame is shown for more than one output frame: a constant rate whose samples
    /// outnumber the frames shown.
    static func hasRepeats(_ plan: OutputPlan, _ timeline: Timeline) -> Bool {
        plan.kind == .cfr && plan.outputFrames > timeline.frames.count - plan.framesNeverShown
    }

    /// `a` compared with `b`: -1, 0 or 1 (exact).
    static func compare(_ a: Rational, _ b: Rational) -> Int {
        let left = a.num * b.den, right = b.num * a.den
        return left < right ? -1 : left > right ? 1 : 0
    }

    /// A rate for people: `30.12` (two decimals, rounded down so it never overstates a limit), `30` when whole.
    static func decimal(_ rate: Rational) -> String {
        if rate.num % rate.den == 0 { return "\(rate.num / rate.den)" }
        let hundredths = rate.num * 100 / rate.den
        return String(format: "%d.%02d", hundredths / 100, hundredths % 100)
    }

    /// Uses level `level` of `tuningLadder` (the memory plan's choice), recording why and against what budget.
    package func useTuning(_ level: Int, reason: String, budget: Int?) {
        tuning = tuningLadder[min(max(0, level), tuningLadder.count - 1)]
        tuning.reason = reason
        tuning.budgetBytes = budget
    }

    /// Whether the stream can carry transparency: VP9 in WebM (yuva420p). Whether it does is decided from
    /// the first canvas (`VideoSink`), since a GIF without transparency should not pay for an alpha plane.
    package var canKeepAlpha: Bool { options.codec.carriesAlpha && options.container == .webm }

    /// x264/x265 rate-control parameters for this encode (`--target-size`'s two-pass: `pass=1:stats=…` on the
    /// first, CRF encode; `pass=2:stats=…:bitrate=…` on the next), applied by `begin`.
    package var rateControl: EncoderParameters = []

    /// Whether the container can be written to a pipe as it is encoded, with no seek back: MP4 (fragmented)
    /// and WebM.
    package var canStream: Bool { options.container == .mp4 || options.container == .webm }

    /// Opens the encoder and the muxer on `path` (created or truncated; the caller writes to a temporary
    /// file and renames it) and writes the header: the canvases are then pushed with `VideoSession.add`.
    /// `keepAlpha` (only where `canKeepAlpha`): encode yuva420p instead of compositing over the background.
    /// `streamingTo` (a descriptor target, only where `canStream`): write to it as the packets come, an MP4
    /// fragmented (its `moov` first, then a fragment per keyframe), a WebM without cues.
    package func begin(path: String, keepAlpha: Bool = false, streamingTo stream: OutputTarget? = nil) throws -> VideoSession {
        let streaming = stream?.descriptor != nil
        try Libav.require(GIFX_AV_ENCODER)
        precondition(!streaming || canStream, "this container cannot be streamed")
        tuning = tuning.withParameters(rateControl)
        let alpha = keepAlpha && canKeepAlpha
        if alpha { repeatsAsPictures = false }
        if streaming && options.container == .mp4 { layout = .fragmented }
        // The codec's repeat path that keeps the encoder's B-frames (H.264: `X264Encoder`,
        // `H264ReferenceRepeatSplicer`), but not in a fragmented MP4, whose reorder delay a pipe's reader cannot
        // place (`withoutBFrames`): there, and where the encoder's settings cannot, the codec's repeat pictures
        // without B-frames (`forRepeatPictures`).
        let descriptor = options.codec.descriptor
        var referenceRepeats = false
        let tuningBeforeRepeats = tuning
        if repeatsAsPictures && layout != .fragmented && !diagnostics.noReferenceRepeats,
           let withReferences = try descriptor.referenceRepeatTuning(tuning) {
            tuning = withReferences
            referenceRepeats = true
        } else if repeatsAsPictures {
            tuning = descriptor.forRepeatPictures(tuning)
        }
        if streaming && options.container == .mp4 && !repeatsAsPictures {
            tuning = tuning.withoutBFrames(codec: options.codec)
        }
        setLibavLogLevel()
        let converter = try YUVConverter(
            canvas: canvasSize, output: outputSize, background: options.background, keepAlpha: alpha)
        // An AVIF plays as the GIF does (its plays under the policy); with `--loops k` the file holds k plays and
        // plays them once (docs/conformance.md, "AVIF plays").
        let avifPlays = options.loops > 1 ? AVIFRepetition.Plays.once : AVIFRepetition.Plays(timeline.loop.plays)
        let muxer = try VideoMuxer(
            path: path, streamingTo: stream?.descriptor, container: options.container, layout: layout,
            displayPath: stream?.displayName ?? path, avifPlays: avifPlays)
        let avRate = frameRate.avRational
        let timeBase = plan.timeBase.avRational
        let forcesKeyframes = descriptor.forcesKeyframes(tuning)
        func openEncoder() throws -> VideoEncoder {
            try VideoEncoder(
                codec: options.codec, width: outputSize.width, height: outputSize.height, frameRate: avRate,
                timeBase: timeBase, tuning: tuning, globalHeader: muxer.wantsGlobalHeader, alpha: alpha,
                keyframeMaximum: KeyframeSchedule.encoderMaximumFrames(
                    seconds: options.keyframeInterval, pictureLimit: VideoSettings.keyframePictureLimit,
                    rate: frameRate, forced: forcesKeyframes),
                directX264: referenceRepeats ? [] : nil)
        }
        var encoder = try openEncoder()
        // The encoder's own validation may not keep that path (x264: lossless at `crf` 0 has no B-frames): the
        // stream then takes the path without B-frames.
        if referenceRepeats && !descriptor.keepsReferenceRepeats(encoder) {
            referenceRepeats = false
            tuning = descriptor.forRepeatPictures(tuningBeforeRepeats)
            encoder = try openEncoder()
        }
        signalledLevel = descriptor.signalledH264Level(extradata: encoder.extradata)
        // Repeat pictures: the codec's splicer reads the parameter sets (and may rewrite them), before the muxer
        // (and a verifying decoder) copy them.
        var splicing: RepeatSplicing?
        if repeatsAsPictures {
            do {
                splicing = try descriptor.makeRepeatSplicer(RepeatSplicerSetup(
                    encoder: encoder, parameterSetsInContainer: muxer.wantsGlobalHeader,
                    referenceRepeats: referenceRepeats, longestHold: { self.longestHold() },
                    encoderStreamPath: diagnostics.x264StreamPath))
            } catch let error as BitstreamError {
                throw LibavError("setting up repeat pictures: \(error)", failure: .internalError)
            }
        }
        try muxer.addStream(
            from: encoder, codecTag: descriptor.codecTag(in: options.container), frameRate: plan.kind == .cfr ? avRate : nil,
            framing: descriptor.mp4SampleFraming(frameSize: outputSize))
        // The whole video (one play × the plays written), declared in a streamed header before any packet.
        let microseconds: Int
        do { microseconds = try plan.playDuration.multiplied(by: options.loops).microseconds() } catch {
            throw LibavError("the video's duration: \(error)", failure: .malformedData)
        }
        try muxer.writeHeader(knownDuration: streaming ? Int64(microseconds) : nil)
        return VideoSession(
            plan: plan, timeline: timeline, converter: converter, encoder: encoder, muxer: muxer, timeBase: timeBase,
            splicing: splicing, durationCap: repeatDurationCap,
            keyframes: KeyframeSchedule(
                seconds: options.keyframeInterval, pictureLimit: VideoSettings.keyframePictureLimit,
                timeBase: plan.timeBase, forced: forcesKeyframes,
                codesCopyAfterKeyframe: splicing != nil && descriptor.codesCopyAfterKeyframe),
            x264StreamPath: diagnostics.x264StreamPath)
    }

    /// The most output frames one GIF frame fills (at least 1).
    private func longestHold() -> Int {
        (0..<timeline.frames.count).reduce(1) { max($0, plan.placement(of: $1, in: timeline).samples) }
    }

    /// The stream's H.264 level when it is above 4.2, which many players cannot decode (the CLI warns once,
    /// naming the options that lower it); `nil` otherwise, and for other codecs.
    package var levelAboveWidelySupported: H264Level? {
        guard options.level == nil, let level = signalledLevel ?? requiredLevel, level > H264Level.widelySupported
        else { return nil }
        return level
    }

    /// The level warning's text without its remedy: "H.264 level 5.1 (1920x1080 at 100 fps) is above 4.2,
    /// which many players cannot decode".
    package var levelProblem: String? {
        levelAboveWidelySupported.map {
            "H.264 level \($0) (\(outputSize.width)x\(outputSize.height) at \(frameRate) fps) is above 4.2, "
                + "which many players cannot decode"
        }
    }

    /// The warning printed (unless quiet) when the rate leaves GIF frames out (a capped rate, or a fixed rate
    /// below the GIF's pace): how many and the worst start error, never silently.
    package var droppedFramesWarning: String? {
        guard plan.framesNeverShown > 0, let rate = plan.rate else { return nil }
        let worst = String(
            format: "%.1f", MediaTime(Int(plan.worstStartErrorMicroseconds), timescale: 1_000_000).approximateMilliseconds)
        return "at \(rate) fps \(plan.framesNeverShown) of \(timeline.frames.count) GIF frames are never shown; "
            + "worst start error of the others \(worst) ms"
    }

    /// The warning printed (unless quiet) for an AVIF at a constant rate whose frame period browsers cannot
    /// keep: Firefox shows an image frame of 10 ms or less for 100 ms and rounds every duration to whole ms
    /// (measured, docs/browsers.md), so at 100 fps (a 1 cs tick) the AVIF plays 10 times slow there and
    /// at 30 fps it drifts. VFR (AVIF's default) and periods of whole ms above 10 are exact.
    /// Browsers show an image frame of this or less for 100 ms (docs/browsers.md).
    static let browserImageFrameMinimum = MediaTime(1, timescale: 100)

    package var imageTimingWarning: String? {
        guard options.container == .avif, let rate = plan.rate else { return nil }
        let period = MediaTime(rate.den, timescale: rate.num)
        let wholeMs = (try? period.milliseconds()).map { MediaTime($0, timescale: 1000) == period } ?? false
        guard !wholeMs || period <= Self.browserImageFrameMinimum else { return nil }
        return "AVIF at \(rate) fps: browsers time image frames in whole ms and Firefox shows frames of 10 ms or "
            + "less for 100 ms, so this AVIF will not keep the GIF's timing there"
    }

    /// The level in the SPS libx264 wrote (read back from the stream's parameter sets after `write` opened
    /// the encoder); `nil` before that, or for HEVC.
    package private(set) var signalledLevel: H264Level?

    /// libav and x264 print banners and statistics on stderr; gifx reports errors itself. (SVT-AV1 logs by
    /// itself, at the level of the `SVT_LOG` environment variable, which the library leaves alone: the `gifx`
    /// tool sets it in `Gifx.main`.)
    /// `libavLogging` keeps libav's messages (warnings and errors) for debugging.
    private func setLibavLogLevel() {
        gifx_av_log_set_level(diagnostics.libavLogging ? AV_LOG_WARNING : AV_LOG_QUIET)
    }
}
