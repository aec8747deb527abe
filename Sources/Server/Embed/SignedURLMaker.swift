import Crypto
import Foundation

/// Writes signed URLs (`BASE/v1/SIGNATURE/OPTIONS/SOURCE`, docs/serve.md "Signed URLs") with the service's signing
/// key: what `gifx embed` and `GET /v1/embed` put in their markup, so nothing is converted until a browser asks.
package struct SignedURLMaker: Sendable {
    /// The service's public address, `https://gifx.example` (no trailing slash).
    package let base: String
    private let key: [UInt8]

    /// `base`: the service's address as browsers reach it (a trailing `/` is dropped); `key`: the bytes of the
    /// `--signing-key-file` file without its trailing line break.
    package init(base: String, key: [UInt8]) {
        var base = base
        while base.hasSuffix("/") { base.removeLast() }
        self.base = base
        self.key = key
    }

    /// Whether `text` is an absolute http(s) URL with a host and nothing after the path's end but a query: the form
    /// `--base-url` and `base=` take.
    package static func isServiceBase(_ text: String) -> Bool {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil
        else { return false }
        return true
    }

    /// The signed URL of `source` converted with `options`, the options segment's items as written there
    /// (`["format:mp4", "codec:av1"]`: `key:value`, percent-encoded where a value holds `,` or `/`).
    package func url(options: [String], source: String) -> String {
        let path = "/\(options.joined(separator: ","))/\(Base64URL.encode(Array(source.utf8)))"
        let code = HMAC<SHA256>.authenticationCode(for: Data(path.utf8), using: SymmetricKey(data: key))
        return base + "/v1/" + Base64URL.encode(Array(code)) + path
    }
}
