import Foundation
import GifxTimeline

/// Micro-benchmark: `Timeline` on a 100,000-frame GIF's metadata (resolve, resample, JSON).
/// Prints one JSON object; the harness copies it into docs/benchmarks.md. The JSON is timed both ways in
/// the same run: `JSONEncoder` (what `timeline --json` used before issue 17) and the streaming
/// `TimelineJSONWriter` it uses now, with the command's options, and the two outputs must be identical.

let frameCount = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 100_000
let repetitions = 7
// Delays cycle through every rule: raw, rounded-up (0/1 cs), carried (no GCE).
let rawDelays: [Int?] = [0, 1, 2, 3, 7, nil, 4, 10]
let input = TimelineInput(
    canvas: CanvasSize(width: 480, height: 270), loopCount: 0,
    frames: (0..<frameCount).map { i in
        FrameDescriptor(rawDelay: rawDelays[i % rawDelays.count], rect: PixelRect(x: 0, y: 0, width: 480, height: 270))
    })

func measure(_ body: () throws -> Void) rethrows -> [String: Double] {
    let clock = ContinuousClock()
    var samples: [Double] = []
    for _ in 0..<repetitions {
        let elapsed = try clock.measure(body)
        samples.append(Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15)
    }
    samples.sort()
    return ["median_ms": samples[samples.count / 2], "min_ms": samples.first!, "max_ms": samples.last!]
}

var timeline = Timeline(input)
var sink = 0
let resolve = measure { timeline = Timeline(input); sink &+= timeline.frames.count }
let repeatsAtTick = measure { sink &+= timeline.repeatCounts(at: timeline.tickRate).count }
let repeatsAt30 = measure { sink &+= timeline.repeatCounts(at: Rational(30)).count }
let encoder = JSONEncoder()
encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]  // as `gifx timeline --json`
var encoded = Data()
let json = try measure { encoded = try encoder.encode(timeline) }
// The writer's sink appends to one reused buffer, as the command's sink hands chunks to write(2).
var streamed: [UInt8] = []
streamed.reserveCapacity(encoded.count)
let writer = TimelineJSONWriter(timeline)
let jsonStreamed = try measure {
    streamed.removeAll(keepingCapacity: true)
    try writer.write { streamed.append(contentsOf: $0) }
}
guard streamed.elementsEqual(encoded) else {
    FileHandle.standardError.write(Data("TimelineJSONWriter and JSONEncoder disagree\n".utf8))
    exit(1)
}
let jsonBytes = encoded.count

let result: [String: Any] = [
    "frames": frameCount, "repetitions": repetitions, "output_frames_at_tick": timeline.outputFrameCount(at: timeline.tickRate),
    "json_bytes": jsonBytes, "sink": sink,
    "resolve": resolve, "repeatCounts_at_tick": repeatsAtTick, "repeatCounts_at_30fps": repeatsAt30, "json_encode": json,
    "json_stream": jsonStreamed,
]
let data = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
print(String(decoding: data, as: UTF8.self))
