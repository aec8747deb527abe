import GifxKit

/// `--stats` of `convert`, `to-mp4` and `to-sprite`: one format, printed as one JSON object (sorted keys) and decoded
/// again by `batch` (`JobFacts`), whose report carries it as `stats`. Documented in `--stats`' help (docs/cli.md).
///
/// The run's figures, then one object per output (`OutputStats`: what its kind reports of itself). A command that
/// writes one output (`to-mp4`, `to-sprite`) also gives that output's figures at the top level, under the names
/// those commands have always used (its `frames` as `outputFrames`). A field that does not apply is absent.
struct ConversionStats: Codable {
    /// `convert`, `to-mp4` or `to-sprite`.
    var command: String
    /// The input's frames.
    var frames: Int
    /// Canvases decoded in all passes: `frames` when one decode fed every output.
    var decodedFrames: Int?
    var outputs: [OutputStats]
    var wallSeconds: Double
    var peakCacheBytes: Int
    var cacheCapacity: Int
    /// Decoding threads, decode-ahead window (frames) and its peak bytes.
    var decode: DecodeStats
    var peakRSSBytes: Int
    /// How the memory budget was shared, beside `peakRSSBytes`.
    var memory: MemoryPlan?

    // The one output's figures at the top level (to-mp4 and to-sprite), as its `OutputStats` gives them: its frames as
    // `outputFrames`, its size and duration, and its kind's own figures (`OutputKindStats.topLevel`).
    var outputFrames: Int?
    var width: Int?
    var height: Int?
    var durationSeconds: Double?
    var outputFigures: (any OutputKindStats)?

    /// The figures of `report` for `command`; `liftsOutput`: its one output's figures at the top level too.
    init(command: String, report: ConversionReport, seconds: Double, liftsOutput: Bool) {
        self.command = command
        frames = report.frames
        decodedFrames = report.decodedCanvases
        outputs = report.outputs.map { OutputStats($0, wording: CommandLineStatsWording()) }
        wallSeconds = (seconds * 1000).rounded() / 1000
        peakCacheBytes = report.peakCacheBytes
        cacheCapacity = report.cacheCapacity
        decode = report.decode
        peakRSSBytes = peakResidentBytes()
        memory = report.memory
        if liftsOutput, outputs.count == 1 { lift(outputs[0]) }
        // convert's outputs each say their own; the run's figure is one play of the schedule (batch's `duration`).
        if durationSeconds == nil { durationSeconds = report.playDuration.seconds }
    }

    /// Copies an output's own figures to the top level.
    private mutating func lift(_ output: OutputStats) {
        outputFrames = output.frames
        width = output.width
        height = output.height
        durationSeconds = output.durationSeconds
        outputFigures = output.figures?.topLevel
    }

    private enum CodingKeys: String, CodingKey {
        case command, frames, decodedFrames, outputs, wallSeconds, peakCacheBytes, cacheCapacity, decode, peakRSSBytes
        case memory, outputFrames, width, height, durationSeconds
    }

    /// Decoded by `batch`: the lifted figures are there when `outputFrames` is (the one output's kind decodes them).
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        command = try container.decode(String.self, forKey: .command)
        frames = try container.decode(Int.self, forKey: .frames)
        decodedFrames = try container.decodeIfPresent(Int.self, forKey: .decodedFrames)
        outputs = try container.decode([OutputStats].self, forKey: .outputs)
        wallSeconds = try container.decode(Double.self, forKey: .wallSeconds)
        peakCacheBytes = try container.decode(Int.self, forKey: .peakCacheBytes)
        cacheCapacity = try container.decode(Int.self, forKey: .cacheCapacity)
        decode = try container.decode(DecodeStats.self, forKey: .decode)
        peakRSSBytes = try container.decode(Int.self, forKey: .peakRSSBytes)
        memory = try container.decodeIfPresent(MemoryPlan.self, forKey: .memory)
        outputFrames = try container.decodeIfPresent(Int.self, forKey: .outputFrames)
        width = try container.decodeIfPresent(Int.self, forKey: .width)
        height = try container.decodeIfPresent(Int.self, forKey: .height)
        durationSeconds = try container.decodeIfPresent(Double.self, forKey: .durationSeconds)
        if outputFrames != nil, outputs.count == 1 {
            outputFigures = try OutputKind.stats(named: outputs[0].kind)?.init(from: decoder)
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(command, forKey: .command)
        try container.encode(frames, forKey: .frames)
        try container.encodeIfPresent(decodedFrames, forKey: .decodedFrames)
        try container.encode(outputs, forKey: .outputs)
        try container.encode(wallSeconds, forKey: .wallSeconds)
        try container.encode(peakCacheBytes, forKey: .peakCacheBytes)
        try container.encode(cacheCapacity, forKey: .cacheCapacity)
        try container.encode(decode, forKey: .decode)
        try container.encode(peakRSSBytes, forKey: .peakRSSBytes)
        try container.encodeIfPresent(memory, forKey: .memory)
        try container.encodeIfPresent(outputFrames, forKey: .outputFrames)
        try container.encodeIfPresent(width, forKey: .width)
        try container.encodeIfPresent(height, forKey: .height)
        try container.encodeIfPresent(durationSeconds, forKey: .durationSeconds)
        try outputFigures?.encode(to: encoder)
    }
}
