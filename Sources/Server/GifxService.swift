import Crypto
import Foundation
import GifxKit
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
    let metrics: ServiceMetrics
    let credentials: Credentials
    let fetcher: SourceFetcher
    let converter: any Converting
    private let state = ServiceState()

    /// `converter`: what runs the conversions; `nil`: worker processes with `--workers` (`ServeWorkers`), else
    /// the library in this process (`LibraryConverter`).
    package init(
        configuration: ServerConfiguration, logger: Logger = Logger(label: "gifx.serve"),
        converter: (any Converting)? = nil
    ) throws {
        if let problem = configuration.problem { throw ServiceError.badQuery(problem) }
        self.configuration = configuration
        self.logger = logger
        let metrics = ServiceMetrics()
        self.metrics = metrics
        if let converter {
            self.converter = converter
        } else if configuration.workers {
            self.converter = ServeWorkers(
                executable: configuration.workerExecutable, environment: configuration.workerEnvironment,
                maxIdle: configuration.resolvedJobs, crashed: { metrics.workerCrashed(cause: $0) })
        } else {
            self.converter = LibraryConverter()
        }
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
        defer { (converter as? ServeWorkers)?.shutdown() }
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
        (.get, "/v1/embed"), (.post, "/v1/timeline"), (.get, "/playground"), (.get, "/healthz"), (.get, "/readyz"), (.get, "/metrics"),
    ])

    /// The router: the middlewares, then each controller's routes (every /v1 route but the signed form needs the
    /// bearer token when one is configured; the signed form's signature is its credential, so a CDN can fetch it
    /// without a header).
    func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: RequestLogMiddleware())
        router.add(middleware: ErrorMiddleware(service: self))
        router.add(middleware: ClientRequestIDCheck())
        let objects = ObjectController(cache: cache, metrics: metrics, credentials: credentials)
        let runner = ConversionRunner(
            configuration: configuration, cache: cache, admission: admission, flights: flights, metrics: metrics,
            converter: converter, objects: objects)
        ConvertController(configuration: configuration, credentials: credentials, runner: runner).addRoutes(to: router)
        objects.addRoutes(to: router)
        SignedURLController(credentials: credentials, fetcher: fetcher, runner: runner).addRoutes(to: router)
        EmbedController(configuration: configuration, credentials: credentials, fetcher: fetcher, spool: cache.spool)
            .addRoutes(to: router)
        TimelinePictureController(configuration: configuration, credentials: credentials, spool: cache.spool).addRoutes(to: router)
        PlaygroundController(configuration: configuration, credentials: credentials).addRoutes(to: router)
        ProbeController(admission: admission, state: state).addRoutes(to: router)
        MetricsController(admission: admission, cache: cache, metrics: metrics).addRoutes(to: router)
        return router
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
