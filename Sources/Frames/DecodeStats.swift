/// How a stream decoded, for the caller's statistics: the threads, the decode-ahead window, and what the window held.
public struct DecodeStats: Codable, Hashable, Sendable {
    /// Threads decoding, the compositing thread included (1: the sequential decoder).
    public var threads: Int
    /// Frames decoded ahead of the compositor at most (0 when sequential).
    public var window: Int
    /// Most bytes the window's index buffers held at once.
    public var peakWindowBytes: Int

    public init(threads: Int, window: Int, peakWindowBytes: Int) {
        self.threads = threads; self.window = window; self.peakWindowBytes = peakWindowBytes
    }

    /// Both streams' settings, the larger peak (a conversion that decodes the GIF more than once).
    public func merged(with other: DecodeStats) -> DecodeStats {
        DecodeStats(
            threads: Swift.max(threads, other.threads), window: Swift.max(window, other.window),
            peakWindowBytes: Swift.max(peakWindowBytes, other.peakWindowBytes))
    }
}
