import Foundation
import GifxKit
import GifxTimeline
import HTTPTypes
import Hummingbird
import NIOCore

/// POST /v1/timeline?format=svg: the body's schedule as a picture, drawn by `TimelinePicture` (what
/// `gifx timeline --svg` writes): one bar per frame, as wide as its resolved delay. The body is any input the
/// registry reads, bounded by `--max-body` and `--read-timeout` as POST /v1/convert's is; only its metadata is read
/// (in the service process, as GET /v1/embed reads it), nothing is converted or cached. The playground draws its
/// picture with it.
struct TimelinePictureController: Sendable {
    let configuration: ServerConfiguration
    let credentials: Credentials
    /// Where the body is spooled while its metadata is read (the cache's spool).
    let spool: String

    /// The most frames one picture draws: a bar is about 300 bytes of SVG, so a picture stays under about 6 MB
    /// (a 64 MB body could otherwise hold millions of frames, and its picture gigabytes).
    static let maximumFrames = 20_000

    func addRoutes(to router: Router<BasicRequestContext>) {
        router.post("/v1/timeline") { request, _ in
            try credentials.authorize(request.headers)
            return try await picture(request)
        }
    }

    func picture(_ request: Request) async throws -> Response {
        var format: String?, title: String?
        for item in ConvertQuery.pairs(fromQuery: request.uri.query ?? "") {
            switch item.key {
            case "format": format = item.value
            case "title": title = item.value
            default: throw ServiceError.badQuery("unknown item '\(item.key)': /v1/timeline takes format and title")
            }
        }
        guard let format else { throw ServiceError.badQuery("give format=svg: /v1/timeline draws the schedule as SVG") }
        guard format.lowercased() == "svg" else {
            throw ServiceError.badQuery("format=\(format): /v1/timeline draws svg (the schedule as JSON is POST /v1/convert?format=timeline)")
        }
        let timeline = try await uploadTimeline(try await body(of: request), spool: spool)
        guard timeline.frames.count <= Self.maximumFrames else {
            throw ServiceError(
                .unprocessableContent, "too_many_frames",
                "the input has \(timeline.frames.count) frames; the picture draws at most \(Self.maximumFrames) (gifx timeline --svg draws any)")
        }
        let svg = TimelinePicture(timeline: timeline, title: title ?? "timeline").svgDocument()
        let answer = ByteBuffer(string: svg)
        var headers = HTTPFields()
        headers[.contentType] = "image/svg+xml; charset=utf-8"
        headers[.contentLength] = String(answer.readableBytes)
        headers[.cacheControl] = "no-store"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        // Opened on its own, the picture runs nothing and loads nothing; its own <style> applies.
        headers[HTTPField.Name("Content-Security-Policy")!] = "default-src 'none'; style-src 'unsafe-inline'"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: answer))
    }

    /// The request's body, within `--max-body` (413) and `--read-timeout` (408).
    private func body(of request: Request) async throws -> Data {
        let limit = configuration.maxBodyBytes
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
            throw ServiceError.bodyTooLarge(limit: limit)
        }
        do {
            let request = request
            let collected = try await withDeadline(configuration.readTimeout, orThrow: .readTimeout(configuration.readTimeout)) {
                try await request.body.collect(upTo: limit)
            }
            return Data(collected.readableBytesView)
        } catch is NIOTooManyBytesError {
            throw ServiceError.bodyTooLarge(limit: limit)
        }
    }
}
