import Foundation
import GifxKit
import GifxPOSIXFiles
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// GET /v1/o/{key} and /v1/o/{key}/json: a cache entry, whole, in one range (206) or not modified (304), sent in
/// chunks from its descriptor.
struct ObjectController: Sendable {
    let cache: ObjectCache
    let metrics: ServiceMetrics
    let credentials: Credentials

    func addRoutes(to router: Router<BasicRequestContext>) {
        router.get("/v1/o/:key") { request, context in
            try credentials.authorize(request.headers)
            return try await object(request, key: context.parameters.get("key") ?? "", companion: false)
        }
        router.get("/v1/o/:key/json") { request, context in
            try credentials.authorize(request.headers)
            return try await object(request, key: context.parameters.get("key") ?? "", companion: true)
        }
    }

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
        if conditional, let ifNoneMatch = request.headers[.ifNoneMatch], EntityTag.matches(ifNoneMatch, eTag) {
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
            switch ByteRange(text, size: size) {
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
}
