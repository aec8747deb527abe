import GifxSystem

extension BatchTarget {
    /// Conversions at once (`ThreadCounts.batchJobs`): the `--jobs` asked for (default: the cores), never more
    /// than the inputs to convert.
    static func runningJobs(requested: Int?, toConvert: Int, threads: ThreadCounts = .machine) -> Int {
        threads.batchJobs(requested: requested, inputs: toConvert)
    }

    /// Each conversion's threads: the cores divided among the `jobs` running at once (`ThreadCounts.threadsPerJob`).
    /// None for `timeline` (it decodes no pixels) or when the options after `--` already say `--threads`.
    func threadsPerJob(jobs: Int, passthrough: [String], threads: ThreadCounts = .machine) -> Int? {
        guard command != .timeline, !passthrough.contains(where: { $0 == "--threads" || $0.hasPrefix("--threads=") })
        else { return nil }
        return threads.threadsPerJob(jobs: jobs)
    }

    /// `threadsPerJob` as the option that says it (`--threads N`), or nothing.
    func threadArguments(jobs: Int, passthrough: [String], threads: ThreadCounts = .machine) -> [String] {
        threadsPerJob(jobs: jobs, passthrough: passthrough, threads: threads).map { ["--threads", String($0)] } ?? []
    }
}
