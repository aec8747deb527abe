import Foundation
import GifxEncoders
import GifxFrames

/// Everything `gifx serve` is started with (docs/serve.md). The CLI fills it from flags; the tests build it
/// directly (port 0: an ephemeral port, reported by `GifxService.run(onListening:)`).
public struct ServerConfiguration: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    /// The content-addressed cache: outputs, their descriptions, and the request spool (`spool/`). Nothing
    /// a request names reaches the file system outside it.
    public var cacheDirectory: String
    /// The cache's size cap in bytes (least recently used outputs go first).
    public var cacheSizeBytes = 1 << 30
    /// The one memory budget every conversion's share comes out of; `nil`: the cgroup's limit, else half of
    /// MemAvailable (`ProcessMemoryBudget`).
    public var memoryBudget: Int?
    /// Threads of the whole service; `nil`: the cores this process may use (`AvailableCores`).
    public var threads: Int?
    /// Conversions running at once; `nil`: one per two threads, at least one.
    public var jobs: Int?
    /// Requests that may wait for memory; more get 503.
    public var queueLength = 16
    /// How long a request waits in the queue before a 503.
    public var queueTimeout: Duration = .seconds(30)
    /// The largest request body (a GIF) accepted; more gets 413.
    public var maxBodyBytes = 64 << 20
    /// After SIGTERM: how long in-flight conversions may take to finish before they are cancelled.
    public var gracePeriod: Duration = .seconds(30)
    /// The version that is part of every cache key (a new gifx never serves an old gifx's outputs).
    public var version: String

    public init(cacheDirectory: String, version: String) {
        self.cacheDirectory = cacheDirectory
        self.version = version
    }

    /// The budget in bytes: given, or read from the cgroup or MemAvailable; 1 GiB when nothing can be read.
    public var resolvedMemoryBudget: Int {
        ProcessMemoryBudget.resolve(given: memoryBudget).bytes ?? (1 << 30)
    }

    public var resolvedThreads: Int { max(1, threads ?? CacheCapacity.availableCores) }

    public var resolvedJobs: Int { max(1, jobs ?? resolvedThreads / 2) }

    /// Each conversion's threads: the service's threads shared among its jobs, at least one.
    public var threadsPerJob: Int { max(1, resolvedThreads / resolvedJobs) }

    /// A problem with the settings, worded for the command line's flags; `nil` when they are usable.
    public var problem: String? {
        if let memoryBudget, memoryBudget < 1 { return "--memory-budget must be at least 1 byte" }
        if let threads, !RunSettings.threadRange.contains(threads) { return "--threads must be \(RunSettings.threadRange)" }
        if let jobs, jobs < 1 { return "--jobs must be at least 1" }
        if queueLength < 0 { return "--queue must be 0 or more" }
        if cacheSizeBytes < 1 { return "--cache-size must be at least 1 byte" }
        if maxBodyBytes < 1 { return "--max-body must be at least 1 byte" }
        if !(0...65535).contains(port) { return "--port must be 0...65535" }
        return nil
    }
}
