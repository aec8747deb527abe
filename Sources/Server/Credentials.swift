import Crypto
import Foundation
import HTTPTypes

/// The service's secrets, compared in constant time: the bearer token (`--token-file` or `GIFX_SERVE_TOKEN`)
/// and the key of signed URLs (`--signing-key-file`). Neither is ever a flag's value, so neither shows in `ps`.
struct Credentials: Sendable {
    /// The token's HMAC under `comparisonKey`; `nil`: no token is asked for.
    private let tokenCode: [UInt8]?
    /// A random key made at start, only to bring the presented and the expected token to 32 bytes each, so
    /// the comparison takes the same time whatever the presented token's length or content.
    /// (Kept as bytes: swift-crypto's `SymmetricKey` is not `Sendable`.)
    private let comparisonKey: [UInt8]
    /// The key of signed URLs; `nil`: the signed form answers 404 (not configured).
    private let signingKey: [UInt8]?

    init(token: String?, signingKey: [UInt8]?) {
        let key = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
        comparisonKey = key
        tokenCode = token.map { Array(HMAC<SHA256>.authenticationCode(for: Data($0.utf8), using: SymmetricKey(data: key))) }
        self.signingKey = signingKey
    }

    var requiresToken: Bool { tokenCode != nil }

    /// Throws 401 `unauthorized` unless the request's `Authorization: Bearer T` names the token (or no token
    /// is configured).
    func authorize(_ headers: HTTPFields) throws(ServiceError) {
        guard let tokenCode else { return }
        guard let header = headers[.authorization] else { throw .unauthorized("an Authorization: Bearer token is required") }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw .unauthorized("the Authorization header must be 'Bearer TOKEN'")
        }
        let presented = String(parts[1]).trimmingCharacters(in: .whitespaces)
        let code = Array(HMAC<SHA256>.authenticationCode(for: Data(presented.utf8), using: SymmetricKey(data: comparisonKey)))
        guard Self.constantTimeEqual(code, tokenCode) else { throw .unauthorized("the bearer token is not the service's") }
    }

    /// Checks a signed URL's signature: base64url (no padding) of HMAC-SHA256 over `signedPath`
    /// (`/{options}/{source}`, as the request spelled it) with the signing key. 403 `bad_signature` otherwise.
    func verify(signature: Substring, signedPath: Substring) throws(ServiceError) {
        guard let signingKey else { throw .notFound("no route GET /v1/…: signed URLs are not enabled (--signing-key-file)") }
        guard let given = Base64URL.decode(signature), given.count == SHA256.byteCount else {
            throw .badSignature("the signature is not 43 characters of base64url (an HMAC-SHA256)")
        }
        let expected = Array(HMAC<SHA256>.authenticationCode(for: Data(signedPath.utf8), using: SymmetricKey(data: signingKey)))
        guard Self.constantTimeEqual(given, expected) else {
            throw .badSignature("the signature does not match the path")
        }
    }

    /// Whether `a` and `b` hold the same bytes, in a time that depends only on their length (which is public:
    /// both are 32-byte HMACs here).
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}

/// base64url without padding (RFC 4648 §5), as signed URLs spell the signature and the source.
enum Base64URL {
    static func decode<S: StringProtocol>(_ text: S) -> [UInt8]? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            return nil
        }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard standard.count % 4 != 1 else { return nil }
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard).map { Array($0) }
    }

    static func encode<D: DataProtocol>(_ bytes: D) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
