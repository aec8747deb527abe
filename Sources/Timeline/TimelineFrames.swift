extension Timeline {
    /// The schedule's frames as a random-access collection of `Frame` values, stored in 7 bytes per frame
    /// (resolved delay, rule, start) on top of the 12-byte descriptors it shares with its input: a
    /// 5-million-frame GIF's schedule stays within tens of megabytes (issue 17), where an array of `Frame`
    /// structs took about 250 bytes per frame. Frames built by `Timeline.init` always fit; any other value
    /// (say, decoded from edited JSON) is kept exactly in a side table.
    public struct Frames: RandomAccessCollection, Hashable, Sendable, Codable, ExpressibleByArrayLiteral {
        private var descriptors = FrameDescriptorList()
        private var delays = ChunkedColumn<UInt16>()
        /// `DelayRule` position in `allCases`, or `outlier` when the whole frame is in `outliers`.
        private var rules = ChunkedColumn<UInt8>()
        private var starts = OffsetColumn()
        private var outliers: [Int: Frame] = [:]
        /// APNG only: each frame's `delay_den` (empty for GIF and WebP schedules).
        private var denominators = ChunkedColumn<UInt16>()

        private static let outlier = UInt8.max

        public init() {}

        public init<S: Sequence>(_ frames: S) where S.Element == Frame {
            for frame in frames { append(frame) }
        }

        public init(arrayLiteral frames: Frame...) { self.init(frames) }

        /// Schedule columns to be filled by `appendSchedule`, one per descriptor, sharing `descriptors`.
        init(sharing descriptors: FrameDescriptorList) {
            self.descriptors = descriptors
        }

        public var startIndex: Int { 0 }
        public var endIndex: Int { rules.count }

        public subscript(position: Int) -> Frame {
            let rule = rules[position]
            if rule == Self.outlier { return outliers[position]! }
            let descriptor = descriptors[position]
            return Frame(
                index: position, rawDelay: descriptor.rawDelay, delay: Int(delays[position]),
                rule: DelayRule(code: rule), start: starts[position], rect: descriptor.rect,
                disposal: descriptor.disposal, transparentIndex: descriptor.transparentIndex,
                interlaced: descriptor.interlaced,
                rawDelayDenominator: position < denominators.count ? Int(denominators[position]) : nil)
        }

        /// Appends the schedule of the next shared descriptor.
        mutating func appendSchedule(delay: Int, rule: DelayRule, start: Int, denominator: UInt16? = nil) {
            let position = rules.count
            if let denominator, denominators.count == position { denominators.append(denominator) }
            if let fitted = UInt16(exactly: delay) {
                delays.append(fitted)
                rules.append(rule.code)
            } else {
                let d = descriptors[position]
                outliers[position] = Frame(
                    index: position, rawDelay: d.rawDelay, delay: delay, rule: rule, start: start, rect: d.rect,
                    disposal: d.disposal, transparentIndex: d.transparentIndex, interlaced: d.interlaced,
                    rawDelayDenominator: denominator.map(Int.init))
                delays.append(0)
                rules.append(Self.outlier)
            }
            starts.append(start)
        }

        /// Appends any frame (its descriptor fields included).
        public mutating func append(_ frame: Frame) {
            let position = rules.count
            descriptors.append(
                FrameDescriptor(
                    rawDelay: frame.rawDelay, rect: frame.rect, disposal: frame.disposal,
                    transparentIndex: frame.transparentIndex, interlaced: frame.interlaced))
            if frame.index == position {
                appendSchedule(
                    delay: frame.delay, rule: frame.rule, start: frame.start,
                    denominator: frame.rawDelayDenominator.flatMap { UInt16(exactly: $0) })
            } else {
                outliers[position] = frame
                delays.append(0)
                rules.append(Self.outlier)
                starts.append(frame.start)
            }
        }

        /// Encoded as a plain array of `Frame`, exactly as `[Frame]` was.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            for frame in self { try container.encode(frame) }
        }

        public init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            while !container.isAtEnd { append(try container.decode(Frame.self)) }
        }
    }
}

extension DelayRule {
    /// A small number for compact storage.
    var code: UInt8 {
        switch self {
        case .raw: 0
        case .roundedUp: 1
        case .carried: 2
        case .default: 3
        case .truncated: 4
        }
    }

    init(code: UInt8) {
        switch code {
        case 0: self = .raw
        case 1: self = .roundedUp
        case 2: self = .carried
        case 4: self = .truncated
        default: self = .default
        }
    }
}
