import GifxKit
import Foundation
import GifxSystem

/// Everything `gifx serve` is started with (docs/serve.md). The CLI fills it from flags; the tests build it
/// directly (port 0: an ephemeral port, reported by `GifxService.run(onListening:)`).
package struct ServerConfiguration: Sendable {
    package var host = "127.0.0.1"
    package var port = 8080
    /// The content-addressed cache: outputs, their descriptions, and the request spool (`spool/`). Nothing
    /// a request names reaches the file system outside it.
    package var cacheDirectory: String
    /// The cache's size cap in bytes (least recently used outputs go first).
    package var cacheSizeBytes = 1 << 30
    /// The one memory budget every conversion's share comes out of; `nil`: the cgroup's limit, else half of
    /// MemAvailable (`ProcessMemoryBudget`).
    package var memoryBudget: Int?
    /// Threads of the whole service; `nil`: the cores this process may use (`AvailableCores`).
    package var threads: Int?
    /// Conversions running at once; `nil`: one per thread. Each conversion's threads are granted by demand
    /// when it is admitted (`Admission`): every thread for a lone request, one each under load.
    package var jobs: Int?
    /// Requests that may wait for memory; more get 503.
    package var queueLength = 16
    /// How long a request waits in the queue before a 503.
    package var queueTimeout: Duration = .seconds(30)
    /// The largest request body (a GIF) accepted; more gets 413.
    package var maxBodyBytes = 64 << 20
    /// After SIGTERM: how long in-flight conversions may take to finish before they are cancelled.
    package var gracePeriod: Duration = .seconds(30)
    /// How long reading a request's body may take in all (a client trickling bytes gets 408).
    package var readTimeout: Duration = .seconds(60)
    /// A connection with no bytes either way for this long is closed (slow or vanished clients).
    package var idleTimeout: Duration = .seconds(30)
    /// How long one conversion may run; then it is cancelled (its temporaries removed) and the request gets
    /// 503 `conversion_timeout`.
    package var conversionTimeout: Duration = .seconds(120)
    /// How log lines are written to standard error: `text` (swift-log's default) or `json` (one object a line).
    package var logFormat: LogFormat = .text
    /// When set, every `/v1` route but the signed form needs `Authorization: Bearer` this token (401
    /// `unauthorized` otherwise); `/healthz`, `/readyz` and `/metrics` stay open. From `--token-file` or
    /// `GIFX_SERVE_TOKEN`, never from a flag's value.
    package var bearerToken: String?
    /// The HMAC-SHA256 key of signed URLs (`GET /v1/{signature}/{options}/{source}`); `nil`: that form is off.
    package var signingKey: [UInt8]?
    /// The origins a signed URL's source may come from (`--origin`), and its redirects go to.
    package var origins: [AllowedOrigin] = []
    /// Connecting to an origin, and each read from it, may take this long; the whole fetch twice that (a
    /// trickling origin). Past it: 504 `origin_timeout`.
    package var originTimeout: Duration = .seconds(10)
    /// Redirects followed per fetch (each to an allowed origin).
    package var maxRedirects = 5
    /// The version that is part of every cache key (a new gifx never serves an old gifx's outputs).
    package var version: String
    /// `--workers`: each conversion runs in a long-lived `gifx` worker process (`ServeWorkers`), so a crash,
    /// the OOM killer or a hang costs one request; off: conversions run in this process.
    package var workers = false
    /// The `gifx` binary the workers run (the service's own); tests give the built binary.
    package var workerExecutable = "/proc/self/exe"
    /// Added to the service's environment for each worker (tests: `GIFX_TEST_CRASH`).
    package var workerEnvironment: [String: String] = [:]
    /// `--playground`: GET /playground serves the playground page (`PlaygroundPage`); off, it is 404.
    package var playground = false

    package init(cacheDirectory: String, version: String) {
        self.cacheDirectory = cacheDirectory
        self.version = version
    }

    /// The budget in bytes: given, or read from the cgroup or MemAvailable; 1 GiB when nothing can be read.
    package var resolvedMemoryBudget: Int {
        ProcessMemoryBudget.resolve(given: memoryBudget).bytes ?? (1 << 30)
    }

    package var resolvedThreads: Int { ThreadCounts.machine.service(requested: threads, limit: RunSettings.threadRange.upperBound) }

    package var resolvedJobs: Int { max(1, jobs ?? resolvedThreads) }

    /// A problem with the settings, worded for the command line's flags; `nil` when they are usable.
    package var problem: String? {
        if let memoryBudget, memoryBudget < 1 { return "--memory-budget must be at least 1 byte" }
        if let threads, !RunSettings.threadRange.contains(threads) { return "--threads must be \(RunSettings.threadRange)" }
        if let jobs, jobs < 1 { return "--jobs must be at least 1" }
        if queueLength < 0 { return "--queue must be 0 or more" }
        if cacheSizeBytes < 1 { return "--cache-size must be at least 1 byte" }
        if maxBodyBytes < 1 { return "--max-body must be at least 1 byte" }
        if !(0...65535).contains(port) { return "--port must be 0...65535" }
        if let bearerToken, bearerToken.isEmpty || bearerToken.contains(where: { $0.isWhitespace || !$0.isASCII }) {
            return "the bearer token (--token-file or GIFX_SERVE_TOKEN) must be printable ASCII without spaces, and not empty"
        }
        if let signingKey, signingKey.count < 32 { return "the signing key (--signing-key-file) must be at least 32 bytes" }
        if !origins.isEmpty && signingKey == nil { return "--origin is for signed URLs: give --signing-key-file too" }
        if signingKey != nil && origins.isEmpty { return "signed URLs fetch only from listed origins: give at least one --origin" }
        for (name, value) in [("--read-timeout", readTimeout), ("--idle-timeout", idleTimeout), ("--conversion-timeout", conversionTimeout),
                              ("--origin-timeout", originTimeout)]
        where value <= .zero {
            return "\(name) must be more than 0 seconds"
        }
        return nil
    }
}

/// How `gifx serve` writes its log lines.
package enum LogFormat: String, Sendable, CaseIterable {
    case text, json
}
