import Foundation
import GifxKit
import GifxPOSIXFiles
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// POST /v1/convert: the body (bounded by `--max-body` and `--read-timeout`) and the query, answered by the runner.
struct ConvertController: Sendable {
    let configuration: ServerConfiguration
    let credentials: Credentials
    let runner: ConversionRunner

    func addRoutes(to router: Router<BasicRequestContext>) {
        router.post("/v1/convert") { request, context in
            try credentials.authorize(request.headers)
            return try await convert(request, context: context)
        }
    }

    func convert(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let query = try ConvertQuery(ConvertQuery.pairs(fromQuery: request.uri.query ?? ""))
        let limit = configuration.maxBodyBytes
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
            throw ServiceError.bodyTooLarge(limit: limit)
        }
        let body: ByteBuffer
        do {
            let request = request
            body = try await withDeadline(configuration.readTimeout, orThrow: .readTimeout(configuration.readTimeout)) {
                try await request.body.collect(upTo: limit)
            }
        } catch is NIOTooManyBytesError {
            throw ServiceError.bodyTooLarge(limit: limit)
        }
        return try await runner.respond(Data(body.readableBytesView), query, request: request, context: context, conditional: false)
    }
}
