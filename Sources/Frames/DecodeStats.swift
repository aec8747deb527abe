/// How a stream decoded, for the caller's statistics: the threads, the decode-ahead window, what the window
/// held, and (for the parallel decoder) where the threads' time went, from which the serial fraction follows.
public struct DecodeStats: Codable, Hashable, Sendable {
    /// Threads decoding, the compositing thread included (1: the sequential decoder).
    public var threads: Int
    /// Frames decoded ahead of the compositor at most (0 when sequential).
    public var window: Int
    /// Most bytes the window's index buffers held at once.
    public var peakWindowBytes: Int
    /// Horizontal bands each canvas is composited in, each by any thread (1 when sequential).
    public var bands: Int
    /// Seconds the threads spent compositing (all bands together) and decoding LZW data; 0 when sequential.
    public var compositeSeconds: Double
    public var lzwSeconds: Double
    /// Seconds the busiest band spent compositing: the stage no number of threads can shorten, since a band
    /// draws the frames one after another.
    public var longestBandSeconds: Double
    /// The parallel decoder's wall time, from opening the file to its last frame.
    public var wallSeconds: Double

    public init(
        threads: Int, window: Int, peakWindowBytes: Int, bands: Int = 1, compositeSeconds: Double = 0,
        lzwSeconds: Double = 0, longestBandSeconds: Double = 0, wallSeconds: Double = 0
    ) {
        self.threads = threads; self.window = window; self.peakWindowBytes = peakWindowBytes; self.bands = bands
        self.compositeSeconds = compositeSeconds; self.lzwSeconds = lzwSeconds
        self.longestBandSeconds = longestBandSeconds; self.wallSeconds = wallSeconds
    }

    /// The busiest band's share of all the decoding work (Amdahl's serial fraction s: no number of threads
    /// decodes faster than 1/s times one thread); 1 for the sequential decoder, whose work is all one chain.
    /// Measured on any machine, it predicts the scaling on a bigger one: speed-up ≤ 1 / (s + (1 − s) / n).
    public var serialFraction: Double {
        let busy = compositeSeconds + lzwSeconds
        return busy > 0 ? Swift.min(1, longestBandSeconds / busy) : 1
    }

    /// Both streams' settings, the larger peak (a conversion that decodes the GIF more than once).
    public func merged(with other: DecodeStats) -> DecodeStats {
        var merged = threads >= other.threads ? self : other
        merged.window = Swift.max(window, other.window)
        merged.peakWindowBytes = Swift.max(peakWindowBytes, other.peakWindowBytes)
        return merged
    }

    private enum CodingKeys: String, CodingKey {
        case threads, window, peakWindowBytes, bands, compositeSeconds, lzwSeconds, longestBandSeconds,
            wallSeconds, serialFraction
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(threads, forKey: .threads)
        try container.encode(window, forKey: .window)
        try container.encode(peakWindowBytes, forKey: .peakWindowBytes)
        try container.encode(bands, forKey: .bands)
        try container.encode(compositeSeconds, forKey: .compositeSeconds)
        try container.encode(lzwSeconds, forKey: .lzwSeconds)
        try container.encode(longestBandSeconds, forKey: .longestBandSeconds)
        try container.encode(wallSeconds, forKey: .wallSeconds)
        try container.encode(serialFraction, forKey: .serialFraction)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            threads: try container.decode(Int.self, forKey: .threads),
            window: try container.decode(Int.self, forKey: .window),
            peakWindowBytes: try container.decode(Int.self, forKey: .peakWindowBytes),
            bands: try container.decodeIfPresent(Int.self, forKey: .bands) ?? 1,
            compositeSeconds: try container.decodeIfPresent(Double.self, forKey: .compositeSeconds) ?? 0,
            lzwSeconds: try container.decodeIfPresent(Double.self, forKey: .lzwSeconds) ?? 0,
            longestBandSeconds: try container.decodeIfPresent(Double.self, forKey: .longestBandSeconds) ?? 0,
            wallSeconds: try container.decodeIfPresent(Double.self, forKey: .wallSeconds) ?? 0)
    }
}
