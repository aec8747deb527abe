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
}

/// The authoritative playback schedule of a GIF, in integer centiseconds (schema `gifx.timeline/1`).
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

    public struct Tick: Codable, Hashable, Sendable {
        /// GCD of all resolved delays.
        public var centiseconds: Int
        /// 100 / tick, exact.
        public var fps: Rational
    }

    public struct Duration: Codable, Hashable, Sendable {
        public var centiseconds: Int
        public var seconds: Double
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

        private enum CodingKeys: String, CodingKey {
            case index, rawDelay, delay, rule, start, rect, disposal, transparentIndex, interlaced
        }

        public init(
            index: Int, rawDelay: Int?, delay: Int, rule: DelayRule, start: Int, rect: PixelRect,
            disposal: Disposal, transparentIndex: Int?, interlaced: Bool
        ) {
            self.index = index; self.rawDelay = rawDelay; self.delay = delay; self.rule = rule
            self.start = start; self.rect = rect; self.disposal = disposal
            self.transparentIndex = transparentIndex; self.interlaced = interlaced
        }

        /// Writes `null` for absent optionals: the schema's keys are always present.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(index, forKey: .index)
            try c.encode(rawDelay, forKey: .rawDelay)
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
    public var canvas: CanvasSize
    public var loop: Loop
    public var tick: Tick
    public var duration: Duration
    public var frames: Frames
    public var warnings: [String]

    /// Resolves the schedule of `input` under `policy` (docs/timeline.md).
    public init(_ input: TimelineInput, policy: TimelinePolicy = .flanimated) {
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
        self.tick = Tick(centiseconds: tick, fps: Rational(100, tick))
        self.duration = Duration(centiseconds: start, seconds: Double(start) / 100)
        self.frames = frames
        self.warnings = input.warnings
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
