internal import CAV
import GifxTimeline

/// The one bridge between gifx's time type and libav's rationals (issue 57): ticks of a stream's time base and
/// libavformat's microseconds in, `AVRational` out. Nothing else converts between the two.
extension MediaTime {
    /// `ticks` of a libav time base (`num/den` s each), exact; `nil` where the base is not positive or the
    /// product does not fit.
    init?(ticks: Int64, of base: AVRational) {
        guard base.num > 0, base.den > 0 else { return nil }
        let (units, overflow) = Int(ticks).multipliedReportingOverflow(by: Int(base.num))
        if overflow { return nil }
        self.init(units, timescale: Int(base.den))
    }

    /// libavformat's `AVFormatContext.duration` and `start_time`, in `AV_TIME_BASE` units (µs).
    init(avTimeBaseUnits units: Int64) { self.init(Int(units), timescale: Int(gifx_av_time_base())) }
}

extension Rational {
    /// As libav's `AVRational` (a frame rate or a time base; gifx's are far inside 32 bits).
    var avRational: AVRational { AVRational(num: Int32(num), den: Int32(den)) }
}
