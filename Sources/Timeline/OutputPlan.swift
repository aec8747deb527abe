/// How the video's frames are laid out in time: the one place every output mode comes from.
///
/// A plan maps GIF frames to video frames. It stores no per-frame data: every answer is computed from
/// `Timeline.frames` (start and delay, integer cs) in O(1) per frame, so a 5-million-frame GIF costs
/// nothing beyond the timeline itself. All arithmetic is exact integer arithmetic; errors are exact
/// rationals, reported in whole microseconds rounded up (never understated).
///
/// - CFR at rate `r = num/den` fps: output frame `k` is at `k/r` s and shows the GIF frame whose interval
///   holds the instant `k/r + lead` (timeline.md §2; `lead` is 0 for the tick and a requested rate, exactly as
///   before, and ½ cs for the rates the automatic search and a rate cap choose, so a frame shows at the output
///   instant nearest its start: GIFs written from 30 fps video have starts rounded to the nearest cs,
///   0 3 7 10). GIF frame `i` first appears at output frame `ceil((start_i − lead) · r / 100)` and lasts
///   until the first output frame of frame `i + 1`; the video has `round(duration · r)` frames (at least
///   1). At the tick rate this is exactly `delay / tick` frames each.
/// - VFR: one sample per GIF frame, pts = start, duration = delay, in the timeline's units (time base
///   1/timescale s: 1/100 s for a GIF).
public struct OutputPlan: Codable, Hashable, Sendable {
    /// What the user asked for.
    public enum Request: Hashable, Sendable {
        /// Constant frame rate at the tick: 100/tick fps, every delay exact (the default).
        case tick
        /// Constant frame rate at a given rate, resampled without drift (a requested rate).
        case rate(Rational)
        /// The lowest common video rate that shows every frame within 10 ms, else the tick (automatic).
        case auto
        /// One sample per GIF frame, each lasting its delay (VFR).
        case vfr
    }

    /// `cfr` or `vfr`.
    public enum Kind: String, Codable, Sendable { case cfr, vfr }

    /// The largest start error the automatic search accepts: 10 ms, the GIF format's own resolution (1 cs).
    public static let autoToleranceCentiseconds = 1

    /// The common video rates the automatic search and a rate cap consider, besides 100/k. Each is tried before its
    /// /1.001 (NTSC) form, so a short 30 fps export gets 30, not 29.97.
    public static let commonRates: [Int] = [12, 15, 20, 24, 25, 30, 50, 60]
    /// `100/k` fps for k in 1...this: the rates on which some cs delays are exact (down to 4 fps).
    public static let largestTickDivisor = 25

    public var kind: Kind
    /// The mode that was asked for: `tick`, `fps`, `auto` or `vfr` (plus `max-fps` when the cap applied).
    public var mode: String
    /// CFR output rate (fps, exact); `nil` for VFR.
    public var rate: Rational?
    /// Seconds per timestamp unit: 1/rate for CFR, 1/timescale for VFR (1/100 s for a GIF).
    public var timeBase: Rational
    /// Video frames (samples) for one play.
    public var outputFrames: Int
    /// Largest distance between a shown GIF frame's scheduled start and its first appearance, exact, in cs.
    public var worstStartError: Rational
    /// `worstStartError` in microseconds, rounded up.
    public var worstStartErrorMicroseconds: Int
    /// GIF frames no output frame shows (they fall between two output instants).
    public var framesNeverShown: Int
    /// Highest instantaneous frame rate: the CFR rate, or 100 / shortest delay for VFR (what the H.264
    /// level must allow).
    public var peakRate: Rational
    /// Video duration of one play in the timeline's units (`1 / timescale` s: cs for a GIF, ms for a WebP), exact
    /// (a rational for CFR rates that do not divide the timescale). ``playDuration`` carries its unit.
    public var duration: Rational
    /// Why this rate (the caller words it: the CLI shows it in its statistics and `timeline`).
    public var reason: RateReason
    /// How far ahead of each output instant the GIF is sampled, in half centiseconds (0 or 1).
    public var leadHalfCentiseconds: Int

    /// Plans `timeline` for `request`; `maxRate` caps a CFR rate: when the rate the request
    /// gives exceeds it, the rate at or below it with the smallest worst start error is used instead
    /// (ties: fewer frames dropped, then the lower rate).
    public init(timeline: Timeline, request: Request, maxRate: Rational? = nil) {
        let tickRate = timeline.tickRate
        var mode: String
        var rate: Rational
        var reason: RateReason
        var lead = 0
        switch request {
        case .vfr:
            self.init(vfr: timeline)
            return
        case .tick:
            (mode, rate) = ("tick", tickRate)
            reason = Self.tickReason(.tick, timeline)
        case .rate(let r):
            (mode, rate) = ("fps", r)
            reason = .requestedRate(r)
        case .auto:
            mode = "auto"
            lead = Self.searchLead(timeline)
            if let found = Self.lowestExactEnoughRate(timeline) {
                rate = found
                reason = found == tickRate ? Self.tickReason(.automaticTick, timeline) : .automaticLowest
            } else {
                rate = tickRate
                reason = Self.tickReason(.automaticNoCommonRate, timeline)
            }
        }
        if let maxRate, Self.compare(rate, maxRate) > 0 {
            let best = Self.bestRate(timeline, atMost: maxRate)
            reason = .capped(limit: maxRate, asked: rate, chosen: best)
            rate = best
            mode += "+max-fps"
            lead = Self.searchLead(timeline)
        }
        self.init(cfr: timeline, rate: rate, lead: lead, mode: mode, reason: reason)
    }

    /// A tick reason in the timeline's unit: a GIF's in cs (as before), a WebP's or APNG's in ms.
    static func tickReason(_ why: RateReason.TickReason, _ timeline: Timeline) -> RateReason {
        let units = timeline.tick.units
        guard timeline.format == .gif else {
            return .tickOfOtherFormat(units: units, timescale: timeline.timescale, why: why)
        }
        switch why {
        case .tick: return .tick(centiseconds: units)
        case .automaticTick: return .automaticTick(units: units)
        case .automaticNoCommonRate: return .automaticNoCommonRate(tickCentiseconds: units)
        }
    }

    private init(vfr timeline: Timeline) {
        kind = .vfr
        mode = "vfr"
        rate = nil
        timeBase = Rational(1, timeline.timescale)
        outputFrames = timeline.frames.count
        worstStartError = Rational(0)
        worstStartErrorMicroseconds = 0
        framesNeverShown = 0
        let shortest = timeline.frames.lazy.map(\.delay).min() ?? Timeline.defaultDelay
        peakRate = Rational(timeline.timescale, shortest)
        duration = Rational(timeline.duration.units)
        reason = .variable
        leadHalfCentiseconds = 0
    }

    private init(cfr timeline: Timeline, rate: Rational, lead: Int, mode: String, reason: RateReason) {
        kind = .cfr
        leadHalfCentiseconds = lead
        self.mode = mode
        self.rate = rate
        self.reason = reason
        timeBase = Rational(rate.den, rate.num)
        let fit = CFRFit(timeline: timeline, rate: rate, lead: lead)
        let score = fit.score(giveUpAbove: nil)
        outputFrames = fit.total
        worstStartError = Rational(score.worstNumerator, rate.num)
        worstStartErrorMicroseconds = Self.microsecondsRoundedUp(
            score.worstNumerator, over: rate.num, timescale: timeline.timescale)
        framesNeverShown = score.neverShown
        peakRate = rate
        duration = Rational(timeline.timescale * fit.total * rate.den, rate.num)
    }

    /// Where GIF frame `index` goes: its first timestamp (in `timeBase` units, one play) and how many
    /// consecutive samples show it (CFR: repeats, each one unit long; VFR: 1 sample of `unitsEach` units).
    public struct Placement: Hashable, Sendable {
        /// Timestamp of the first sample showing the frame, in `timeBase` units from the play's start.
        public var firstTimestamp: Int
        /// Samples showing the frame (0: never shown).
        public var samples: Int
        /// Length of each sample in `timeBase` units.
        public var unitsEach: Int
    }

    /// The placement of GIF frame `index` of `timeline` (which must be the one planned). O(1).
    public func placement(of index: Int, in timeline: Timeline) -> Placement {
        let frame = timeline.frames[index]
        guard let rate else { return Placement(firstTimestamp: frame.start, samples: 1, unitsEach: frame.delay) }
        let lead = leadHalfCentiseconds
        let scale = timeline.timescale
        let first = min(
            outputFrames, Self.firstOutputFrame(showing: frame.start, rate: rate, lead: lead, timescale: scale))
        let next = index + 1 < timeline.frames.count
            ? min(
                outputFrames,
                Self.firstOutputFrame(showing: timeline.frames[index + 1].start, rate: rate, lead: lead, timescale: scale))
            : outputFrames
        return Placement(firstTimestamp: first, samples: max(0, next - first), unitsEach: 1)
    }

    /// One play, exact: `outputFrames / rate` for CFR, the timeline's duration for VFR. What a container
    /// declares per play (``MediaTime`` carries the unit: `duration` is in the timeline's units, which are
    /// centiseconds only for a GIF).
    public var playDuration: MediaTime {
        if let rate { return MediaTime(outputFrames * rate.den, timescale: rate.num) }
        return MediaTime(duration.num * timeBase.num, timescale: duration.den * timeBase.den)
    }

    /// Seconds of one play (``playDuration`` in floating point).
    public var durationSeconds: Double { playDuration.seconds }

    /// Timestamp units in one play (added once per loop).
    public var unitsPerPlay: Int {
        kind == .vfr ? duration.num : outputFrames
    }

    /// The error of GIF frame `index`'s first appearance in cs (exact), `nil` when it is never shown.
    public func startError(of index: Int, in timeline: Timeline) -> Rational? {
        let p = placement(of: index, in: timeline)
        guard p.samples > 0 else { return nil }
        guard let rate else { return Rational(0) }
        return Rational(
            timeline.timescale * p.firstTimestamp * rate.den - timeline.frames[index].start * rate.num, rate.num)
    }

    /// Output start of GIF frame `index` in cs (exact), `nil` when it is never shown.
    public func outputStart(of index: Int, in timeline: Timeline) -> Rational? {
        let p = placement(of: index, in: timeline)
        guard p.samples > 0 else { return nil }
        guard let rate else { return Rational(p.firstTimestamp) }
        return Rational(timeline.timescale * p.firstTimestamp * rate.den, rate.num)
    }

    // MARK: - Rate search

    /// The sampling lead of the rate searches: ½ cs (nearest instant), in half units of the timeline
    /// (1 for a GIF's cs, 10 for ms).
    static func searchLead(_ timeline: Timeline) -> Int { Swift.max(1, timeline.timescale / 100) }

    /// First output frame at `rate` that samples at or after `start` (timeline units, cs for a GIF) when
    /// sampling `lead` half units ahead: `ceil((2 · start − lead) · num / (2 · timescale · den))`, at least 0.
    static func firstOutputFrame(showing start: Int, rate: Rational, lead: Int, timescale: Int = 100) -> Int {
        let numerator = (2 * start - lead) * rate.num, denominator = 2 * timescale * rate.den
        guard numerator > 0 else { return 0 }
        return (numerator + denominator - 1) / denominator
    }

    /// Candidate rates (common rates, their /1.001 forms, 100/k), ascending; at equal value the exact one first.
    static var candidates: [Rational] {
        var rates = commonRates.flatMap { [Rational($0), Rational($0 * 1000, 1001)] }
        rates += (1...largestTickDivisor).map { Rational(100, $0) }
        var seen = Set<Rational>()
        // Sort by value; an NTSC form sorts by its nominal rate, after the exact one.
        func key(_ r: Rational) -> (Double, Int) {
            r.den == 1001 ? (Double(r.num) / 1000, 1) : (r.doubleValue, 0)
        }
        return rates.filter { seen.insert($0).inserted }.sorted { key($0) < key($1) }
    }

    /// The automatic search: the first candidate (at most the tick rate) that shows every frame within 10 ms and
    /// ends within 10 ms of the GIF's duration (where the next play starts).
    static func lowestExactEnoughRate(_ timeline: Timeline) -> Rational? {
        let tickRate = timeline.tickRate
        for rate in candidates where compare(rate, tickRate) <= 0 {
            let fit = CFRFit(timeline: timeline, rate: rate, lead: searchLead(timeline))
            // |error| <= 1 cs  <=>  |numerator| <= num · (units in 1 cs).
            let tolerance = autoToleranceCentiseconds * Swift.max(1, timeline.timescale / 100)
            let score = fit.score(giveUpAbove: tolerance * rate.num, requireAllShown: true)
            if score.complete { return rate }
        }
        return nil
    }

    /// The rate cap: among candidates <= `maxRate` and `maxRate` itself, the smallest worst error over every
    /// frame (a dropped frame counts the wait until the next output instant, so dropping is penalised;
    /// compared exactly), then fewest frames never shown, then the lowest rate.
    static func bestRate(_ timeline: Timeline, atMost maxRate: Rational) -> Rational {
        var best: (rate: Rational, worst: Rational, dropped: Int)?
        let pool = (candidates.filter { compare($0, maxRate) <= 0 } + [maxRate]).sorted { compare($0, $1) < 0 }
        for rate in pool {
            let fit = CFRFit(timeline: timeline, rate: rate, lead: searchLead(timeline))
            // Give up on a rate as soon as it is worse than the best so far.
            let bound = best.map { multiplyCeil($0.worst, by: rate.num) }
            let score = fit.score(giveUpAbove: bound)
            guard score.complete else { continue }
            let worst = Rational(score.worstAnyNumerator, rate.num)
            if let current = best {
                let order = compare(worst, current.worst)
                if order > 0 || (order == 0 && score.neverShown >= current.dropped) { continue }
            }
            best = (rate, worst, score.neverShown)
        }
        return best?.rate ?? maxRate
    }

    /// -1, 0, 1 as `a` is below, equal to or above `b` (exact).
    static func compare(_ a: Rational, _ b: Rational) -> Int {
        let l = a.num * b.den, r = b.num * a.den
        return l < r ? -1 : (l == r ? 0 : 1)
    }

    /// `ceil(r · n)` for a non-negative rational.
    private static func multiplyCeil(_ r: Rational, by n: Int) -> Int {
        (r.num * n + r.den - 1) / r.den
    }

    static func microsecondsRoundedUp(_ numerator: Int, over denominator: Int, timescale: Int = 100) -> Int {
        // numerator/denominator units = 1,000,000 · numerator/(denominator · timescale) µs.
        let d = denominator * timescale
        return (1_000_000 * numerator + d - 1) / d
    }
}

/// One pass over a timeline at one CFR rate: worst start error and frames never shown, without storing
/// anything per frame. Errors are kept as numerators over `rate.num` (cs), so they compare exactly.
struct CFRFit {
    let timeline: Timeline
    let rate: Rational
    let lead: Int
    let total: Int

    init(timeline: Timeline, rate: Rational, lead: Int) {
        self.timeline = timeline
        self.rate = rate
        self.lead = lead
        total = timeline.outputFrameCount(at: rate)
    }

    struct Score {
        /// Worst absolute start error of a shown frame, in cs times `rate.num`.
        var worstNumerator = 0
        /// Worst error over every frame, a never-shown one counting the wait until the first output instant
        /// at or after its start (which shows a later frame): what a rate cap minimises, so dropping frames
        /// is never a way to look exact.
        var worstAnyNumerator = 0
        var neverShown = 0
        /// False when the pass stopped early (a bound was exceeded).
        var complete = true
    }

    /// Scores the rate. Stops early (`complete == false`) when any frame's error numerator exceeds
    /// `giveUpAbove`, or, with `requireAllShown`, when a frame is never shown.
    func score(giveUpAbove bound: Int?, requireAllShown: Bool = false) -> Score {
        var score = Score()
        let frames = timeline.frames
        guard !frames.isEmpty else { return score }
        let scale = timeline.timescale
        var first = OutputPlan.firstOutputFrame(
            showing: frames[frames.startIndex].start, rate: rate, lead: lead, timescale: scale)
        for i in frames.indices {
            let next = i + 1 < frames.endIndex
                ? OutputPlan.firstOutputFrame(showing: frames[i + 1].start, rate: rate, lead: lead, timescale: scale)
                : total
            // Absolute error: with a lead a frame may show up to ½ cs early.
            let error = abs(scale * first * rate.den - frames[i].start * rate.num)
            let shown = min(next, total) > first
            if shown {
                score.worstNumerator = max(score.worstNumerator, error)
            } else {
                score.neverShown += 1
                if requireAllShown {
                    score.complete = false
                    return score
                }
            }
            if error > score.worstAnyNumerator {
                score.worstAnyNumerator = error
                if let bound, error > bound {
                    score.complete = false
                    return score
                }
            }
            first = next
        }
        // The end of the video is where the next play starts: it counts as a start too.
        let end = abs(scale * total * rate.den - timeline.duration.units * rate.num)
        if end > score.worstAnyNumerator {
            score.worstAnyNumerator = end
            if let bound, end > bound { score.complete = false }
        }
        return score
    }
}
