import GifxTimeline

/// Where a video's key frames go (docs/repeats.md, "Key frames"). A seek costs decode work: the pictures a
/// decoder must decode from the key frame before the seek point. So, by default, a key frame is due once
/// `VideoSettings.keyframePictureLimit` pictures (250, x264's own `keyint`) have been coded since the last one,
/// whatever the seconds: a GIF that shows 16 pictures in 24 s gets one key frame, where a rule in seconds wrote
/// six, each an intra picture (3.5x the ffmpeg CLI's bytes on such a GIF, issue 56). A repeat picture (H.264 and
/// HEVC skip pictures, VP9 skip frames, AV1 `show_existing_frame`) is not counted: it copies the picture
/// before it and costs a decoder almost nothing. Where a longest gap in seconds is asked for
/// (`VideoSettings.keyframeInterval`, for HLS-style segments), that rule applies instead: a key frame is due
/// at the last key frame plus the interval, rounded down to a whole output frame.
///
/// Either way, in every codec whose encoder takes a key frame on request (x264, x265, libvpx, SVT-AV1, libaom
/// real-time), a key frame goes at the **first distinct picture at or after it is due**, never inside a run of
/// copies of one picture: a key frame costs the same as the picture it replaces, and a repeat picture never
/// stands where a key frame is due. The encoder's own interval is switched off (libavcodec's `gop_size` set to
/// `1 << 30`, x264's "infinite"), so every periodic key frame is this rule's; an encoder's scene-cut key frame
/// (always at a distinct picture: a copy is no scene cut) restarts the count.
///
/// libaom in good-quality mode (AV1 under 64 pixels a side, without repeat pictures) is the exception: libaom
/// in good-quality mode without lag answers a forced key frame with two (the forced frame and the next,
/// measured with the ffmpeg CLI; libaom 3.6, the version measured: docs/repeats.md, "Key frames"), so it gets
/// its own maximum instead, `kf_max_dist`: the picture limit in frames (every frame is coded there), or the
/// interval in whole output frames at the peak rate.
struct KeyframeSchedule {
    /// The interval in time-base units, rounded down (at least one unit); `nil` under the picture rule.
    let intervalUnits: Int64?
    /// Coded pictures after which a key frame is due (the picture rule), `nil` under the seconds rule.
    let pictureLimit: Int?
    /// Whether the session forces key frames (`pict_type` I); false where the encoder keeps its own count.
    let forced: Bool
    /// VP9 and AV1 with repeat pictures: the copy after a key frame is coded, not a repeat of the key frame
    /// (VP9: FFmpeg's decoder handed a `show_existing_frame` repeat the stored frame's key-frame flag, so every
    /// copy would read as a key frame, where the container says it is not one; AV1: a shown key frame is not
    /// showable, §6.8.2, and decoders reject a `show_existing_frame` of it).
    let codesCopyAfterKeyframe: Bool
    /// The last key frame's timestamp (time-base units); `nil` before the first.
    private(set) var lastKeyframe: Int64?
    /// Pictures sent to the encoder so far, and the count when the last key frame was sent.
    private var picturesSent = 0
    private var sentAtLastKeyframe = 0
    /// The pictures sent that the encoder has not returned yet, as (timestamp, pictures sent before it): the
    /// encoder's own key frame at a timestamp restarts the count from there. Bounded by the encoder's delay.
    private var inFlight: [(pts: Int64, sentBefore: Int)] = []
    private var inFlightHead = 0

    /// `seconds` `nil`: the picture rule (`pictureLimit` coded pictures). `forced` false: the encoder's own
    /// maximum (`encoderMaximumFrames`) places them.
    init(seconds: Double?, pictureLimit: Int, timeBase: Rational, forced: Bool, codesCopyAfterKeyframe: Bool = false) {
        intervalUnits = seconds.map { Self.units(seconds: $0, per: timeBase) }
        self.pictureLimit = seconds == nil ? max(1, pictureLimit) : nil
        self.forced = forced
        self.codesCopyAfterKeyframe = codesCopyAfterKeyframe
    }

    /// `seconds` in whole units of `timeBase` (seconds per unit), rounded down, at least 1. The product is
    /// nudged up by one part in 10^12 first, so a decimal such as 0.3 s at 1/10 s is 3 units, not 2.
    static func units(seconds: Double, per timeBase: Rational) -> Int64 {
        let exact = seconds * Double(timeBase.den) / Double(timeBase.num)
        let units = (exact * (1 + 1e-12)).rounded(.down)
        return Int64(min(max(1, units), Double(1 << 40)))
    }

    /// The encoder's own maximum gap (libavcodec's `gop_size`): `1 << 30` (off) where the session forces key
    /// frames; else the picture limit in frames, or the interval in whole frames at `rate` (the peak rate for
    /// VFR, so the gap in seconds is at most the interval), at least 1.
    static func encoderMaximumFrames(seconds: Double?, pictureLimit: Int, rate: Rational, forced: Bool) -> Int32 {
        if forced { return 1 << 30 }
        guard let seconds else { return Int32(min(max(1, pictureLimit), 1 << 30)) }
        return Int32(min(units(seconds: seconds, per: Rational(rate.den, rate.num)), 1 << 30))
    }

    /// Whether the distinct picture shown from `pts`, about to be sent, must be a key frame (and, if so,
    /// records it as the last). Call `sent(at:)` for every picture sent, this one included.
    mutating func keyframeDue(at pts: Int64) -> Bool {
        guard forced else { return false }
        let due: Bool
        if let pictureLimit {
            due = lastKeyframe == nil || picturesSent - sentAtLastKeyframe >= pictureLimit
        } else if let intervalUnits, let last = lastKeyframe {
            due = pts >= last + intervalUnits
        } else {
            due = true
        }
        if due {
            lastKeyframe = pts
            sentAtLastKeyframe = picturesSent
        }
        return due
    }

    /// A picture sent to the encoder at `pts` (a coded picture: a distinct one, or a copy on the path that
    /// encodes every copy).
    mutating func sent(at pts: Int64) {
        if pictureLimit != nil {
            inFlight.append((pts, picturesSent))
            // Bounded whatever the frame count: an encoder holds far fewer pictures than this, so older entries
            // (pictures it returned without a key frame) are dropped.
            if inFlight.count - inFlightHead > 4096 { inFlightHead += 1 }
            if inFlightHead >= 1024 {
                inFlight.removeFirst(inFlightHead)
                inFlightHead = 0
            }
        }
        picturesSent += 1
    }

    /// A key frame the encoder wrote at `pts` (its own, or one forced): the next is due an interval (or the
    /// picture limit) after it.
    mutating func encoderWroteKeyframe(at pts: Int64) {
        if pts >= (lastKeyframe ?? pts) { lastKeyframe = pts }
        guard pictureLimit != nil else { return }
        while inFlightHead < inFlight.count, inFlight[inFlightHead].pts < pts { inFlightHead += 1 }
        if inFlightHead < inFlight.count, inFlight[inFlightHead].pts == pts {
            sentAtLastKeyframe = max(sentAtLastKeyframe, inFlight[inFlightHead].sentBefore)
        }
        if inFlightHead >= 1024 {
            inFlight.removeFirst(inFlightHead)
            inFlightHead = 0
        }
    }
}
