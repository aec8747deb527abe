import GifxSystem

extension BatchTarget {
    /// Conversions at once (`ThreadCounts.batchJobs`): the `--jobs` asked for (default: the cores), never more
    /// than the inputs to convert.
    static func runningJobs(requested: Int?, toConvert: Int, threads: ThreadCounts = .machine) -> Int {
        threads.batchJobs(requested: requested, inputs: toConvert)
    }

    /// `--threads` for every child: the cores divided among the `jobs` running at once (`ThreadCounts.threadsPerJob`).
    /// Nothing for `timeline` (it decodes no pixels) or when the options after `--` already say `--threads`.
    func threadArguments(jobs: Int, passthrough: [String], threads: ThreadCounts = .machine) -> [String] {
        guard command != .timeline, !passthrough.contains(where: { $0 == "--threads" || $0.hasPrefix("--threads=") })
        else { return [] }
        return ["--threads", String(threads.threadsPerJob(jobs: jobs))]
    }
}
