/// An edit of the schedule (docs/edits.md): a cut, a reordering, a speed change and a crop, applied by
/// `Timeline.applying(_:)` to the *resolved* schedule (sub-minimum rule, carry-over and policy first), in
/// this order: cut, then reverse, then boomerang, then speed. The crop changes the canvas only.
public struct TimelineEdit: Codable, Hashable, Sendable {
    /// Start of the cut in centiseconds of the resolved schedule; `nil`: the start (0).
    public var from: Int?
    /// End of the cut (exclusive) in centiseconds; `nil` or beyond the end: the end.
    public var to: Int?
    /// Playback speed: every time of the schedule is divided by it (2: twice as fast). Positive.
    public var speed: Rational
    /// Frames in reverse order, each keeping its delay.
    public var reverse: Bool
    /// Forward then backward without repeating the end frames: 0, 1, …, n-1, n-2, …, 1.
    public var boomerang: Bool
    /// The rectangle of the canvas every output shows, in canvas pixels; `nil`: the whole canvas.
    public var crop: PixelRect?

    public init(
        from: Int? = nil, to: Int? = nil, speed: Rational = Rational(1), reverse: Bool = false,
        boomerang: Bool = false, crop: PixelRect? = nil
    ) {
        self.from = from; self.to = to; self.speed = speed; self.reverse = reverse
        self.boomerang = boomerang; self.crop = crop
    }

    /// Largest numerator or denominator of `speed`: keeps every product of the arithmetic in 64 bits.
    public static let maxSpeedTerm = 1_000_000

    /// Whether the output frames may show GIF frames out of their order (the stream must spool them).
    public var reordersFrames: Bool { reverse || boomerang }

    /// The first problem found without the GIF (its duration and canvas are checked by `applying`).
    public var problem: TimelineEditError? {
        if let from, from < 0 { return .negativeTime(from) }
        if let to, to < 0 { return .negativeTime(to) }
        if let to, to <= (from ?? 0) { return .emptyCut(from: from ?? 0, to: to) }
        if speed.num <= 0 || speed.num > Self.maxSpeedTerm || speed.den > Self.maxSpeedTerm {
            return .speed(speed)
        }
        if let crop, crop.width < 1 || crop.height < 1 || crop.x < 0 || crop.y < 0 { return .emptyCrop(crop) }
        return nil
    }
}

/// Why an edit cannot apply (worded without flag syntax; the CLI names its flags).
public enum TimelineEditError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A cut time below 0.
    case negativeTime(Int)
    /// `to` at or before `from`.
    case emptyCut(from: Int, to: Int)
    /// The cut starts at or after the end of the schedule.
    case cutAfterEnd(from: Int, duration: Int)
    /// A speed that is not positive, or whose terms exceed `TimelineEdit.maxSpeedTerm`.
    case speed(Rational)
    /// At this speed the whole edited schedule rounds to less than 1 cs.
    case tooFast(speed: Rational, duration: Int)
    /// A crop with no pixel, or starting left of or above the canvas.
    case emptyCrop(PixelRect)
    /// A crop reaching outside the canvas.
    case cropOutside(PixelRect, canvas: CanvasSize)

    public var description: String {
        func seconds(_ cs: Int) -> String {
            let sign = cs < 0 ? "-" : ""
            let m = cs.magnitude
            return "\(sign)\(m / 100).\(m % 100 < 10 ? "0" : "")\(m % 100) s"
        }
        func rect(_ r: PixelRect) -> String { "\(r.width)x\(r.height)+\(r.x)+\(r.y)" }
        switch self {
        case .negativeTime(let cs): return "a cut time must be 0 or more (got \(seconds(cs)))"
        case .emptyCut(let from, let to): return "the cut is empty: it ends (\(seconds(to))) at or before its start (\(seconds(from)))"
        case .cutAfterEnd(let from, let duration):
            return "the cut starts at \(seconds(from)), at or after the end of the GIF (\(seconds(duration)))"
        case .speed(let speed):
            return "the speed must be positive with terms up to \(TimelineEdit.maxSpeedTerm) (got \(speed))"
        case .tooFast(let speed, let duration):
            return "at speed \(speed) the \(seconds(duration)) schedule lasts less than 1 cs"
        case .emptyCrop(let r): return "the crop \(rect(r)) must have a width and height of at least 1 and start at x, y >= 0"
        case .cropOutside(let r, let canvas):
            return "the crop \(rect(r)) reaches outside the \(canvas.width)x\(canvas.height) canvas"
        }
    }
}

/// A schedule after an edit: `timeline` is the output's schedule (its frames are the output frames, numbered
/// 0…; each keeps its source frame's descriptor fields and rule), `sourceFrames[k]` the GIF frame whose
/// composited canvas output frame k shows.
public struct EditedTimeline: Hashable, Sendable {
    public var timeline: Timeline
    public var sourceFrames: [Int]
    /// The edit as asked.
    public var edit: TimelineEdit
    /// Frames whose delay rounded to 0 cs at the edit's speed, left out.
    public var framesDroppedBySpeed: Int

    /// Whether the source frames never go backwards (a cut and a speed change only): the stream can then
    /// decode in order and deliver each needed canvas as it passes.
    public var isMonotone: Bool {
        zip(sourceFrames, sourceFrames.dropFirst()).allSatisfy { $0 <= $1 }
    }

    /// The GIF frames shown at all, lowest to highest (a cut's frames: always a contiguous range).
    public var sourceRange: ClosedRange<Int> { sourceFrames.min()!...sourceFrames.max()! }
}

extension Timeline {
    /// The schedule `edit` makes of this one (docs/edits.md). Pure: no pixels. Throws when the cut starts at
    /// or after the end, the crop leaves the canvas, or the speed leaves less than 1 cs.
    public func applying(_ edit: TimelineEdit) throws(TimelineEditError) -> EditedTimeline {
        if let problem = edit.problem { throw problem }
        // The cut is given in cs; a WebP's or APNG's schedule counts in finer units (timescale a multiple of 100). A
        // schedule in a container's own time base (an AVIF's 1/30 s) is first restated, exactly, in the least
        // multiple of its timescale that counts whole centiseconds.
        let centiseconds = MediaTime(1, timescale: 100).timescale
        if timescale % centiseconds != 0 {
            return try restated(times: centiseconds / gcd(timescale, centiseconds)).applying(edit)
        }
        let end = duration.units
        let unitsPerCentisecond = Swift.max(1, timescale / centiseconds)
        let from = (edit.from ?? 0) * unitsPerCentisecond
        if from >= end { throw .cutAfterEnd(from: edit.from ?? 0, duration: end / unitsPerCentisecond) }
        let to = min(edit.to.map { $0 * unitsPerCentisecond } ?? end, end)
        if let crop = edit.crop, crop.x + crop.width > canvas.width || crop.y + crop.height > canvas.height {
            throw .cropOutside(crop, canvas: canvas)
        }

        // 1. Cut: each frame keeps its overlap with [from, to); frames without one are left out.
        var sources: [Int] = []
        var delays: [Int] = []
        for (i, frame) in frames.enumerated() {
            let frameEnd = frame.start + frame.delay
            if frameEnd <= from { continue }
            if frame.start >= to { break }
            let kept = min(frameEnd, to) - max(frame.start, from)
            if kept > 0 {
                sources.append(i)
                delays.append(kept)
            }
        }

        // 2. Reverse, 3. boomerang: an order of the cut's frames (positions into `sources`).
        var order = Array(sources.indices)
        if edit.reverse { order.reverse() }
        if edit.boomerang, order.count > 2 { order += order[1..<(order.count - 1)].reversed() }

        // 4. Speed: every cumulative start and the end divided by the speed, rounded half up; delays are the
        // differences, so nothing drifts. A frame left with 0 cs is dropped.
        let total = order.reduce(0) { $0 + delays[$1] }
        let scaledEnd = Self.scaled(total, by: edit.speed)
        if scaledEnd < 1 { throw .tooFast(speed: edit.speed, duration: total) }
        var edited = Frames()
        var sourceFrames: [Int] = []
        sourceFrames.reserveCapacity(order.count)
        var dropped = 0
        var tick = 0
        var before = 0
        for position in order {
            let start = Self.scaled(before, by: edit.speed)
            before += delays[position]
            let delay = Self.scaled(before, by: edit.speed) - start
            if delay == 0 {
                dropped += 1
                continue
            }
            let source = frames[sources[position]]
            edited.append(
                Frame(
                    index: edited.count, rawDelay: source.rawDelay, delay: delay, rule: source.rule, start: start,
                    rect: source.rect, disposal: source.disposal, transparentIndex: source.transparentIndex,
                    interlaced: source.interlaced, rawDelayDenominator: source.rawDelayDenominator))
            sourceFrames.append(source.index)
            tick = gcd(tick, delay)
        }

        var result = self
        result.frames = edited
        result.tick = Tick(units: tick, fps: Rational(timescale, tick))
        result.duration = Duration(units: scaledEnd, seconds: Double(scaledEnd) / Double(timescale))
        if let crop = edit.crop { result.canvas = CanvasSize(width: crop.width, height: crop.height) }
        return EditedTimeline(timeline: result, sourceFrames: sourceFrames, edit: edit, framesDroppedBySpeed: dropped)
    }

    /// The same schedule in units `factor` times finer (timescale × factor): every delay, start, the tick and the
    /// duration multiplied, nothing rounded.
    func restated(times factor: Int) -> Timeline {
        var result = self
        var scaled = Frames()
        for frame in frames {
            var copy = frame
            copy.delay *= factor
            copy.start *= factor
            scaled.append(copy)
        }
        result.frames = scaled
        result.timescale = timescale * factor
        result.tick = Tick(units: tick.units * factor, fps: tick.fps)
        result.duration = Duration(units: duration.units * factor, seconds: duration.seconds)
        return result
    }

    /// `time / speed` in cs, rounded half up (exact integer arithmetic).
    static func scaled(_ time: Int, by speed: Rational) -> Int {
        (2 * time * speed.den + speed.num) / (2 * speed.num)
    }
}
