import Foundation
import GifxKit
import GifxTimeline
import HTTPTypes
import Hummingbird
import NIOCore

/// GET /v1/embed?source=URL: the HTML to paste for the animation at `source` (`EmbedMarkup`): a video and a picture
/// whose renditions are signed URLs of this service, converted when a browser first asks for them. The source is
/// fetched from an allowed origin, as the signed form fetches it, and only its metadata is read (size, loop count,
/// tick); nothing is converted here. Needs the signing key (404 without it, as the signed form) and, when the
/// service has one, the bearer token.
struct EmbedController: Sendable {
    let configuration: ServerConfiguration
    let credentials: Credentials
    let fetcher: SourceFetcher
    /// Where the source's bytes are spooled while its metadata is read (the cache's spool).
    let spool: String

    func addRoutes(to router: Router<BasicRequestContext>) {
        router.get("/v1/embed") { request, _ in
            try credentials.authorize(request.headers)
            return try await embed(request)
        }
    }

    func embed(_ request: Request) async throws -> Response {
        guard let key = configuration.signingKey else {
            throw ServiceError.notFound("GET /v1/embed writes signed URLs, which are not enabled (--signing-key-file)")
        }
        var source: String?, alt: String?, base: String?
        for item in ConvertQuery.pairs(fromQuery: request.uri.query ?? "") {
            switch item.key {
            case "source": source = item.value
            case "alt": alt = item.value
            case "base": base = item.value
            default: throw ServiceError.badQuery("unknown item '\(item.key)': /v1/embed takes source, alt and base")
            }
        }
        guard let source, let url = URL(string: source), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", url.host != nil
        else {
            throw ServiceError.badSource("give source=URL, the absolute http(s) URL of the animation")
        }
        let serviceBase = base ?? Self.base(of: request)
        guard SignedURLMaker.isServiceBase(serviceBase) else {
            throw ServiceError.badQuery("base must be the service's absolute http(s) address, without query or fragment")
        }
        let timeline = try await uploadTimeline(try await fetcher.fetch(url), spool: spool)
        let name = url.lastPathComponent.isEmpty || url.lastPathComponent == "/" ? "animation" : url.lastPathComponent
        let markup = EmbedMarkup(
            timeline: timeline, source: source, alt: alt ?? name, signer: SignedURLMaker(base: serviceBase, key: key))
        let body = ByteBuffer(string: markup.html)
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.contentLength] = String(body.readableBytes)
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
    }

    /// The service's address as the request reached it: `X-Forwarded-Proto` (else http) and the request's authority.
    static func base(of request: Request) -> String {
        let forwarded = request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased()
        let scheme = forwarded == "https" ? "https" : "http"
        let authority = request.head.authority ?? "127.0.0.1"
        return "\(scheme)://\(authority)"
    }
}
