import GifxFrames

extension BatchTarget {
    /// `--threads` for every child: the cores divided among the `jobs` running at once (at least one each),
    /// so a batch does not oversubscribe the machine. Nothing for `timeline` (it decodes no pixels) or when
    /// the options after `--` already say `--threads`.
    func threadArguments(jobs: Int, passthrough: [String], cores: Int = CacheCapacity.availableCores) -> [String] {
        guard command != .timeline, !passthrough.contains(where: { $0 == "--threads" || $0.hasPrefix("--threads=") })
        else { return [] }
        return ["--threads", String(Swift.max(1, cores / Swift.max(1, jobs)))]
    }
}
