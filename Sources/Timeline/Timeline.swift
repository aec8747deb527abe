/// Which player's reading of delays and loop counts to follow.
public enum TimelinePolicy: String, Codable, Sendable, CaseIterable {
    /// The reference iOS player (FLAnimatedImage): missing delays carry over, 0 loop count = forever.
    case flanimated
    /// Web browsers: missing delays are 10 cs, a loop count N means N+1 plays, no extension one play.
    case browser
}

/// Why a frame got its delay.
public enum DelayRule: String, Codable, Sendable, CaseIterable {
    /// The GCE's own value, unclamped.
    case raw
    /// A GCE delay of 0 or 1 cs, raised to 10 cs.
    case roundedUp = "rounded-up"
    /// No GCE: the previous frame's resolved delay.
    case carried
    /// No GCE and nothing to carry over: 10 cs.
    case `default`
    /// APNG under `browser`: `delay_num / delay_den` s truncated to whole ms (Chromium, Firefox).
    case truncated
}

/// The authoritative playback schedule of a GIF, in integer centiseconds (schema `gifx.timeline/1`); of a
/// WebP or APNG in integer units of `1 / timescale` s (WebP and browser-policy APNG: ms; flanimated APNG:
/// `lcm(1000, every delay_den)`, so fractional ms stay exact). The `units` of `tick` and `duration`, and
/// every frame's `delay` and `start`, are in those units (cs for a GIF, where `timescale == 100`); a GIF's JSON
/// names them `centiseconds`, as the schema always has, another format's `units`, beside its `timescale`.
public struct Timeline: Codable, Hashable, Sendable {
    public static let schemaID = "gifx.timeline/1"
    /// Delay given to 0/1 cs delays and to frames with nothing to carry over.
    public static let defaultDelay = 10
    /// Delays below this many cs are raised to `defaultDelay`.
    public static let minimumDelay = 2

    public struct Loop: Codable, Hashable, Sendable {
        /// Raw 16-bit count from the loop extension, `nil` when the file has none.
        public var count: Int?
        /// Total plays under the policy, `nil` for forever.
        public var plays: Int?

        private enum CodingKeys: String, CodingKey { case count, plays }

        /// Writes `null` for absent values: the schema's `loop.count` and `loop.plays` are always present.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(count, forKey: .count)
            try c.encode(plays, forKey: .plays)
        }
    }

    /// The GCD of the delays: the exact constant rate that shows every frame on time.
    public struct Tick: Codable, Hashable, Sendable {
        /// GCD of all resolved delays, in the timeline's units (`1 / timescale` s: centiseconds for a GIF).
        public var units: Int
        /// timescale / tick, exact (100 / tick for a GIF).
        public var fps: Rational

        /// A GIF's JSON names the units `centiseconds` (the schema's field); another format's are written by
        /// `Timeline.encode` as `units`, beside the timescale.
        private enum CodingKeys: String, CodingKey { case units = "centiseconds", fps }
    }

    /// How long one play lasts.
    public struct Duration: Codable, Hashable, Sendable {
        /// In the timeline's units (`1 / timescale` s: centiseconds for a GIF).
        public var units: Int
        public var seconds: Double

        private enum CodingKeys: String, CodingKey { case units = "centiseconds", seconds }
    }

    public struct Frame: Codable, Hashable, Sendable {
        public var index: Int
        public var rawDelay: Int?
        public var delay: Int
        public var rule: DelayRule
        public var start: Int
        public var rect: PixelRect
        public var disposal: Disposal
        public var transparentIndex: Int?
        public var interlaced: Bool
        /// APNG only: the stored `delay_den` beside `rawDelay` (`delay_num`); `nil` (and not written) otherwise.
        public var rawDelayDenominator: Int?

        private enum CodingKeys: String, CodingKey {
            case index, rawDelay, rawDelayDenominator, delay, rule, start, rect, disposal, transparentIndex, interlaced
        }

        public init(
            index: Int, rawDelay: Int?, delay: Int, rule: DelayRule, start: Int, rect: PixelRect,
            disposal: Disposal, transparentIndex: Int?, interlaced: Bool, rawDelayDenominator: Int? = nil
        ) {
            self.index = index; self.rawDelay = rawDelay; self.delay = delay; self.rule = rule
            self.start = start; self.rect = rect; self.disposal = disposal
            self.transparentIndex = transparentIndex; self.interlaced = interlaced
            self.rawDelayDenominator = rawDelayDenominator
        }

        /// Writes `null` for absent optionals: the schema's keys are always present.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(index, forKey: .index)
            try c.encode(rawDelay, forKey: .rawDelay)
            try c.encodeIfPresent(rawDelayDenominator, forKey: .rawDelayDenominator)
            try c.encode(delay, forKey: .delay)
            try c.encode(rule, forKey: .rule)
            try c.encode(start, forKey: .start)
            try c.encode(rect, forKey: .rect)
            try c.encode(disposal, forKey: .disposal)
            try c.encode(transparentIndex, forKey: .transparentIndex)
            try c.encode(interlaced, forKey: .interlaced)
        }
    }

    public var schema: String
    public var policy: TimelinePolicy
    /// The container the schedule was read from (not written to JSON for a GIF, whose bytes stay as before).
    public var format: SourceFormat = .gif
    /// Units per second of `delay`, `start`, `tick.units` and `duration.units`: 100 for a GIF.
    public var timescale: Int = 100
    public var canvas: CanvasSize
    public var loop: Loop
    public var tick: Tick
    public var duration: Duration
    public var frames: Frames

    /// One play, exact, with its unit (``duration`` counts `1 / timescale` s).
    public var playDuration: MediaTime { MediaTime(duration.units, timescale: timescale) }
    public var warnings: [String]

    /// Resolves the schedule of `input` under `policy` (docs/timeline.md).
    public init(_ input: TimelineInput, policy: TimelinePolicy = .flanimated) {
        if let source = input.sourceTimescale, source > 0 {
            self.init(ownTimescale: input, source: source, policy: policy)
        } else if input.format != .gif {
            self.init(otherFormat: input, policy: policy)
        } else {
            self.init(gif: input, policy: policy)
        }
    }

    /// A GIF's schedule (docs/timeline.md sections 1-4).
    private init(gif input: TimelineInput, policy: TimelinePolicy) {
        var frames = Frames(sharing: input.frames)
        var start = 0
        var tick = 0
        var previous: Int?
        let checkDropped = !input.followsDroppedFrame.isEmpty
        for (index, descriptor) in input.frames.enumerated() {
            let carryFrom = checkDropped && input.followsDroppedFrame.contains(index) ? nil : previous
            let (delay, rule) = Self.resolveDelay(descriptor.rawDelay, carryFrom: carryFrom, policy: policy)
            frames.appendSchedule(delay: delay, rule: rule, start: start)
            previous = delay
            start += delay
            tick = gcd(tick, delay)
        }
        if tick == 0 { tick = Self.defaultDelay }
        self.schema = Self.schemaID
        self.policy = policy
        self.canvas = input.canvas
        self.loop = Loop(count: input.loopCount, plays: Self.plays(loopCount: input.loopCount, policy: policy))
        self.tick = Tick(units: tick, fps: Rational(100, tick))
        self.duration = Duration(units: start, seconds: Double(start) / 100)
        self.frames = frames
        self.warnings = input.warnings
    }

    /// A WebP's or APNG's schedule (docs/timeline.md, "Other formats").
    private init(otherFormat input: TimelineInput, policy: TimelinePolicy) {
        var warnings = input.warnings
        let scale: Int
        if input.format == .apng && policy == .flanimated {
            var l = 1000
            for den in input.delayDenominators {
                let d = den == 0 ? 100 : Int(den)
                l = l / gcd(l, d) * d
                if l > Self.largestTimescale { break }
            }
            if l > Self.largestTimescale {
                warnings.append(
                    "the frames' delay denominators need a time base finer than 1/\(Self.largestTimescale) s; "
                        + "delays are rounded to the nearest millisecond")
                l = 1000
            }
            scale = l
        } else {
            scale = 1000
        }
        var frames = Frames(sharing: input.frames)
        var start = 0
        var tick = 0
        for (index, descriptor) in input.frames.enumerated() {
            let den = index < input.delayDenominators.count ? Int(input.delayDenominators[index]) : 0
            let (delay, rule) = Self.resolveDelay(
                raw: descriptor.rawDelay ?? 0, denominator: den, format: input.format, policy: policy, timescale: scale)
            frames.appendSchedule(
                delay: delay, rule: rule, start: start,
                denominator: input.format == .apng ? UInt16(truncatingIfNeeded: den) : nil)
            start += delay
            tick = gcd(tick, delay)
        }
        if tick == 0 { tick = scale / 10 }
        self.schema = Self.schemaID
        self.policy = policy
        self.format = input.format
        self.timescale = scale
        self.canvas = input.canvas
        // WebP and APNG store the total plays (Chromium and Firefox play N - 1 repeats, YYImage N plays);
        // 0 is forever; a still image (no loop field) plays once.
        let plays: Int? = input.loopCount.map { $0 == 0 ? nil : $0 } ?? 1
        self.loop = Loop(count: input.loopCount, plays: plays)
        self.tick = Tick(units: tick, fps: Rational(scale, tick))
        self.duration = Duration(units: start, seconds: Double(start) / Double(scale))
        self.frames = frames
        self.warnings = warnings
    }

    /// A schedule in the container's own time base (`TimelineInput.sourceTimescale`: an AVIF track's media
    /// timescale), exact: each frame's `rawDelay` units are its delay. Frames of at most 10 ms (`browser`:
    /// Chromium, Firefox) or under 11 ms (`flanimated`: YYImage, WebKit) play 100 ms, as for WebP and APNG;
    /// where one does, the timescale becomes the least multiple of the source's that is a multiple of 10, so
    /// 100 ms is whole units. Plays as WebP's and APNG's: the total, 0 forever, none (a still image) once.
    private init(ownTimescale input: TimelineInput, source: Int, policy: TimelinePolicy) {
        let limit = policy == .browser ? MediaTime(10, timescale: 1000) : MediaTime(11, timescale: 1000)
        func raised(_ raw: Int) -> Bool {
            let delay = MediaTime(raw, timescale: source)
            return policy == .browser ? delay <= limit : delay < limit
        }
        let tenths = MediaTime(1, timescale: 10).timescale
        let anyRaised = input.frames.contains { raised($0.rawDelay ?? 0) }
        let scale = anyRaised ? source / gcd(source, tenths) * tenths : source
        let factor = scale / source
        let hundredMs = (try? MediaTime(1, timescale: tenths).rounded(toUnitsPerSecond: scale)) ?? scale
        var frames = Frames(sharing: input.frames)
        var start = 0
        var tick = 0
        for descriptor in input.frames {
            let raw = descriptor.rawDelay ?? 0
            let (delay, rule) = raised(raw) ? (hundredMs, DelayRule.roundedUp) : (raw * factor, DelayRule.raw)
            frames.appendSchedule(delay: delay, rule: rule, start: start)
            start += delay
            tick = gcd(tick, delay)
        }
        if tick == 0 { tick = hundredMs }
        self.schema = Self.schemaID
        self.policy = policy
        self.format = input.format
        self.timescale = scale
        self.canvas = input.canvas
        let plays: Int? = input.loopCount.map { $0 == 0 ? nil : $0 } ?? 1
        self.loop = Loop(count: input.loopCount, plays: plays)
        self.tick = Tick(units: tick, fps: Rational(scale, tick))
        self.duration = Duration(units: start, seconds: MediaTime(start, timescale: scale).seconds)
        self.frames = frames
        self.warnings = input.warnings
    }

    private enum UnitKeys: String, CodingKey { case units, fps, seconds }

    private enum CodingKeys: String, CodingKey {
        case schema, policy, format, timescale, canvas, loop, tick, duration, frames, warnings
    }

    /// A GIF's schedule encodes exactly as before (no `format`, no `timescale`); another format's adds both.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(schema, forKey: .schema)
        try c.encode(policy, forKey: .policy)
        if format != .gif {
            try c.encode(format, forKey: .format)
            try c.encode(timescale, forKey: .timescale)
        }
        try c.encode(canvas, forKey: .canvas)
        try c.encode(loop, forKey: .loop)
        if format == .gif {
            try c.encode(tick, forKey: .tick)
            try c.encode(duration, forKey: .duration)
        } else {
            // In units of 1/timescale s, named so (a GIF's stay `centiseconds`).
            var t = c.nestedContainer(keyedBy: UnitKeys.self, forKey: .tick)
            try t.encode(tick.fps, forKey: .fps)
            try t.encode(tick.units, forKey: .units)
            var d = c.nestedContainer(keyedBy: UnitKeys.self, forKey: .duration)
            try d.encode(duration.seconds, forKey: .seconds)
            try d.encode(duration.units, forKey: .units)
        }
        try c.encode(frames, forKey: .frames)
        try c.encode(warnings, forKey: .warnings)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        schema = try c.decode(String.self, forKey: .schema)
        policy = try c.decode(TimelinePolicy.self, forKey: .policy)
        format = try c.decodeIfPresent(SourceFormat.self, forKey: .format) ?? .gif
        timescale = try c.decodeIfPresent(Int.self, forKey: .timescale) ?? 100
        canvas = try c.decode(CanvasSize.self, forKey: .canvas)
        loop = try c.decode(Loop.self, forKey: .loop)
        if format == .gif {
            tick = try c.decode(Tick.self, forKey: .tick)
            duration = try c.decode(Duration.self, forKey: .duration)
        } else {
            let t = try c.nestedContainer(keyedBy: UnitKeys.self, forKey: .tick)
            tick = Tick(units: try t.decode(Int.self, forKey: .units), fps: try t.decode(Rational.self, forKey: .fps))
            let d = try c.nestedContainer(keyedBy: UnitKeys.self, forKey: .duration)
            duration = Duration(
                units: try d.decode(Int.self, forKey: .units), seconds: try d.decode(Double.self, forKey: .seconds))
        }
        frames = try c.decode(Frames.self, forKey: .frames)
        warnings = try c.decode([String].self, forKey: .warnings)
    }

    /// Finest time base a flanimated APNG schedule uses (units per second); coarser dens fall back to ms.
    public static let largestTimescale = 100_000

    /// A WebP or APNG frame's delay in units of `1 / timescale` s and the rule that gave it:
    /// WebP `raw` ms; APNG `raw / denominator` s (denominator 0 means 100). `flanimated` (YYImage, WebKit)
    /// keeps fractional ms and raises delays below 11 ms to 100 ms; `browser` (Chromium, Firefox) truncates
    /// an APNG delay to whole ms and raises delays of at most 10 ms to 100 ms.
    public static func resolveDelay(
        raw: Int, denominator: Int, format: SourceFormat, policy: TimelinePolicy, timescale: Int
    ) -> (delay: Int, rule: DelayRule) {
        let hundredMs = timescale / 10
        if format != .apng {
            // Integer ms: "< 11 ms" (YYImage) and "<= 10 ms" (browsers) agree.
            let ms = raw
            return ms <= 10 ? (hundredMs, .roundedUp) : (ms * timescale / 1000, .raw)
        }
        let den = denominator == 0 ? 100 : denominator
        switch policy {
        case .browser:
            let ms = raw * 1000 / den
            if ms <= 10 { return (hundredMs, .roundedUp) }
            return (ms * timescale / 1000, ms * den == raw * 1000 ? .raw : .truncated)
        case .flanimated:
            // raw / den < 0.011 s  <=>  raw * 1000 < 11 * den.
            if raw * 1000 < 11 * den { return (hundredMs, .roundedUp) }
            if timescale % den == 0 { return (raw * (timescale / den), .raw) }
            // A timescale that fell back to ms: nearest ms.
            return ((2 * raw * timescale + den) / (2 * den), .raw)
        }
    }

    /// One frame's delay and the rule that gave it.
    public static func resolveDelay(_ rawDelay: Int?, carryFrom previous: Int?, policy: TimelinePolicy)
        -> (delay: Int, rule: DelayRule)
    {
        if let raw = rawDelay {
            return raw < minimumDelay ? (defaultDelay, .roundedUp) : (raw, .raw)
        }
        if policy == .flanimated, let previous { return (previous, .carried) }
        return (defaultDelay, .default)
    }

    /// Total plays for a raw loop count, `nil` meaning forever.
    public static func plays(loopCount: Int?, policy: TimelinePolicy) -> Int? {
        switch (policy, loopCount) {
        case (.flanimated, nil), (.flanimated, 0?), (.browser, 0?): return nil
        case (.flanimated, let n?): return n
        case (.browser, nil): return 1
        case (.browser, let n?): return n + 1
        }
    }
}
