import GifxTimeline

/// Where a video's key frames go (docs/repeats.md, "Key frames"): the longest gap between key frames is a
/// number of seconds of output (`VideoSettings.keyframeInterval`), whatever the frame rate.
///
/// The rule, in every codec whose encoder takes a key frame on request (x264, x265, libvpx, SVT-AV1): a key
/// frame goes at the **first distinct picture at or after each due time** (the due time: the last key frame
/// plus the interval, rounded down to a whole output frame), never inside a run of copies of one picture.
/// So no gap between key frames is longer than the interval plus the rest of the hold the due time fell in;
/// a key frame costs the same as the picture it replaces, and a repeat picture (H.264 P_Skip, VP9
/// `show_existing_frame`) never stands where a key frame is due. The encoder's own interval is switched off
/// (libavcodec's `gop_size` set to `1 << 30`, x264's "infinite"), so every periodic key frame is this rule's;
/// an encoder's scene-cut key frame (always at a distinct picture: a copy is no scene cut) restarts the count.
///
/// libaom in good-quality mode (AV1 under 64 pixels a side, without repeat pictures) is the exception (in
/// real-time mode, AV1's encoder for repeat pictures, it takes forced key frames as asked): libaom 3.6 in good-quality mode without lag
/// answers a forced key frame with two (the forced frame and the next, measured with the ffmpeg CLI), so
/// it gets its own maximum instead, `kf_max_dist` = the interval in whole output frames at the peak rate:
/// no gap longer than the interval, at fixed frame counts that may fall inside a hold.
struct KeyframeSchedule {
    /// The interval in time-base units, rounded down (at least one unit).
    let intervalUnits: Int64
    /// Whether the session forces key frames (`pict_type` I); false where the encoder keeps its own count.
    let forced: Bool
    /// VP9 and AV1 with repeat pictures: the copy after a key frame is coded, not a repeat of the key frame
    /// (VP9: FFmpeg's decoder handed a `show_existing_frame` repeat the stored frame's key-frame flag, so every
    /// copy would read as a key frame, where the container says it is not one; AV1: a shown key frame is not
    /// showable, §6.8.2, and decoders reject a `show_existing_frame` of it).
    let codesCopyAfterKeyframe: Bool
    /// The last key frame's timestamp (time-base units); `nil` before the first.
    private(set) var lastKeyframe: Int64?

    /// `forced` false: the encoder's own maximum (`encoderMaximumFrames`) places them.
    init(seconds: Double, timeBase: Rational, forced: Bool, codesCopyAfterKeyframe: Bool = false) {
        intervalUnits = Self.units(seconds: seconds, per: timeBase)
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
    /// frames, else the interval in whole frames at `rate` (the peak rate for VFR, so the gap in seconds is
    /// at most the interval), at least 1.
    static func encoderMaximumFrames(seconds: Double, rate: Rational, forced: Bool) -> Int32 {
        if forced { return 1 << 30 }
        return Int32(min(units(seconds: seconds, per: Rational(rate.den, rate.num)), 1 << 30))
    }

    /// Whether a distinct picture shown from `pts` must be a key frame (and, if so, records it as the last).
    mutating func keyframeDue(at pts: Int64) -> Bool {
        guard forced else { return false }
        if let last = lastKeyframe, pts < last + intervalUnits { return false }
        lastKeyframe = pts
        return true
    }

    /// A key frame the encoder wrote at `pts` (its own, or one forced): the next is due an interval after it.
    mutating func encoderWroteKeyframe(at pts: Int64) {
        lastKeyframe = max(lastKeyframe ?? pts, pts)
    }
}
