import Crypto
import Foundation
import GifxKit
import GifxTimeline
import GifxPOSIXFiles
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// From an input's bytes and a query to the answer, for POST /v1/convert and the signed form alike: sniffing, the
/// cache key, the cache, single flight, one plan per request, admission, the conversion (through `Converting`) and
/// its commit into the cache, streamed or whole.
struct ConversionRunner: Sendable {
    let configuration: ServerConfiguration
    let cache: ObjectCache
    let admission: Admission
    let flights: Flights
    let metrics: ServiceMetrics
    let converter: any Converting
    /// Serves a committed entry (its headers, ranges, 304).
    let objects: ObjectController

    /// The input's conversion (or its cached output) as the answer: the path POST and the signed form share
    /// from the bytes on (sniffing, cache key, single flight, admission, the response's headers). `format=auto`
    /// chooses its format here, from the request's `Accept` (`AutoFormat`).
    func respond(_ bytes: Data, _ query: ConvertQuery, request: Request, context: BasicRequestContext, conditional: Bool) async throws -> Response {
        // The same sniffing as every subcommand (GIF, WebP, PNG/APNG, AVIF by their first bytes).
        guard let source = InputFormat.sniff(bytes.prefix(InputFormat.probeLength)) else { throw ServiceError.unsupportedFormat() }
        if let order = query.order {
            return try await respond(bytes, order, request: request, context: context, conditional: conditional)
        }
        return try await respondAuto(bytes, query, source: source, request: request, context: context, conditional: conditional)
    }

    /// One order's answer: its entry from the cache, or its conversion (streamed or whole) into the cache.
    func respond(_ bytes: Data, _ order: ConversionOrder, request: Request, context: BasicRequestContext, conditional: Bool) async throws -> Response {
        let key = cacheKey(bytes, order.canonicalText)
        let logger = context.logger
        return try await answer(key: key, request: request, conditional: conditional, streamed: {
            // A streamed request finds a streamed conversion of the same output under way (or just committed):
            // it waits for the entry and gets it whole, as any identical request does.
            guard order.stream else { return nil }
            return try await self.streamed(key: key, bytes: bytes, order: order, logger: logger)
        }) {
            try await self.produce(key: key, bytes: bytes, order: order, logger: logger)
        }
    }

    /// The entry at `key` as the answer (ETag, Range, 304, `Location`): from the cache on a hit; on a miss made by
    /// `make` under the single flight that identical requests share, unless `streamed` answers first (`stream=1`).
    /// The one owner of the answer's cache steps, for an order's output and `format=auto`'s source passed through.
    func answer(
        key: String, request: Request, conditional: Bool, streamed: () async throws -> Response? = { nil },
        make: @escaping @Sendable () async throws -> CachedObject
    ) async throws -> Response {
        let object: CachedObject
        if let hit = cache.lookup(key) {
            metrics.cacheHit()
            object = hit
        } else {
            metrics.cacheMiss()
            if let response = try await streamed() { return response }
            object = try await flights.run(key, cache: cache, onShared: { self.metrics.singleFlightShared() }, make)
        }
        return Self.located(try objects.serve(object, request: request, companion: false, conditional: conditional), key: key)
    }

    /// `Location` and `X-Gifx-Key`: where the answer's entry is served from.
    static func located(_ response: Response, key: String) -> Response {
        var response = response
        response.headers[.location] = "/v1/o/\(key)"
        response.headers[HTTPField.Name("X-Gifx-Key")!] = key
        return response
    }

    static let resultTrailer = HTTPField.Name("X-Gifx-Result")!

    /// `stream=1` on a cache miss (docs/serve.md, "Streamed responses"): starts the conversion as a detached
    /// flight writing into a spool file, waits for admission (refusals, and edits that do not fit, are answered
    /// as ever), then answers 200 chunked, the body following the file as the conversion writes it and ending
    /// with the trailer `X-Gifx-Result: ok; bytes=N`. `nil` when a conversion of the same output is under way
    /// already (or has just been committed): the caller waits for it as for any flight.
    func streamed(key: String, bytes: Data, order: ConversionOrder, logger: Logger) async throws -> Response? {
        let spool = try OutputSpool(folder: cache.spool)
        let started = await flights.startDetached(key, cache: cache) {
            try await self.produce(key: key, bytes: bytes, order: order, logger: logger, spool: spool)
        }
        guard started else { return nil }
        let timeline = try await spool.waitForStart()
        var headers = ObjectController.entryHeaders(eTag: "\"\(key)\"", contentType: order.kind.mediaType, timeline: timeline)
        headers[HTTPField.Name("Trailer")!] = Self.resultTrailer.rawName
        let body = ResponseBody { writer in
            let sent = try await spool.tail(into: &writer)
            try await writer.finish([Self.resultTrailer: "ok; bytes=\(sent)"])
        }
        return Self.located(Response(status: .ok, headers: headers, body: body), key: key)
    }

    /// The cache key: SHA-256 over the input's SHA-256, the canonical settings (`ConversionOrder.canonicalText`;
    /// `source` for `format=auto`'s source passed through) and the version.
    func cacheKey(_ bytes: Data, _ canonicalText: String) -> String {
        var hash = SHA256()
        hash.update(data: Data(SHA256.hash(data: bytes)))
        hash.update(data: Data("\n\(canonicalText)\n\(configuration.version)".utf8))
        return hash.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// Converts `bytes` into the cache under `key`: spools the body, asks the planner for the conversion's
    /// smallest budget (header only), waits for admission, converts with the grant as its budget, commits.
    /// A streamed output (`order.stream`) is written to `spool` (a new one when none is given) as it is encoded,
    /// and renamed into the cache when the conversion has succeeded.
    func produce(key: String, bytes: Data, order: ConversionOrder, logger: Logger, spool given: OutputSpool? = nil) async throws -> CachedObject {
        let spool = try given ?? (order.stream ? OutputSpool(folder: cache.spool) : nil)
        do {
            let object = try await convertIntoCache(key: key, bytes: bytes, order: order, logger: logger, spool: spool)
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

    private func convertIntoCache(key: String, bytes: Data, order: ConversionOrder, logger: Logger, spool: OutputSpool?) async throws -> CachedObject {
        let spooled = try POSIXFiles.makeUniqueFile(prefix: cache.spool + "/in-", access: .ownerOnly).get()
        defer {
            try? spooled.fd.close()
            unlink(spooled.path)
        }
        try POSIXFiles.writeAll(spooled.fd, bytes)
        let paths = cache.paths(for: key, fileExtension: order.kind.storedExtension)
        // The request as planned here; the job's own is built where it runs, from the same order (its descriptor is
        // that process's).
        let request = try order.request(path: paths.output, jsonPath: paths.description, streamingTo: spool?.descriptor)
        // Admission asks for the smallest budget on one thread (the least any conversion runs with); the threads
        // it grants are fitted into the memory it grants below.
        var settings = RunSettings(threads: 1, overwrite: true)
        settings.edit = order.edit
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
        spool?.started(timeline: TimelineHeader.value(timeline))
        let started = ContinuousClock.now
        let outcome: ConversionOutcome
        do {
            let converter = self.converter
            let job = ConversionJob(
                input: spooled.path, order: order, output: paths.output, description: paths.description,
                spool: spool?.path, memoryBudget: grant.bytes, threads: settings.threads ?? 1, scratchFolder: cache.spool)
            let timeout = configuration.conversionTimeout
            // Past the timeout the conversion is cancelled: it stops at its next canvas and removes its temporaries.
            outcome = try await withDeadline(timeout, orThrow: .conversionTimeout(timeout)) {
                try await converter.convert(job)
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
            format: order.kind.name,
            seconds: elapsed.seconds)
        var describedBy: String?
        if let pages = outcome.sheetPages {
            guard pages == 1 else {
                cache.discardFiles(of: key)
                throw ServiceError(
                    .unprocessableContent, "sheet_too_large",
                    "the sheet needs \(pages) pages of at most \(SpriteLayout.defaultMaxSize) pixels; ask for a smaller width, height or scale")
            }
            describedBy = (paths.description as NSString).lastPathComponent
        }
        var size = POSIXFiles.fileSize(paths.output) ?? 0
        if describedBy != nil { size += POSIXFiles.fileSize(paths.description) ?? 0 }
        let object = CachedObject(
            key: key, format: order.kind.name, contentType: order.kind.mediaType,
            timeline: TimelineHeader.value(timeline), file: (paths.output as NSString).lastPathComponent,
            describedBy: describedBy, bytes: size)
        do {
            try cache.commit(object)
        } catch {
            cache.discardFiles(of: key)
            throw ServiceError.internalError("cannot record the output in the cache: \(error)")
        }
        logger.info("converted", metadata: ["key": "\(key)", "format": "\(order.kind.name)", "bytes": "\(size)",
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
}
