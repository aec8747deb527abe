import CoreMetrics
import Prometheus

/// The service's metrics through swift-metrics, kept in this service's own Prometheus registry (no global
/// bootstrap, so a program, or a test, may run several services), served as text on `/metrics`.
final class ServiceMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory

    init() {
        factory = PrometheusMetricsFactory(registry: registry)
    }

    /// A response sent, by route and status.
    func responded(route: String, status: Int) {
        Counter(label: "gifx_http_responses_total", dimensions: [("route", route), ("status", String(status))], factory: factory)
            .increment()
    }

    func conversion(format: String, seconds: Double) {
        Counter(label: "gifx_conversions_total", dimensions: [("format", format)], factory: factory).increment()
        Recorder(label: "gifx_conversion_seconds", dimensions: [("format", format)], aggregate: true, factory: factory)
            .record(seconds)
    }

    /// A worker process died mid-conversion (`ServeWorkers`), by the signal's name (`SIGSEGV`) or `exit`, or went
    /// over its memory grant (`memory_grant`).
    func workerCrashed(cause: String) {
        Counter(label: "gifx_worker_crashes_total", dimensions: [("signal", cause)], factory: factory).increment()
    }

    func cacheHit() { Counter(label: "gifx_cache_hits_total", factory: factory).increment() }
    func cacheMiss() { Counter(label: "gifx_cache_misses_total", factory: factory).increment() }
    func singleFlightShared() { Counter(label: "gifx_single_flight_shared_total", factory: factory).increment() }
    func refused(code: String) {
        Counter(label: "gifx_refusals_total", dimensions: [("code", code)], factory: factory).increment()
    }

    func gauges(cacheBytes: Int, cacheEntries: Int, running: Int, waiting: Int, budgetFree: Int, budget: Int) {
        Gauge(label: "gifx_cache_bytes", factory: factory).record(cacheBytes)
        Gauge(label: "gifx_cache_entries", factory: factory).record(cacheEntries)
        Gauge(label: "gifx_conversions_running", factory: factory).record(running)
        Gauge(label: "gifx_queue_waiting", factory: factory).record(waiting)
        Gauge(label: "gifx_memory_budget_free_bytes", factory: factory).record(budgetFree)
        Gauge(label: "gifx_memory_budget_bytes", factory: factory).record(budget)
    }

    var text: String { registry.emitToString() }
}
