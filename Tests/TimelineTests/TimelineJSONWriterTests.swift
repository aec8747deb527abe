import Foundation
import Testing
import GifxTimeline

/// `TimelineJSONWriter` against the oracle it replaces: `JSONEncoder` with the options `gifx timeline --json`
/// always used. Every case compares whole documents byte for byte.
@Suite struct TimelineJSONWriterTests {
    static func oracle<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    /// The writer's output, and the size of the largest piece the sink was given.
    static func written(_ writer: TimelineJSONWriter) throws -> (bytes: [UInt8], pieces: Int, largest: Int) {
        var bytes: [UInt8] = []
        var pieces = 0, largest = 0
        try writer.write { piece in
            bytes.append(contentsOf: piece)
            pieces += 1
            largest = max(largest, piece.count)
        }
        return (bytes, pieces, largest)
    }

    static func expectIdentical(_ timeline: Timeline, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let expected = try oracle(timeline)
        let actual = try written(TimelineJSONWriter(timeline)).bytes
        #expect(
            actual == expected,
            "writer:\n\(String(decoding: actual, as: UTF8.self))\nJSONEncoder:\n\(String(decoding: expected, as: UTF8.self))",
            sourceLocation: sourceLocation)
    }

    @Test func everyFieldUnderBothPolicies() throws {
        for policy in TimelinePolicy.allCases {
            try Self.expectIdentical(Timeline(TimelineJSONTests.source, policy: policy))
            var looped = TimelineJSONTests.source
            looped.loopCount = 65535
            try Self.expectIdentical(Timeline(looped, policy: policy))
        }
    }

    @Test func noFramesAndNoWarningsAreEmptyArrays() throws {
        try Self.expectIdentical(Timeline(TimelineInput(canvas: CanvasSize(width: 1, height: 1), loopCount: 0, frames: [])))
    }

    @Test func warningStringsAreEscapedLikeJSONEncoder() throws {
        let controls = String((0..<32).map { Character(Unicode.Scalar(UInt8($0))) })
        var source = TimelineJSONTests.source
        source.warnings = [
            "quote \" backslash \\ slash / path a/b", controls, "tab\there", "del \u{7F} é ✓ 𝄞 \u{2028}", "",
        ]
        try Self.expectIdentical(Timeline(source))
    }

    /// `seconds` is a Double: every duration from 0 to 20.00 s, and some long ones, print as JSONEncoder prints them.
    @Test func secondsFormatMatchesForManyDurations() throws {
        var delays = Array(2...2000) + [65535, 12345, 99999 % 65536]
        delays += [1, 0]  // rounded up to 10
        for delay in delays {
            try Self.expectIdentical(Timeline(input([delay])))
        }
        // Durations of up to 3.2e9 s (frames of 65535 cs) and odd multiples.
        try Self.expectIdentical(Timeline(input(Array(repeating: 65535, count: 5000) + [3, 7])))
    }

    @Test func extraTopLevelMembersGoWhereSortedKeysPutsThem() throws {
        struct Plan: Encodable {
            var mode = "cfr"
            var fps = Rational(30)
            var counts = [1, 2, 0]
            var note: String? = nil
            var nested = ["b": [String](), "a": ["x/y"]]
        }
        struct WithExtras: Encodable {
            var timeline: Timeline
            var plan: Plan
            enum Keys: String, CodingKey { case plan, aaa, zzz }
            func encode(to encoder: any Encoder) throws {
                try timeline.encode(to: encoder)
                var c = encoder.container(keyedBy: Keys.self)
                try c.encode(plan, forKey: .plan)
                try c.encode(1, forKey: .aaa)
                try c.encode([Int](), forKey: .zzz)
            }
        }
        let timeline = Timeline(TimelineJSONTests.source)
        let plan = Plan()
        let expected = try Self.oracle(WithExtras(timeline: timeline, plan: plan))
        let fragment = { (value: any Encodable) in String(decoding: try Self.oracle(value), as: UTF8.self) }
        let writer = TimelineJSONWriter(
            timeline,
            extraMembers: [("plan", try fragment(plan)), ("zzz", try fragment([Int]())), ("aaa", try fragment(1))])
        let actual = try Self.written(writer).bytes
        #expect(actual == expected, "\(String(decoding: actual, as: UTF8.self))\n---\n\(String(decoding: expected, as: UTF8.self))")
    }

    /// Small pieces give the same bytes; no piece is much larger than the chunk size (one frame may overrun it).
    @Test func outputComesInBoundedPieces() throws {
        let timeline = Timeline(input((0..<3000).map { 2 + $0 % 50 }))
        let expected = try Self.oracle(timeline)
        for chunk in [1, 7, 4096, 1 << 16] {
            let run = try Self.written(TimelineJSONWriter(timeline, chunkSize: chunk))
            #expect(run.bytes == expected, "chunk \(chunk)")
            #expect(run.largest < chunk + 1024, "chunk \(chunk): a piece of \(run.largest) bytes")
            #expect(run.pieces >= expected.count / (chunk + 1024), "chunk \(chunk)")
        }
    }

    @Test func sinkErrorsStopTheWriter() throws {
        struct Full: Error {}
        var calls = 0
        #expect(throws: Full.self) {
            try TimelineJSONWriter(Timeline(input(Array(repeating: 5, count: 1000))), chunkSize: 100).write { _ in
                calls += 1
                throw Full()
            }
        }
        #expect(calls == 1)
    }
}
