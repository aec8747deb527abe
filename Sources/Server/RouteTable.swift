import HTTPTypes
import Hummingbird

/// The service's routes as patterns (`/v1/o/:key`: a `:name` segment matches any one segment) and their methods:
/// which methods a path answers, for 405's `Allow`. Hummingbird's router answers a known path asked with another
/// method as it answers an unknown path (404), and keeps its own table to itself.
struct RouteTable: Sendable {
    private let routes: [(method: HTTPRequest.Method, segments: [String])]

    init(_ routes: [(HTTPRequest.Method, String)]) {
        self.routes = routes.map { ($0.0, $0.1.split(separator: "/").map(String.init)) }
    }

    /// The methods of every route whose pattern matches `path`, in the table's order, each once; empty when none does.
    func methods(answering path: String) -> [HTTPRequest.Method] {
        let segments = path.split(separator: "/")
        var methods: [HTTPRequest.Method] = []
        for route in routes where route.segments.count == segments.count && !methods.contains(route.method) {
            let matches = zip(route.segments, segments).allSatisfy { pattern, segment in
                pattern.hasPrefix(":") || pattern == segment
            }
            if matches { methods.append(route.method) }
        }
        return methods
    }
}

/// A client's own `X-Request-Id` on a `/v1` route must be what docs/openapi.yaml says (1 to 128 printable ASCII
/// characters, no spaces), else 400 `bad_request_id`: an ID that the log would drop silently is refused, so the
/// client learns that its reports cannot be matched. The probes and `/metrics` never refuse a request for a header
/// (a liveness probe must not fail for what a proxy adds); they log only a valid one, as every route does.
struct ClientRequestIDCheck: RouterMiddleware {
    typealias Context = BasicRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.uri.path.hasPrefix("/v1/"), let given = request.headers[RequestLogMiddleware.header], !Self.isValid(given) {
            throw ServiceError.badRequestID()
        }
        return try await next(request, context)
    }

    /// 1 to 128 characters, each printable ASCII other than the space (`^[!-~]{1,128}$`).
    static func isValid(_ id: String) -> Bool {
        (1...128).contains(id.utf8.count) && id.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }
}
