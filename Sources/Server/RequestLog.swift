import Foundation
import GifxPOSIXFiles
import HTTPTypes
import Hummingbird
import Logging
import SystemPackage

/// One log line per request when it is answered (method, path, status, milliseconds), carrying the
/// request's ID (`hb.request.id`, which every line logged for the request carries too), and that ID in the
/// `X-Request-Id` response header so a client's report can be matched to the server's lines. A client's own
/// `X-Request-Id` (1 to 128 printable ASCII characters, no spaces: `ClientRequestIDCheck`) is logged beside it as
/// `client.request.id`.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext
    static let header = HTTPField.Name("X-Request-Id")!

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        if let given = request.headers[Self.header], ClientRequestIDCheck.isValid(given) {
            context.logger[metadataKey: "client.request.id"] = .string(given)
        }
        let started = ContinuousClock.now
        var response = try await next(request, context)
        response.headers[Self.header] = context.id
        let elapsed = ContinuousClock.now - started
        let milliseconds = elapsed.seconds * 1000
        context.logger.info(
            "request",
            metadata: [
                "method": .string(request.method.rawValue), "path": .string(request.uri.path),
                "status": .stringConvertible(response.status.code),
                "ms": .string(String(format: "%.1f", milliseconds)),
            ])
        return response
    }
}

/// swift-log's handler for `gifx serve --log-format json`: one JSON object a line on standard error, with
/// the time (UTC, milliseconds), level, label, message and every metadata value as a string, for a log
/// collector to index. Lines are written whole (one `write` under a lock), so they never interleave.
package struct JSONLogHandler: LogHandler {
    package var metadata: Logger.Metadata = [:]
    package var logLevel: Logger.Level = .info
    private let label: String
    private static let lock = NSLock()

    package init(label: String) { self.label = label }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        var fields: [String: String] = [:]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) {
            fields[key] = "\(value)"
        }
        fields["time"] = Self.timestamp()
        fields["level"] = event.level.rawValue
        fields["label"] = label
        fields["message"] = "\(event.message)"
        guard var line = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]) else { return }
        line.append(0x0A)
        // A log line that cannot be written is dropped: there is nowhere left to report it.
        Self.lock.withLock { try? POSIXFiles.writeAll(FileDescriptor.standardError, line) }
    }

    private static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
            parts.tm_hour, parts.tm_min, parts.tm_sec, now.tv_nsec / 1_000_000)
    }
}

extension Duration {
    /// The duration in seconds, as the metrics and the request log report it.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
