import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// GET /healthz (the process answers) and /readyz (it takes work: not draining, the queue not full).
struct ProbeController: Sendable {
    let admission: Admission
    let state: ServiceState

    func addRoutes(to router: Router<BasicRequestContext>) {
        router.get("/healthz") { _, _ in Response.plainText("ok\n") }
        router.get("/readyz") { _, _ in
            let queueFull = await admission.queueIsFull
            if state.draining || queueFull {
                throw ServiceError(
                    .serviceUnavailable, state.draining ? "draining" : "queue_full",
                    state.draining ? "the service is shutting down" : "the queue is full", retryAfter: 1)
            }
            return Response.plainText("ready\n")
        }
    }
}

/// GET /metrics: Prometheus text, the gauges read at the moment of asking.
struct MetricsController: Sendable {
    let admission: Admission
    let cache: ObjectCache
    let metrics: ServiceMetrics

    func addRoutes(to router: Router<BasicRequestContext>) {
        router.get("/metrics") { _, _ in
            let waiting = await admission.waiting
            let running = await admission.running
            let free = await admission.free
            metrics.gauges(
                cacheBytes: cache.byteCount, cacheEntries: cache.count, running: running, waiting: waiting,
                budgetFree: free, budget: admission.budget)
            var response = Response.plainText(metrics.text)
            response.headers[.contentType] = "text/plain; version=0.0.4"
            return response
        }
    }
}

extension Response {
    /// A 200 answer of `text` as UTF-8 plain text.
    static func plainText(_ text: String) -> Response {
        let body = ByteBuffer(string: text)
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.contentLength] = String(body.readableBytes)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
    }
}
