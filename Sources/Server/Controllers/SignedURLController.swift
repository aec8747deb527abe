import Foundation
import GifxKit
import GifxPOSIXFiles
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// GET /v1/{signature}/{options}/{encoded source}: the signed on-the-fly form (no bearer token: the signature is
/// its credential).
struct SignedURLController: Sendable {
    let credentials: Credentials
    let fetcher: SourceFetcher
    let runner: ConversionRunner

    func addRoutes(to router: Router<BasicRequestContext>) {
        router.get("/v1/:signature/:options/:source") { request, context in try await signed(request, context: context) }
    }

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
        return try await runner.respond(bytes, query, request: request, context: context, conditional: true)
    }
}
