/// Constant-frame-rate resampling: which GIF frame each output frame shows, in exact integer arithmetic.
extension Timeline {
    /// The native rate: one output frame per tick, 100/tick fps.
    public var tickRate: Rational { tick.fps }

    /// Output frames at `rate` fps: `round(duration * rate)`, at least 1 (exactly duration/tick at the tick rate).
    public func outputFrameCount(at rate: Rational) -> Int {
        // duration[cs] * num / (100 * den), rounded half up.
        let numerator = duration.units * rate.num
        let denominator = timescale * rate.den
        return Swift.max(1, (2 * numerator + denominator) / (2 * denominator))
    }

    /// The GIF frame output frame `k` shows at `rate`: the one whose interval holds time `k / rate`.
    public func frameIndex(forOutputFrame k: Int, at rate: Rational) -> Int {
        let timeTimes = timescale * k * rate.den  // time of k in cs, times rate.num
        var low = 0, high = frames.count - 1
        while low < high {  // last frame whose start * num <= time * num
            let mid = (low + high + 1) / 2
            if frames[mid].start * rate.num <= timeTimes { low = mid } else { high = mid - 1 }
        }
        return low
    }

    /// For each GIF frame, how many consecutive output frames at `rate` show it (0 when it falls between
    /// two output instants). Sums to `outputFrameCount(at:)`; encoders repeat each canvas this often.
    public func repeatCounts(at rate: Rational) -> [Int] {
        var counts = [Int](repeating: 0, count: frames.count)
        guard !frames.isEmpty else { return counts }
        let total = outputFrameCount(at: rate)
        var index = 0
        for k in 0..<total {
            let time = timescale * k * rate.den
            while index + 1 < frames.count && frames[index + 1].start * rate.num <= time { index += 1 }
            counts[index] += 1
        }
        return counts
    }
}
