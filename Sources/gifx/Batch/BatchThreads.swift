import GifxFrames

extension BatchTarget {
    /// Conversions at once: the `--jobs` asked for (default: the cores), but never more than the inputs
    /// there are to convert (at least one), so the cores and the memory budget that jobs without an input
    /// would have had go to the jobs that run: 4 inputs on 16 cores run as 4 jobs of 4 threads each.
    static func runningJobs(requested: Int?, toConvert: Int, cores: Int = CacheCapacity.availableCores) -> Int {
        Swift.max(1, Swift.min(requested ?? cores, toConvert))
    }

    /// `--threads` for every child: the cores divided among the `jobs` running at once (at least one each),
    /// so a batch does not oversubscribe the machine. Nothing for `timeline` (it decodes no pixels) or when
    /// the options after `--` already say `--threads`.
    func threadArguments(jobs: Int, passthrough: [String], cores: Int = CacheCapacity.availableCores) -> [String] {
        guard command != .timeline, !passthrough.contains(where: { $0 == "--threads" || $0.hasPrefix("--threads=") })
        else { return [] }
        return ["--threads", String(Swift.max(1, cores / Swift.max(1, jobs)))]
    }
}
