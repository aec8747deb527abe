import ArgumentParser
import Foundation
import GifxServer
import Logging

/// `gifx serve`: the conversion as an HTTP service (docs/serve.md).
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve conversions over HTTP: POST /v1/convert?format=mp4 with the GIF as the body (docs/serve.md).",
        discussion: """
            Outputs are kept in a content-addressed cache (--cache-dir) and served again from GET /v1/o/KEY. \
            Each conversion is admitted by the memory plan: it runs when its smallest budget (from the GIF's \
            header) is free within --memory-budget, else it waits in a bounded queue (--queue, --queue-timeout); \
            a full queue or a passed deadline answers 503, a conversion larger than the whole budget 413. \
            SIGTERM drains: no new work, in-flight conversions finish within --grace, the rest are cancelled.
            """)

    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on (0: any free port, printed at start).") var port = 8080
    @Option(help: ArgumentHelp("The cache folder (created if missing).", valueName: "dir"))
    var cacheDir: String
    @Option(help: ArgumentHelp("The cache's size cap, e.g. 10G; least recently used outputs go first.", valueName: "size"))
    var cacheSize = ByteCount(bytes: 1 << 30)
    @Option(help: ArgumentHelp(
        "Memory all conversions together may hold, e.g. 2G (default: the cgroup's limit, else half of the available memory).",
        valueName: "size"))
    var memoryBudget: ByteCount?
    @Option(help: ArgumentHelp("Threads of the whole service (default: the cores this process may use).", valueName: "n"))
    var threads: Int?
    @Option(help: ArgumentHelp("Conversions at once (default: one per two threads).", valueName: "n"))
    var jobs: Int?
    @Option(help: ArgumentHelp("Requests that may wait for memory; more get 503.", valueName: "n"))
    var queue = 16
    @Option(help: ArgumentHelp("Seconds a request may wait in the queue before a 503.", valueName: "seconds"))
    var queueTimeout = 30
    @Option(help: ArgumentHelp("The largest GIF accepted, e.g. 64M; more gets 413.", valueName: "size"))
    var maxBody = ByteCount(bytes: 64 << 20)
    @Option(help: ArgumentHelp("Seconds in-flight conversions get to finish after SIGTERM.", valueName: "seconds"))
    var grace = 30
    @Option(help: ArgumentHelp("Seconds a request's body may take to arrive; then 408.", valueName: "seconds"))
    var readTimeout = 60
    @Option(help: ArgumentHelp("Seconds a connection may stay silent before it is closed.", valueName: "seconds"))
    var idleTimeout = 30
    @Option(help: ArgumentHelp("Seconds one conversion may run; then it is stopped and the request gets 503.", valueName: "seconds"))
    var conversionTimeout = 120
    @Option(help: ArgumentHelp("Log lines on standard error as text or as JSON objects (one a line).", valueName: "format"))
    var logFormat = LogFormat.text

    var serverConfiguration: ServerConfiguration {
        var configuration = ServerConfiguration(cacheDirectory: cacheDir, version: VersionText.short)
        configuration.host = host
        configuration.port = port
        configuration.cacheSizeBytes = cacheSize.bytes
        configuration.memoryBudget = memoryBudget?.bytes
        configuration.threads = threads
        configuration.jobs = jobs
        configuration.queueLength = queue
        configuration.queueTimeout = .seconds(queueTimeout)
        configuration.maxBodyBytes = maxBody.bytes
        configuration.gracePeriod = .seconds(grace)
        configuration.readTimeout = .seconds(readTimeout)
        configuration.idleTimeout = .seconds(idleTimeout)
        configuration.conversionTimeout = .seconds(conversionTimeout)
        configuration.logFormat = logFormat
        return configuration
    }

    func validate() throws {
        if let problem = serverConfiguration.problem { throw ValidationError(problem) }
        if queueTimeout < 1 { throw ValidationError("--queue-timeout must be at least 1 second") }
        if grace < 0 { throw ValidationError("--grace must be 0 or more") }
    }

    func run() throws {
        let configuration = serverConfiguration
        if configuration.logFormat == .json {
            LoggingSystem.bootstrap { label in JSONLogHandler(label: label) }
        }
        let finished = DispatchSemaphore(value: 0)
        let outcome = ServeOutcome()
        Task.detached {
            do {
                let service = try GifxService(configuration: configuration)
                try await service.run { port in
                    FileHandle.standardOutput.write(Data("gifx serve: listening on http://\(configuration.host):\(port)\n".utf8))
                }
            } catch {
                outcome.error = error
            }
            finished.signal()
        }
        finished.wait()
        if let error = outcome.error { throw ServeFailed(description: "\(error)") }
    }
}

private final class ServeOutcome: @unchecked Sendable {
    var error: (any Error)?
}

struct ServeFailed: Error, CustomStringConvertible {
    var description: String
}

extension LogFormat: ExpressibleByArgument {}
