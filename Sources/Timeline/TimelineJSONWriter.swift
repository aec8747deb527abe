/// Writes a `Timeline` as `gifx.timeline/1` JSON frame by frame into a fixed buffer handed to a sink, so a
/// schedule of millions of frames is never one document in memory (issue 17). The bytes are exactly what
/// `JSONEncoder` with `[.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]` makes of the same `Timeline`
/// (key order, two-space indent, `" : "`, `Double` as its shortest `description` without a trailing `.0`,
/// string escapes), which stays the test oracle; this is only faster and flat in memory.
public struct TimelineJSONWriter {
    /// Receives the output in pieces of about `chunkSize` bytes, valid only during the call.
    public typealias Sink = (UnsafeRawBufferPointer) throws -> Void

    public let timeline: Timeline
    /// Further top-level members (a later schema addition such as an output plan), each an already
    /// pretty-printed JSON value exactly as `JSONEncoder` with the same options prints it at top level.
    /// Each goes where `.sortedKeys` would put its key; keys must be plain ASCII names that sort the same
    /// case-insensitively as byte-wise, like every key of the schema.
    public var extraMembers: [(key: String, prettyJSON: String)]
    public var chunkSize: Int

    public init(_ timeline: Timeline, extraMembers: [(key: String, prettyJSON: String)] = [], chunkSize: Int = 1 << 16) {
        self.timeline = timeline; self.extraMembers = extraMembers; self.chunkSize = max(1, chunkSize)
    }

    /// Writes the whole document (no trailing newline, like `JSONEncoder`).
    public func write(to sink: Sink) throws {
        try withoutActuallyEscaping(sink) { try write(into: JSONOutput(chunkSize: chunkSize, sink: $0)) }
    }

    private func write(into output: JSONOutput) throws {
        var out = output
        let t = timeline
        var members: [(key: String, write: (inout JSONOutput) throws -> Void)] = [
            ("canvas", { out in out.object(1, [("height", .int(t.canvas.height)), ("width", .int(t.canvas.width))]) }),
            ("duration", { out in
                out.object(1, [
                    (t.format == .gif ? "centiseconds" : "units", .int(t.duration.units)),
                    ("seconds", .double(t.duration.seconds)),
                ].sorted { $0.0 < $1.0 })
            }),
            ("frames", { out in try Self.writeFrames(t.frames, to: &out) }),
            ("loop", { out in out.object(1, [("count", .optionalInt(t.loop.count)), ("plays", .optionalInt(t.loop.plays))]) }),
            ("policy", { out in out.string(t.policy.rawValue) }),
            ("schema", { out in out.string(t.schema) }),
            ("tick", { out in
                out.openObject()
                if t.format == .gif {
                    out.key("centiseconds", depth: 2)
                    out.int(t.tick.units)
                    out.separator()
                }
                out.key("fps", depth: 2)
                out.object(2, [("den", .int(t.tick.fps.den)), ("num", .int(t.tick.fps.num))])
                if t.format != .gif {
                    // A WebP's or APNG's tick is in units of 1/timescale s (sorted after "fps").
                    out.separator()
                    out.key("units", depth: 2)
                    out.int(t.tick.units)
                }
                out.closeObject(depth: 1)
            }),
            ("warnings", { out in
                out.openArray()
                for (i, warning) in t.warnings.enumerated() {
                    if i > 0 { out.separator() }
                    out.indent(2)
                    out.string(warning)
                }
                out.closeArray(depth: 1)
            }),
        ]
        if t.format != .gif {
            // A WebP's or APNG's schedule names its container and its unit (a GIF's bytes stay as before).
            members.append(("format", { out in out.string(t.format.rawValue) }))
            members.append(("timescale", { out in out.int(t.timescale) }))
        }
        for extra in extraMembers {
            // One level deeper: every line after the first gets two more spaces (not the empty line
            // inside an empty array, which JSONEncoder leaves empty).
            let json = extra.prettyJSON.split(separator: "\n", omittingEmptySubsequences: false)
                .enumerated().map { $0 == 0 || $1.isEmpty ? String($1) : "  " + $1 }.joined(separator: "\n")
            members.append((extra.key, { out in out.raw(json) }))
        }
        members.sort { $0.key.lowercased() < $1.key.lowercased() }
        out.openObject()
        for (i, member) in members.enumerated() {
            if i > 0 { out.separator() }
            out.key(member.key, depth: 1)
            try member.write(&out)
            try out.flushIfFull()
        }
        out.closeObject(depth: 0)
        try out.flush()
    }

    private static func writeFrames(_ frames: Timeline.Frames, to out: inout JSONOutput) throws {
        out.openArray()
        let k = FrameKeyBytes.shared
        for (i, frame) in frames.enumerated() {
            out.bytes(i == 0 ? k.firstOpen : k.nextOpen)
            out.int(frame.delay)
            out.bytes(k.disposal); out.bytes(k.disposals[frame.disposal]!)
            out.bytes(k.index); out.int(frame.index)
            out.bytes(k.interlaced); out.bytes(frame.interlaced ? k.true : k.false)
            out.bytes(k.rawDelay); out.optionalInt(frame.rawDelay)
            if let denominator = frame.rawDelayDenominator { out.bytes(k.rawDelayDenominator); out.int(denominator) }
            let r = frame.rect
            out.bytes(k.rectHeight); out.int(r.height)
            out.bytes(k.rectWidth); out.int(r.width)
            out.bytes(k.rectX); out.int(r.x)
            out.bytes(k.rectY); out.int(r.y)
            out.bytes(k.rule); out.bytes(k.rules[frame.rule]!)
            out.bytes(k.start); out.int(frame.start)
            out.bytes(k.transparentIndex); out.optionalInt(frame.transparentIndex)
            out.bytes(k.close)
            try out.flushIfFull()
        }
        out.closeArray(depth: 1)
    }
}

/// The fixed bytes around a frame's values (keys, indents, separators), rendered once with the same
/// primitives as the rest of the document.
private struct FrameKeyBytes: Sendable {
    static let shared = FrameKeyBytes()

    let firstOpen, nextOpen, disposal, index, interlaced, rawDelay, rawDelayDenominator: [UInt8]
    let rectHeight, rectWidth, rectX, rectY: [UInt8]
    let rule, start, transparentIndex, close, `true`, `false`: [UInt8]
    let disposals: [Disposal: [UInt8]]
    let rules: [DelayRule: [UInt8]]

    private init() {
        func render(_ body: (inout JSONOutput) -> Void) -> [UInt8] {
            var out = JSONOutput(chunkSize: 1 << 10) { _ in }
            body(&out)
            return out.pending
        }
        /// `,\n` then the key at frame-member depth.
        func member(_ name: String, depth: Int = 3) -> [UInt8] {
            render { $0.separator(); $0.key(name, depth: depth) }
        }
        firstOpen = render { $0.indent(2); $0.openObject(); $0.key("delay", depth: 3) }
        nextOpen = render { $0.separator() } + firstOpen
        disposal = member("disposal")
        index = member("index")
        interlaced = member("interlaced")
        rawDelay = member("rawDelay")
        rawDelayDenominator = member("rawDelayDenominator")
        rectHeight = member("rect") + render { $0.openObject(); $0.key("height", depth: 4) }
        rectWidth = member("width", depth: 4)
        rectX = member("x", depth: 4)
        rectY = member("y", depth: 4)
        rule = render { $0.closeObject(depth: 3) } + member("rule")
        start = member("start")
        transparentIndex = member("transparentIndex")
        close = render { $0.closeObject(depth: 2) }
        `true` = Array("true".utf8)
        `false` = Array("false".utf8)
        disposals = Dictionary(uniqueKeysWithValues: Disposal.allCases.map { d in (d, render { $0.string(d.rawValue) }) })
        rules = Dictionary(uniqueKeysWithValues: DelayRule.allCases.map { r in (r, render { $0.string(r.rawValue) }) })
    }
}

/// The pretty-printer's primitives over one reusable byte buffer.
struct JSONOutput {
    enum Scalar {
        case int(Int), optionalInt(Int?), double(Double)
    }

    private var buffer: [UInt8] = []
    private let chunkSize: Int
    private let sink: TimelineJSONWriter.Sink

    init(chunkSize: Int, sink: @escaping TimelineJSONWriter.Sink) {
        self.chunkSize = chunkSize; self.sink = sink
        buffer.reserveCapacity(chunkSize + 1024)
    }

    mutating func flushIfFull() throws {
        if buffer.count >= chunkSize { try flush() }
    }

    mutating func flush() throws {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes { try sink($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    mutating func raw(_ text: String) { buffer.append(contentsOf: text.utf8) }

    mutating func bytes(_ fixed: [UInt8]) { buffer.append(contentsOf: fixed) }

    /// What has been written and not yet flushed.
    var pending: [UInt8] { buffer }

    mutating func indent(_ depth: Int) {
        for _ in 0..<(2 * depth) { buffer.append(0x20) }
    }

    /// `"name" : ` at `depth`, on its own line.
    mutating func key(_ name: String, depth: Int) {
        indent(depth)
        string(name)
        buffer.append(contentsOf: [0x20, 0x3A, 0x20])
    }

    mutating func separator() { buffer.append(contentsOf: [0x2C, 0x0A]) }
    mutating func openObject() { buffer.append(contentsOf: [0x7B, 0x0A]) }
    mutating func openArray() { buffer.append(contentsOf: [0x5B, 0x0A]) }

    mutating func closeObject(depth: Int) {
        buffer.append(0x0A)
        indent(depth)
        buffer.append(0x7D)
    }

    /// `JSONEncoder` closes an empty array on a line of its own after an empty line, too.
    mutating func closeArray(depth: Int) {
        buffer.append(0x0A)
        indent(depth)
        buffer.append(0x5D)
    }

    /// An object of scalars whose members open at `depth + 1`.
    mutating func object(_ depth: Int, _ members: [(String, Scalar)]) {
        openObject()
        for (i, (name, value)) in members.enumerated() {
            if i > 0 { separator() }
            key(name, depth: depth + 1)
            switch value {
            case .int(let v): int(v)
            case .optionalInt(let v): optionalInt(v)
            case .double(let v): double(v)
            }
        }
        closeObject(depth: depth)
    }

    mutating func optionalInt(_ value: Int?) {
        if let value { int(value) } else { buffer.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C]) }
    }

    mutating func int(_ value: Int) {
        if value < 0 { buffer.append(0x2D) }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // up to 20 digits, written backwards
        var count = 0
        withUnsafeMutableBytes(of: &digits) { bytes in
            repeat {
                bytes[23 - count] = UInt8(truncatingIfNeeded: magnitude % 10) + 0x30
                magnitude /= 10
                count += 1
            } while magnitude != 0
            buffer.append(contentsOf: bytes[(24 - count)...])
        }
    }

    /// `JSONEncoder`'s form: the shortest round-tripping `description`, with a trailing `.0` dropped.
    mutating func double(_ value: Double) {
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        raw(text)
    }

    /// A JSON string with `JSONEncoder`'s escapes (slashes left alone: `.withoutEscapingSlashes`).
    mutating func string(_ text: String) {
        buffer.append(0x22)
        for byte in text.utf8 {
            switch byte {
            case 0x22: buffer.append(contentsOf: [0x5C, 0x22])
            case 0x5C: buffer.append(contentsOf: [0x5C, 0x5C])
            case 0x08: buffer.append(contentsOf: [0x5C, 0x62])
            case 0x0C: buffer.append(contentsOf: [0x5C, 0x66])
            case 0x0A: buffer.append(contentsOf: [0x5C, 0x6E])
            case 0x0D: buffer.append(contentsOf: [0x5C, 0x72])
            case 0x09: buffer.append(contentsOf: [0x5C, 0x74])
            case 0..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                buffer.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 15)]])
            default: buffer.append(byte)
            }
        }
        buffer.append(0x22)
    }
}
