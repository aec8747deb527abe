import Foundation

/// Every thread count gifx decides for itself, in one place: each rule turns what was asked (`--threads`,
/// `--jobs`, a service's `--threads`; `nil` when nothing was) and the cores this process may use into a count.
/// The CLI, `batch` and the service resolve their run's threads through it once; the pools (decoder, encoders,
/// PNG deflate, read-back) read the resolved values from `RunSettings`. Only the rules that need the machine
/// live here: a pool's own split of a given count (the service's admission dividing its threads among the
/// requests in it) stays with that pool.
package struct ThreadCounts: Sendable, Equatable {
    /// The cores this process may use (`AvailableCores`: affinity mask, cgroup quota), at least 1.
    package var cores: Int
    /// The machine's online cores (what an encoder left to choose counts from, whatever the mask).
    package var onlineCores: Int

    package init(cores: Int, onlineCores: Int) {
        self.cores = Swift.max(1, cores)
        self.onlineCores = Swift.max(1, onlineCores)
    }

    /// This process's, read once (`AvailableCores.current`).
    package static let machine = ThreadCounts(
        cores: AvailableCores.current.count, onlineCores: ProcessInfo.processInfo.activeProcessorCount)

    /// A run's threads, of every pool: `requested`, else the cores.
    package func run(requested: Int?) -> Int { requested ?? cores }

    /// A video encoder's threads: `requested`, else 0 (the encoder's own choice, from the online cores) when the
    /// process may use every core, else the cores (an affinity mask or a quota the encoder would not see).
    package func encoder(requested: Int?) -> Int {
        if let requested { return requested }
        return cores >= onlineCores ? 0 : cores
    }

    /// What an encoder told 0 runs, for memory estimates: x264's 1.5 threads a online core (8-10 % faster than one
    /// a core on 2 cores, measured at 854×480).
    package var encoderOwnChoice: Int { (3 * onlineCores + 1) / 2 }

    /// A reader of an output's threads (`--verify`): `requested`, else 0 (libav's own choice).
    package func readBack(requested: Int?) -> Int { requested ?? 0 }

    /// Threads deflating a sprite sheet page: `requested`, else the run's threads, at most 4.
    package func pngDeflate(requested: Int?, runThreads: Int) -> Int { requested ?? Swift.min(4, runThreads) }

    /// `batch`'s conversions at once: the `--jobs` asked for (default: the cores), never more than the inputs to
    /// convert (at least one), so the cores and memory that jobs without an input would have had go to those that
    /// run: 4 inputs on 16 cores run as 4 jobs of 4 threads each.
    package func batchJobs(requested: Int?, inputs: Int) -> Int { Swift.max(1, Swift.min(requested ?? cores, inputs)) }

    /// `batch`'s threads for each of `jobs` children: the cores divided among them, at least one each, so a batch
    /// does not oversubscribe the machine.
    package func threadsPerJob(jobs: Int) -> Int { Swift.max(1, cores / Swift.max(1, jobs)) }

    /// The service's threads, shared by every conversion it runs: `requested`, else the cores, at most `limit`.
    package func service(requested: Int?, limit: Int) -> Int { Swift.max(1, requested ?? Swift.min(cores, limit)) }
}
