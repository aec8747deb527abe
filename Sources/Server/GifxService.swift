import Crypto
import Foundation
import GifxEncoders
import GifxKit
import GifxFrames
import GifxTimeline
import GifxPOSIXFiles
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import SystemPackage
import UnixSignals

#if canImport(Glibc)
import Glibc
#endif

/// `gifx serve`: the conversion as an HTTP service (docs/serve.md). One instance owns its cache folder,
/// its admission (one memory budget, a number of slots, a bounded queue) and its metrics.
package final class GifxService: Sendable {
    package let configuration: ServerConfiguration
    let logger: Logger
    let cache: ObjectCache
    let admission: Admission
    let flights = Flights()
    let metrics = ServiceMetrics()
    let credentials: Credentials
    let fetcher: SourceFetcher
    let converter: any Converting
    private let state = ServiceState()

    package init(
        configuration: ServerConfiguration, logger: Logger = Logger(label: "gifx.serve"),
        converter: any Converting = LibraryConverter()
    ) throws {
        if let problem = configuration.problem { throw ServiceError.badQuery(problem) }
        self.configuration = configuration
        self.logger = logger
        self.converter = converter
        cache = try ObjectCache(root: configuration.cacheDirectory, capacity: configuration.cacheSizeBytes)
        admission = Admission(
            budget: configuration.resolvedMemoryBudget, slots: configuration.resolvedJobs,
            threads: configuration.resolvedThreads, queueLength: configuration.queueLength, queueTimeout: configuration.queueTimeout)
        credentials = Credentials(token: configuration.bearerToken, signingKey: configuration.signingKey)
        fetcher = SourceFetcher(
            origins: Set(configuration.origins), maxBytes: configuration.maxBodyBytes,
            timeout: configuration.originTimeout, maxRedirects: configuration.maxRedirects)
    }

    /// Serves until graceful shutdown (`gracefulShutdownSignals`, or `shutdown()`): then it stops
    /// accepting, reports not ready, lets in-flight conversions finish within the grace period, and
    /// cancels what is left (a cancelled conversion removes its temporaries). `onListening` gets the port.
    package func run(
        gracefulShutdownSignals: [UnixSignal] = [.sigterm, .sigint],
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws {
        let app = Application(
            router: makeRouter(),
            server: .http1(configuration: .init(idleTimeout: TimeAmount(configuration.idleTimeout))),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "gifx"),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? 0) },
            logger: logger)
        var group = ServiceGroupConfiguration(
            services: [
                // First, so it is shut down last: streamed conversions whose clients have gone finish (or, past
                // the grace period, are cancelled) after the server has answered its last request.
                .init(service: StreamWatch(service: self), successTerminationBehavior: .ignore),
                .init(service: app),
                // Last, so it hears the shutdown first: readiness and admission turn away new work before the
                // server stops accepting.
                .init(service: DrainWatch(service: self), successTerminationBehavior: .ignore),
            ],
            gracefulShutdownSignals: gracefulShutdownSignals, logger: logger)
        group.maximumGracefulShutdownDuration = configuration.gracePeriod
        group.maximumCancellationDuration = Duration.seconds(10)
        let serviceGroup = ServiceGroup(configuration: group)
        state.setGroup(serviceGroup)
        try await serviceGroup.run()
    }

    /// Starts the graceful shutdown SIGTERM starts.
    package func shutdown() async {
        await state.group?.triggerGracefulShutdown()
    }

    func markDraining() async {
        state.draining = true
        await admission.drain()
        logger.info("draining: not ready, finishing in-flight conversions")
    }

    // MARK: Routes

    /// Every route and its method, as `makeRouter` registers them (packaging/openapi_check.py compares the two, and
    /// docs/openapi.yaml): a known path asked with another method is 405 with `Allow`.
    static let routes = RouteTable([
        (.post, "/v1/convert"), (.get, "/v1/o/:key"), (.get, "/v1/o/:key/json"), (.get, "/v1/:signature/:options/:source"),
        (.get, "/healthz"), (.get, "/readyz"), (.get, "/metrics"),
    ])

    func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: RequestLogMiddleware())
        router.add(middleware: ErrorMiddleware(service: self))
        router.add(middleware: ClientRequestIDCheck())
        // Every /v1 route but the signed form needs the bearer token when one is configured (the signed form's
        // signature is its credential: a CDN can fetch it without a header).
        router.post("/v1/convert") { request, context in
            try self.credentials.authorize(request.headers)
            return try await self.convert(request, context: context)
        }
        router.get("/v1/o/:key") { request, context in
            try self.credentials.authorize(request.headers)
            return try await self.object(request, key: context.parameters.get("key") ?? "", companion: false)
        }
        router.get("/v1/o/:key/json") { request, context in
            try self.credentials.authorize(request.headers)
            return try await self.object(request, key: context.parameters.get("key") ?? "", companion: true)
        }
        router.get("/v1/:signature/:options/:source") { request, context in try await self.signed(request, context: context) }
        router.get("/healthz") { _, _ in Self.text("ok\n") }
        router.get("/readyz") { _, _ in
            let queueFull = await self.admission.queueIsFull
            if self.state.draining || queueFull {
                throw ServiceError(
                    .serviceUnavailable, self.state.draining ? "draining" : "queue_full",
                    self.state.draining ? "the service is shutting down" : "the queue is full", retryAfter: 1)
            }
            return Self.text("ready\n")
        }
        router.get("/metrics") { _, _ in
            let waiting = await self.admission.waiting
            let running = await self.admission.running
            let free = await self.admission.free
            self.metrics.gauges(
                cacheBytes: self.cache.byteCount, cacheEntries: self.cache.count, running: running, waiting: waiting,
                budgetFree: free, budget: self.admission.budget)
            var response = Self.text(self.metrics.text)
            response.headers[.contentType] = "text/plain; version=0.0.4"
            return response
        }
        return router
    }

    static func text(_ text: String) -> Response {
        let body = ByteBuffer(string: text)
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.contentLength] = String(body.readableBytes)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
    }

    // MARK: POST /v1/convert

    func convert(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let query = try ConvertQuery(Self.queryPairs(request.uri.query ?? ""))
        let limit = configuration.maxBodyBytes
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
            throw ServiceError.bodyTooLarge(limit: limit)
        }
        let body: ByteBuffer
        do {
            let request = request
            body = try await Self.within(configuration.readTimeout, orThrow: .readTimeout(configuration.readTimeout)) {
                try await request.body.collect(upTo: limit)
            }
        } catch is NIOTooManyBytesError {
            throw ServiceError.bodyTooLarge(limit: limit)
        }
        return try await respond(Data(body.readableBytesView), query, request: request, context: context, conditional: false)
    }

    /// The input's conversion (or its cached output) as the answer: the path POST and the signed form share
    /// from the bytes on (sniffing, cache key, single flight, admission, the response's headers).
    func respond(_ bytes: Data, _ query: ConvertQuery, request: Request, context: BasicRequestContext, conditional: Bool) async throws -> Response {
        // The same sniffing as every subcommand (GIF, WebP, PNG/APNG by their first bytes).
        guard InputFormat.sniff(bytes.prefix(12)) != nil else { throw ServiceError.unsupportedFormat() }
        let key = cacheKey(bytes, query)
        let object: CachedObject
        if let hit = cache.lookup(key) {
            metrics.cacheHit()
            object = hit
        } else {
            metrics.cacheMiss()
            let logger = context.logger
            if query.stream, let response = try await streamed(key: key, bytes: bytes, query: query, logger: logger) {
                return response
            }
            // A streamed request finds a streamed conversion of the same output under way (or just committed):
            // it waits for the entry and gets it whole, as any identical request does.
            object = try await flights.run(key, cache: cache, onShared: { self.metrics.singleFlightShared() }) {
                try await self.produce(key: key, bytes: bytes, query: query, logger: logger)
            }
        }
        return Self.located(try serve(object, request: request, companion: false, conditional: conditional), key: key)
    }

    /// `Location` and `X-Gifx-Key`: where the answer's entry is served from.
    static func located(_ response: Response, key: String) -> Response {
        var response = response
        response.headers[.location] = "/v1/o/\(key)"
        response.headers[HTTPField.Name("X-Gifx-Key")!] = key
        return response
    }

    static let resultTrailer = HTTPField.Name("X-Gifx-Result")!

    /// What every answer carrying a cache entry's bytes says of them, sent whole or streamed: its ETag, its type,
    /// a year of immutable caching (a key names one output for ever), and the schedule it follows.
    static func entryHeaders(eTag: String, contentType: String, timeline: String) -> HTTPFields {
        var headers = HTTPFields()
        headers[.eTag] = eTag
        headers[.contentType] = contentType
        headers[.cacheControl] = "public, max-age=31536000, immutable"
        headers[HTTPField.Name("X-Gifx-Timeline")!] = timeline
        return headers
    }

    /// `stream=1` on a cache miss (docs/serve.md, "Streamed responses"): starts the conversion as a detached
    /// flight writing into a spool file, waits for admission (refusals, and edits that do not fit, are answered
    /// as ever), then answers 200 chunked, the body following the file as the conversion writes it and ending
    /// with the trailer `X-Gifx-Result: ok; bytes=N`. `nil` when a conversion of the same output is under way
    /// already (or has just been committed): the caller waits for it as for any flight.
    func streamed(key: String, bytes: Data, query: ConvertQuery, logger: Logger) async throws -> Response? {
        let spool = try OutputSpool(folder: cache.spool)
        let started = await flights.startDetached(key, cache: cache) {
            try await self.produce(key: key, bytes: bytes, query: query, logger: logger, spool: spool)
        }
        guard started else { return nil }
        let timeline = try await spool.waitForStart()
        var headers = Self.entryHeaders(eTag: "\"\(key)\"", contentType: query.format.mediaType, timeline: timeline)
        headers[HTTPField.Name("Trailer")!] = Self.resultTrailer.rawName
        let body = ResponseBody { writer in
            let sent = try await spool.tail(into: &writer)
            try await writer.finish([Self.resultTrailer: "ok; bytes=\(sent)"])
        }
        return Self.located(Response(status: .ok, headers: headers, body: body), key: key)
    }

    // MARK: GET /v1/{signature}/{options}/{encoded source}

    /// The signed on-the-fly form for a CDN (docs/serve.md, "Signed URLs"): the signature is checked over
    /// `/{options}/{source}` as the request spelled it, before anything else is read; then the options are
    /// read by the query's parser, the source fetched from an allowed origin, and the answer is POST's.
    func signed(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let path = request.uri.path
        guard path.hasPrefix("/v1/") else { throw ServiceError.notFound("no route GET \(path)") }
        let rest = path.dropFirst(4)
        guard let slash = rest.firstIndex(of: "/") else { throw ServiceError.notFound("no route GET \(path)") }
        try credentials.verify(signature: rest[..<slash], signedPath: rest[slash...])
        let segments = rest[slash...].dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count == 2 else { throw ServiceError.badSource("give /v1/{signature}/{options}/{source}") }
        let query = try ConvertQuery(SignedOptions.pairs(segments[0]))
        guard let decoded = Base64URL.decode(segments[1]), let text = String(validating: decoded, as: UTF8.self),
              let url = URL(string: text), url.scheme != nil
        else {
            throw ServiceError.badSource("the source is not a URL written in base64url")
        }
        let bytes = try await fetcher.fetch(url)
        return try await respond(bytes, query, request: request, context: context, conditional: true)
    }

    /// The cache key: SHA-256 over the input's SHA-256, the canonical settings and the version.
    func cacheKey(_ bytes: Data, _ query: ConvertQuery) -> String {
        var hash = SHA256()
        hash.update(data: Data(SHA256.hash(data: bytes)))
        hash.update(data: Data("\n\(query.canonicalText)\n\(configuration.version)".utf8))
        return hash.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// Converts `bytes` into the cache under `key`: spools the body, asks the planner for the conversion's
    /// smallest budget (header only), waits for admission, converts with the grant as its budget, commits.
    /// A streamed output (`query.stream`) is written to `spool` (a new one when none is given) as it is encoded,
    /// and renamed into the cache when the conversion has succeeded.
    func produce(key: String, bytes: Data, query: ConvertQuery, logger: Logger, spool given: OutputSpool? = nil) async throws -> CachedObject {
        let spool = try given ?? (query.stream ? OutputSpool(folder: cache.spool) : nil)
        do {
            let object = try await convertIntoCache(key: key, bytes: bytes, query: query, logger: logger, spool: spool)
            spool?.finished()
            return object
        } catch {
            // A failure once the answer has gone out cuts it: logged, since the client sees only the cut.
            if let spool, spool.failed(error) {
                logger.warning("streamed conversion failed", metadata: ["key": "\(key)", "error": "\(error)"])
            }
            throw error
        }
    }

    private func convertIntoCache(key: String, bytes: Data, query: ConvertQuery, logger: Logger, spool: OutputSpool?) async throws -> CachedObject {
        let spooled = try POSIXFiles.makeUniqueFile(prefix: cache.spool + "/in-", access: .ownerOnly).get()
        defer {
            try? spooled.fd.close()
            unlink(spooled.path)
        }
        try POSIXFiles.writeAll(spooled.fd, bytes)
        let input = GifInput.path(spooled.path)
        let paths = cache.paths(for: key, fileExtension: query.format.storedExtension)
        let request = try query.request(path: paths.output, jsonPath: paths.description, streamingTo: spool?.descriptor)
        // Admission asks for the smallest budget on one thread (the least any conversion runs with); the threads
        // it grants are fitted into the memory it grants below.
        var settings = RunSettings(threads: 1, overwrite: true)
        settings.edit = query.edit
        // The conversion's own scratch files (an edit's canvases, further encodes) go beside the request
        // bodies, in the cache's spool, which a start empties: never into the machine's TMPDIR.
        settings.scratchFolder = cache.spool
        // One plan per request (the input's structure read once, no conversion run): the schedule the output
        // follows, then the smallest budget at one thread for admission and at the granted threads for the fit
        // below. An edit that does not fit the GIF is refused in the query's words before any output is planned.
        let planner = GifConverter(settings: settings)
        let (demand, smallest) = try await offThePool {
            let demand = try planner.demand(path: spooled.path, to: [request])  // an EditError is worded as bad_query
            return (demand, try demand.smallestBudget(threads: 1))
        }
        let timeline = demand.timeline
        let grant: Admission.Grant
        do {
            grant = try await admission.acquire(smallest: smallest)
        } catch let error as ServiceError {
            metrics.refused(code: error.code)
            throw error
        }
        settings.memoryBudget = grant.bytes
        settings.threads = try await Self.threads(grant, fitting: demand)
        spool?.started(timeline: Self.timelineHeader(timeline))
        let started = ContinuousClock.now
        let report: ConversionReport
        do {
            let converter = self.converter
            let settings = settings
            let timeout = configuration.conversionTimeout
            // Past the timeout the conversion is cancelled: it stops at its next canvas and removes its temporaries.
            report = try await Self.within(timeout, orThrow: .conversionTimeout(timeout)) {
                try await converter.convert(input, to: [request], settings: settings)
            }
            if let spool {
                do throws(Errno) { try spool.commit(to: paths.output) } catch {
                    throw ServiceError.internalError("cannot move the streamed output into the cache: \(error)")
                }
            }
            await admission.release(grant)
        } catch {
            await admission.release(grant)
            throw error
        }
        let elapsed = ContinuousClock.now - started
        metrics.conversion(
            format: query.format.name,
            seconds: elapsed.seconds)
        var describedBy: String?
        if let sheet = report.outputs.first as? SpriteResult {
            guard sheet.pagePaths.count == 1 else {
                cache.discardFiles(of: key)
                throw ServiceError(
                    .unprocessableContent, "sheet_too_large",
                    "the sheet needs \(sheet.pagePaths.count) pages of at most 4096 pixels; ask for a smaller width, height or scale")
            }
            describedBy = (paths.description as NSString).lastPathComponent
        }
        var size = POSIXFiles.fileSize(paths.output) ?? 0
        if describedBy != nil { size += POSIXFiles.fileSize(paths.description) ?? 0 }
        let object = CachedObject(
            key: key, format: query.format.name, contentType: query.format.mediaType,
            timeline: Self.timelineHeader(timeline), file: (paths.output as NSString).lastPathComponent,
            describedBy: describedBy, bytes: size)
        do {
            try cache.commit(object)
        } catch {
            cache.discardFiles(of: key)
            throw ServiceError.internalError("cannot record the output in the cache: \(error)")
        }
        logger.info("converted", metadata: ["key": "\(key)", "format": "\(query.format.name)", "bytes": "\(size)",
                                            "budget": "\(grant.bytes)", "smallest": "\(smallest)",
                                            "threads": "\(settings.threads ?? 1)"])
        return object
    }

    /// The most of the granted threads whose plan fits the granted memory: an encoder's and the frame ring's
    /// demands grow with threads, and the grant was sized for one. Halves until it fits (one always does:
    /// admission granted at least the one-thread smallest budget). Each try plans the outputs again from the
    /// request's one `ConversionDemand`: the input is not read again and nothing converts.
    static func threads(_ grant: Admission.Grant, fitting demand: ConversionDemand) async throws -> Int {
        var threads = grant.threads
        while threads > 1 {
            let trial = threads
            let smallest = try await offThePool { try demand.smallestBudget(threads: trial) }
            if smallest <= grant.bytes { break }
            threads /= 2
        }
        return threads
    }

    /// `work`'s result, or `error` once `limit` has passed; then `work` is cancelled and awaited (a cancelled
    /// conversion removes its temporaries before it returns), so nothing of it outlives the request.
    static func within<Result: Sendable>(
        _ limit: Duration, orThrow error: ServiceError, _ work: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let result = first else { throw error }
            return result
        }
    }

    /// `frames=N, duration=S.SS, tick=S.SS`: the schedule the output follows, in seconds. The timeline's
    /// duration and tick are in its own units, `1 / timescale` s (cs for a GIF, ms for a WebP, as fine as
    /// 1/3000 s for an APNG), never cs by assumption.
    static func timelineHeader(_ timeline: Timeline) -> String {
        let scale = timeline.timescale
        return "frames=\(timeline.frames.count), duration=\(seconds(timeline.duration.centiseconds, per: scale)), "
            + "tick=\(seconds(timeline.tick.centiseconds, per: scale))"
    }

    /// `units / timescale` seconds in decimal: at least two places (a GIF's whole cs, `0.28`), more where the
    /// value needs them (a WebP's ms, `0.245`), exact to six places; finer than a microsecond (an APNG's
    /// 1/30 s) it is rounded to the nearest microsecond (`0.033333`).
    static func seconds(_ units: Int, per timescale: Int) -> String {
        let microseconds = (2 * units * 1_000_000 + timescale) / (2 * timescale)
        var fraction = String(microseconds % 1_000_000)
        fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
        while fraction.count > 2 && fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(microseconds / 1_000_000).\(fraction)"
    }

    // MARK: GET /v1/o/{key}

    func object(_ request: Request, key: String, companion: Bool) async throws -> Response {
        guard ObjectCache.isKey(key) else { throw ServiceError.notFound("no such object: a key is 64 hex digits") }
        guard let object = cache.lookup(key), !companion || object.describedBy != nil else {
            throw ServiceError.notFound("no such object (never made, or evicted)")
        }
        metrics.cacheHit()
        return try serve(object, request: request, companion: companion, conditional: true)
    }

    /// The object's bytes, whole or the one range asked (206); 304 when `conditional` and If-None-Match
    /// names its ETag.
    func serve(_ object: CachedObject, request: Request, companion: Bool, conditional: Bool) throws -> Response {
        let eTag = "\"\(object.key)\(companion ? "-json" : "")\""
        var headers = Self.entryHeaders(
            eTag: eTag, contentType: companion ? "application/json" : object.contentType, timeline: object.timeline)
        headers[.acceptRanges] = "bytes"
        if object.describedBy != nil && !companion {
            headers[HTTPField.Name("Link")!] = "</v1/o/\(object.key)/json>; rel=\"describedby\""
        }
        if conditional, let ifNoneMatch = request.headers[.ifNoneMatch], Self.matches(ifNoneMatch, eTag) {
            return Response(status: .notModified, headers: headers)
        }
        // The pin and the descriptor go with the body (an `ObjectLease`): released once it is written, or dropped.
        cache.pin(object.key)
        guard let fd = cache.open(object, companion: companion) else {
            cache.unpin(object.key)
            throw ServiceError.notFound("no such object (evicted)")
        }
        let cache = self.cache
        let key = object.key
        let lease = ObjectLease(fd: fd) { cache.unpin(key) }
        let size = POSIXFiles.fileSize(fd) ?? 0
        var range = 0..<size
        var status = HTTPResponse.Status.ok
        if conditional, let text = request.headers[.range] {
            switch Self.byteRange(text, size: size) {
            case .whole: break
            case .part(let part):
                range = part
                status = .partialContent
                headers[.contentRange] = "bytes \(part.lowerBound)-\(part.upperBound - 1)/\(size)"
            case .unsatisfiable:
                var error = ServiceError(.rangeNotSatisfiable, "range_not_satisfiable", "the range is outside the object's \(size) bytes").response
                error.headers[.contentRange] = "bytes */\(size)"
                return error
            }
        }
        headers[.contentLength] = String(range.count)
        // Sent in chunks from the descriptor (`responseChunkBytes`), never read whole into memory.
        let body = ResponseBody(contentLength: range.count) { [range] writer in
            try await sendFile(lease.fd, range, to: &writer)
            try await writer.finish(nil)
        }
        return Response(status: status, headers: headers, body: body)
    }

    enum ByteRange: Equatable { case whole, part(Range<Int>), unsatisfiable }

    /// One `bytes=a-b`, `a-` or `-n` range (several ranges: the whole object, as RFC 9110 allows).
    static func byteRange(_ text: String, size: Int) -> ByteRange {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("bytes="), !trimmed.contains(",") else { return .whole }
        let spec = trimmed.dropFirst(6)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return .whole }
        if parts[0].isEmpty {
            guard let suffix = Int(parts[1]), suffix > 0 else { return .unsatisfiable }
            return size == 0 ? .unsatisfiable : .part(max(0, size - suffix)..<size)
        }
        guard let first = Int(parts[0]), first >= 0 else { return .whole }
        guard first < size else { return .unsatisfiable }
        if parts[1].isEmpty { return .part(first..<size) }
        guard let last = Int(parts[1]), last >= first else { return .whole }
        return .part(first..<min(size, last + 1))
    }

    static func matches(_ ifNoneMatch: String, _ eTag: String) -> Bool {
        ifNoneMatch.split(separator: ",").contains { item in
            let tag = item.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == eTag || tag == "W/" + eTag
        }
    }

    /// `a=1&b=2`, percent-decoded, in order.
    static func queryPairs(_ query: String) -> [(key: String, value: String)] {
        query.split(separator: "&").map { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String {
                String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
            }
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }
}

/// Runs `body` on a thread of its own (reading a GIF's structure is blocking file I/O), not on Swift
/// concurrency's cooperative pool.
func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.stackSize = 8 << 20
        thread.start()
    }
}

/// What the routes share that changes: draining, and the running group (for `shutdown()`).
final class ServiceState: @unchecked Sendable {
    private let lock = NSLock()
    private var _draining = false
    private var _group: ServiceGroup?

    var draining: Bool {
        get { lock.withLock { _draining } }
        set { lock.withLock { _draining = newValue } }
    }
    var group: ServiceGroup? { lock.withLock { _group } }
    func setGroup(_ group: ServiceGroup) { lock.withLock { _group = group } }
}

/// Hears the graceful shutdown first and marks the service draining.
struct DrainWatch: Service {
    let service: GifxService
    func run() async throws {
        try? await gracefulShutdown()
        await service.markDraining()
    }
}

/// Identical requests in flight share one conversion (single flight). A flight is cancelled when every
/// request waiting on it has gone (cancelled at the end of the grace period, say). A detached flight (a
/// streamed conversion) is never cancelled by its waiters: it runs on into the cache when its client goes, until
/// `finishDetached` cancels it at the end of the grace period.
actor Flights {
    private struct Flight {
        var task: Task<CachedObject, any Error>
        var waiters: Int
        var detached: Bool
    }
    private var flights: [String: Flight] = [:]

    func run(
        _ key: String, cache: ObjectCache, onShared: @Sendable () -> Void,
        _ make: @escaping @Sendable () async throws -> CachedObject
    ) async throws -> CachedObject {
        let task: Task<CachedObject, any Error>
        if let flight = flights[key] {
            flights[key]!.waiters += 1
            task = flight.task
            onShared()
        } else if let hit = cache.lookup(key) {
            return hit
        } else {
            task = Task { try await make() }
            flights[key] = Flight(task: task, waiters: 1, detached: false)
        }
        defer { leave(key, task) }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            Task { await self.abandon(key, task) }
        }
    }

    /// Starts `make` as the detached flight for `key`; false (nothing started) when a flight for `key` runs
    /// already or the cache holds it: then `run` waits for that one, or serves the entry.
    func startDetached(_ key: String, cache: ObjectCache, _ make: @escaping @Sendable () async throws -> CachedObject) -> Bool {
        guard flights[key] == nil, !cache.contains(key) else { return false }
        let task = Task { try await make() }
        flights[key] = Flight(task: task, waiters: 0, detached: true)
        Task {
            _ = await task.result
            self.ended(key, task)
        }
        return true
    }

    /// Waits for every detached flight to end; cancelled (the grace period is over), cancels them first.
    func finishDetached() async {
        let tasks = flights.values.filter(\.detached).map(\.task)
        await withTaskCancellationHandler {
            for task in tasks { _ = await task.result }
        } onCancel: {
            for task in tasks { task.cancel() }
        }
    }

    private func ended(_ key: String, _ task: Task<CachedObject, any Error>) {
        guard let flight = flights[key], flight.task == task else { return }
        flights[key] = nil
    }

    private func leave(_ key: String, _ task: Task<CachedObject, any Error>) {
        guard let flight = flights[key], flight.task == task else { return }
        // A detached flight ends by itself (`ended`); a shared one with its last waiter.
        if !flight.detached && flight.waiters <= 1 { flights[key] = nil } else { flights[key]!.waiters -= 1 }
    }

    /// A waiter was cancelled: when nobody else waits, the conversion stops (never a detached one).
    private func abandon(_ key: String, _ task: Task<CachedObject, any Error>) {
        guard let flight = flights[key], flight.task == task else { task.cancel(); return }
        if !flight.detached && flight.waiters <= 1 { task.cancel() }
    }
}

/// Every error leaves as JSON with a stable code (unknown routes too), and every response is counted.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext
    let service: GifxService

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let route = context.endpointPath ?? "unmatched"
        do {
            let response = try await next(request, context)
            service.metrics.responded(route: context.endpointPath ?? route, status: response.status.code)
            return response
        } catch {
            let mapped: ServiceError
            if let error = error as? HTTPError {
                switch error.status {
                case .notFound:
                    // Hummingbird answers a known path with another method as an unknown path: 405 with `Allow` here.
                    let allowed = GifxService.routes.methods(answering: request.uri.path)
                    mapped = allowed.isEmpty || allowed.contains(request.method)
                        ? .notFound("no route \(request.method) \(request.uri.path)")
                        : .methodNotAllowed(request.method, request.uri.path, allowed: allowed)
                case .methodNotAllowed:
                    mapped = .methodNotAllowed(
                        request.method, request.uri.path, allowed: GifxService.routes.methods(answering: request.uri.path))
                case .contentTooLarge: mapped = .bodyTooLarge(limit: service.configuration.maxBodyBytes)
                default: mapped = ServiceError(error.status, "http_\(error.status.code)", error.body ?? error.status.reasonPhrase)
                }
            } else if error is CancellationError {
                mapped = ServiceError(.serviceUnavailable, "cancelled", "the conversion was cancelled (shutdown)", retryAfter: 1)
            } else {
                mapped = ServiceError.from(error)
            }
            if mapped.status == .internalServerError {
                service.logger.error("internal error", metadata: ["error": "\(error)"])
            }
            service.metrics.responded(route: context.endpointPath ?? route, status: mapped.status.code)
            return mapped.response
        }
    }
}
