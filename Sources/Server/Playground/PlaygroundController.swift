import GifxKit
import HTTPTypes
import Hummingbird
import NIOCore

/// GET /playground: the playground page (`PlaygroundPage`) when the service was started with `--playground`, 404
/// otherwise. The page itself holds no secret and needs no token; the routes it calls need the bearer token as
/// any client's calls do, and the page asks for it.
struct PlaygroundController: Sendable {
    let configuration: ServerConfiguration
    let credentials: Credentials

    /// The outputs the page plays: every served kind that animates (a video, or an animated image type).
    static var animatedOutputs: [PlaygroundPage.Output] {
        OutputKind.served
            .filter { $0.mediaType.hasPrefix("video/") || ["image/webp", "image/avif", "image/apng"].contains($0.mediaType) }
            .map { PlaygroundPage.Output(format: $0.name, mediaType: $0.mediaType) }
    }

    func addRoutes(to router: Router<BasicRequestContext>) {
        let page = PlaygroundPage(
            outputs: Self.animatedOutputs, requiresToken: credentials.requiresToken,
            signsURLs: configuration.signingKey != nil, maxBodyBytes: configuration.maxBodyBytes)
        let html = page.html
        let policy = page.contentSecurityPolicy(pictureStyle: PlaygroundPage.pictureStyle)
        let enabled = configuration.playground
        router.get("/playground") { _, _ in
            guard enabled else {
                throw ServiceError.notFound("the playground is off: start gifx serve with --playground")
            }
            let body = ByteBuffer(string: html)
            var headers = HTTPFields()
            headers[.contentType] = "text/html; charset=utf-8"
            headers[.contentLength] = String(body.readableBytes)
            headers[.cacheControl] = "no-cache"
            headers[HTTPField.Name("Content-Security-Policy")!] = policy
            headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
            headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
        }
    }
}
