import Foundation
import HTTPTypes
import Hummingbird

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
