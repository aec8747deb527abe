import Foundation
import GifxKit
import GifxTimeline
import HTTPTypes
import Hummingbird

/// Every error the service answers: a status, a stable `code` (clients branch on it, docs/serve.md lists
/// them) and a one-line `message`, sent as JSON `{"code": "...", "message": "..."}`.
package struct ServiceError: Error, Sendable, Equatable, CustomStringConvertible {
    package var status: HTTPResponse.Status
    package var code: String
    package var message: String
    /// `Retry-After` in seconds (503).
    package var retryAfter: Int?
    /// Where the input is damaged (422).
    package var byteOffset: Int?
    /// `WWW-Authenticate` (401).
    package var wwwAuthenticate: String?
    /// `Allow` (405): the methods the path answers.
    package var allow: String?

    package init(_ status: HTTPResponse.Status, _ code: String, _ message: String, retryAfter: Int? = nil, byteOffset: Int? = nil) {
        self.status = status; self.code = code; self.message = message
        self.retryAfter = retryAfter; self.byteOffset = byteOffset
    }

    package var description: String { "\(status.code) \(code): \(message)" }

    // The stable codes.
    static func badQuery(_ message: String) -> ServiceError { ServiceError(.badRequest, "bad_query", message) }
    static func notFound(_ message: String) -> ServiceError { ServiceError(.notFound, "not_found", message) }
    static func methodNotAllowed(_ method: HTTPRequest.Method, _ path: String, allowed: [HTTPRequest.Method]) -> ServiceError {
        var error = ServiceError(.methodNotAllowed, "method_not_allowed", "\(method) is not allowed on \(path)")
        error.allow = allowed.map(\.rawValue).joined(separator: ", ")
        return error
    }
    static func badRequestID() -> ServiceError {
        ServiceError(.badRequest, "bad_request_id", "X-Request-Id must be 1 to 128 printable ASCII characters without spaces")
    }
    static func bodyTooLarge(limit: Int) -> ServiceError {
        ServiceError(.contentTooLarge, "body_too_large", "the body is over the limit of \(limit) bytes")
    }
    static func unsupportedFormat() -> ServiceError {
        // The formats' names from the registry of input formats, as the CLI's refusal has them.
        ServiceError(.unsupportedMediaType, "unsupported_format", "the body is not a \(InputFormat.namesPhrase) file")
    }
    static func queueFull(retryAfter: Int) -> ServiceError {
        ServiceError(.serviceUnavailable, "queue_full", "every conversion slot is busy and the queue is full", retryAfter: retryAfter)
    }
    static func queueTimeout(retryAfter: Int) -> ServiceError {
        ServiceError(.serviceUnavailable, "queue_timeout", "no memory came free before the queue's deadline", retryAfter: retryAfter)
    }
    static func draining() -> ServiceError {
        ServiceError(.serviceUnavailable, "draining", "the service is shutting down", retryAfter: 1)
    }
    static func overBudget(smallest: Int, budget: Int) -> ServiceError {
        ServiceError(
            .contentTooLarge, "over_budget",
            "this conversion needs at least \(MemoryPlanner.mebibytes(smallest, roundingUp: true)) (\(smallest) bytes); "
                + "the service's whole budget is \(MemoryPlanner.mebibytes(budget, roundingUp: true)) (\(budget) bytes)")
    }
    static func internalError(_ message: String) -> ServiceError { ServiceError(.internalServerError, "internal", message) }
    static func unauthorized(_ message: String) -> ServiceError {
        var error = ServiceError(.unauthorized, "unauthorized", message)
        error.wwwAuthenticate = "Bearer"
        return error
    }
    // The signed on-the-fly form (docs/serve.md, "Signed URLs").
    static func badSignature(_ message: String) -> ServiceError { ServiceError(.forbidden, "bad_signature", message) }
    static func badSource(_ message: String) -> ServiceError { ServiceError(.badRequest, "bad_source", message) }
    static func originNotAllowed(_ message: String) -> ServiceError { ServiceError(.forbidden, "origin_not_allowed", message) }
    static func privateAddress(_ message: String) -> ServiceError { ServiceError(.forbidden, "private_address", message) }
    static func redirectRefused(_ message: String) -> ServiceError { ServiceError(.badGateway, "redirect_refused", message) }
    static func sourceTooLarge(limit: Int) -> ServiceError {
        ServiceError(.badGateway, "source_too_large", "the source is over the limit of \(limit) bytes (--max-body)")
    }
    static func originTimeout(_ message: String) -> ServiceError { ServiceError(.gatewayTimeout, "origin_timeout", message) }
    static func originError(_ message: String) -> ServiceError { ServiceError(.badGateway, "origin_error", message) }
    static func readTimeout(_ limit: Duration) -> ServiceError {
        ServiceError(.requestTimeout, "read_timeout", "the request's body did not arrive within \(limit.components.seconds) s")
    }
    static func conversionTimeout(_ limit: Duration) -> ServiceError {
        ServiceError(.serviceUnavailable, "conversion_timeout", "the conversion took longer than \(limit.components.seconds) s and was stopped")
    }

    /// A library error in the service's terms: damaged input 422 with its byte offset, a request the
    /// conversion refuses 400, anything else 500.
    static func from(_ error: any Error) -> ServiceError {
        if let error = error as? ServiceError { return error }
        if let error = error as? MemoryBudgetTooSmall {
            return .overBudget(smallest: error.smallestBudget, budget: error.budget)
        }
        // An edit that does not fit the GIF, in the query's words (the library's names no option).
        if let error = error as? EditError { return .badQuery(error.problem.wording(.query)) }
        if case .edit(let problem)? = error as? RunSettingsProblem { return .badQuery(problem.wording(.query)) }
        guard let error = error as? any GifxError else { return .internalError("\(error)") }
        // A video plan's remedy in the query's names (`fps=vfr`, `scale`), not the command line's.
        let message = (error as? VideoPlanError)?.queryWording ?? error.description
        switch error.failureClass {
        case .malformedData:
            let offset = error.inputByteOffset
            return ServiceError(
                .unprocessableContent, "damaged_gif",
                offset.map { "byte \($0): \(message)" } ?? message, byteOffset: offset)
        case .usage:
            return .badQuery(message)
        case .budgetTooSmall:
            return ServiceError(.contentTooLarge, "over_budget", message)
        case .cannotOpenInput, .internalError, .cannotCreateOutput, .io, .verificationFailed, .outputClosed:
            return .internalError(message)
        }
    }

    /// The JSON body.
    var json: String {
        var object: [String: Any] = ["code": code, "message": message]
        if let byteOffset { object["byteOffset"] = byteOffset }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    var response: Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        if let wwwAuthenticate { headers[.wwwAuthenticate] = wwwAuthenticate }
        if let allow { headers[.allow] = allow }
        let body = ByteBuffer(string: json + "\n")
        headers[.contentLength] = String(body.readableBytes)
        return Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }
}

extension VideoPlanError {
    /// The problem and what would work instead, in the query's names (`fps=vfr`, `scale`); the library's
    /// `description` states the facts alone (the command line words them with its flags, Sources/gifx).
    var queryWording: String {
        switch remedy {
        case nil:
            return description
        case .resize:
            return "\(description); use scale, width or height"
        case .shorterFrames(let longest):
            return "\(description): use fps=vfr, or fps=\(Rational(longest.den, longest.num)) or faster"
        case .stillOutput:
            return "\(description): ask for format=webp or format=jpg instead"
        }
    }
}
