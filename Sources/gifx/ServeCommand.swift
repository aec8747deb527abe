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
    @Option(help: ArgumentHelp("Conversions at once (default: one per thread); each gets the threads of its share of the requests in the service.", valueName: "n"))
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
    @Option(help: ArgumentHelp(
        "A file holding the bearer token every /v1 route but the signed form then needs (else the environment's GIFX_SERVE_TOKEN).",
        valueName: "path"))
    var tokenFile: String?
    @Option(help: ArgumentHelp(
        "A file holding the HMAC-SHA256 key (at least 32 bytes) of signed URLs: GET /v1/SIGNATURE/OPTIONS/SOURCE.",
        valueName: "path"))
    var signingKeyFile: String?
    @Option(help: ArgumentHelp(
        "An origin signed URLs may fetch from, and redirect to: http(s)://host[:port] (repeatable).", valueName: "origin"))
    var origin: [String] = []
    @Option(help: ArgumentHelp("Seconds a signed URL's whole fetch may take (connect, redirects, body); then 504.", valueName: "seconds"))
    var originTimeout = 10
    @Flag(inversion: .prefixedNo, help: ArgumentHelp(
        "Convert in worker processes (the default): a crash, the OOM killer or a hang costs one request (500 conversion_crashed), never the service; --no-workers converts in this process."))
    var workers = true
    @Flag(help: ArgumentHelp(
        "Serve the playground page at /playground: drop an input, see its outputs play with their bytes and times, its timeline drawn and its embed code."))
    var playground = false

    var serverConfiguration: ServerConfiguration {
        var configuration = ServerConfiguration(cacheDirectory: cacheDir, version: VersionText.short)
        configuration.host = host
        configuration.port = port
        configuration.cacheSizeBytes = cacheSize.bytes
        configuration.memoryBudget = memoryBudget?.bytes
        configuration.threads = threads
        configuration.jobs = jobs
        configuration.workers = workers
        configuration.playground = playground
        configuration.queueLength = queue
        configuration.queueTimeout = .seconds(queueTimeout)
        configuration.maxBodyBytes = maxBody.bytes
        configuration.gracePeriod = .seconds(grace)
        configuration.readTimeout = .seconds(readTimeout)
        configuration.idleTimeout = .seconds(idleTimeout)
        configuration.conversionTimeout = .seconds(conversionTimeout)
        configuration.logFormat = logFormat
        configuration.originTimeout = .seconds(originTimeout)
        configuration.origins = origin.compactMap(AllowedOrigin.init)
        return configuration
    }

    /// A secret file's contents without the trailing line break (`echo TOKEN > file`).
    static func secret(_ path: String, flag: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else { throw ValidationError("\(flag) \(path): cannot read the file") }
        var bytes = Array(data)
        while let last = bytes.last, last == 0x0A || last == 0x0D { bytes.removeLast() }
        return bytes
    }

    /// The configuration with its secrets, read from their files (or the environment) at start.
    func configurationWithSecrets() throws -> ServerConfiguration {
        var configuration = serverConfiguration
        if let tokenFile {
            configuration.bearerToken = String(decoding: try Self.secret(tokenFile, flag: "--token-file"), as: UTF8.self)
        } else if let token = ProcessInfo.processInfo.environment["GIFX_SERVE_TOKEN"] {
            configuration.bearerToken = token
        }
        if let signingKeyFile { configuration.signingKey = try Self.secret(signingKeyFile, flag: "--signing-key-file") }
        return configuration
    }

    func validate() throws {
        if let bad = origin.first(where: { AllowedOrigin($0) == nil }) {
            throw ValidationError("--origin \(bad): give http(s)://host[:port], nothing after the port")
        }
        if originTimeout < 1 { throw ValidationError("--origin-timeout must be at least 1 second") }
        if let problem = try configurationWithSecrets().problem { throw ValidationError(problem) }
        if queueTimeout < 1 { throw ValidationError("--queue-timeout must be at least 1 second") }
        if grace < 0 { throw ValidationError("--grace must be 0 or more") }
    }

    func run() throws {
        let configuration = try configurationWithSecrets()
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
