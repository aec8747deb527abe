import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

#if canImport(Glibc)
import Glibc
#endif

/// An origin a signed URL may fetch from (`--origin https://host[:port]`): a scheme, a host and a port, compared
/// exactly (the host without case). A redirect to any other origin is refused.
package struct AllowedOrigin: Sendable, Hashable, CustomStringConvertible {
    package var scheme: String
    package var host: String
    package var port: Int

    /// `http://host`, `https://host:8443`, `http://127.0.0.1:8081`, `http://[::1]:8081`; nothing after the port.
    package init?(_ text: String) {
        guard let url = URL(string: text), let origin = AllowedOrigin(url: url),
              url.path.isEmpty || url.path == "/", url.query == nil, url.fragment == nil, url.user == nil
        else { return nil }
        self = origin
    }

    /// The origin of an absolute http(s) URL.
    init?(url: URL) {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              var host = url.host?.lowercased(), !host.isEmpty, url.user == nil, url.password == nil
        else { return nil }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.scheme = scheme
        self.host = host
        port = url.port ?? (scheme == "https" ? 443 : 80)
    }

    package var description: String {
        "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    /// Whether the host is an IP address written out (listed by its address, not by a name).
    var isAddressLiteral: Bool { IPAddress(host) != nil }
}

/// An IPv4 or IPv6 address, parsed with inet_pton, and whether it is on the public internet.
struct IPAddress: Sendable, CustomStringConvertible {
    /// 4 or 16 bytes.
    let bytes: [UInt8]

    init?(_ text: String) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
        } else {
            return nil
        }
    }

    init(bytes: [UInt8]) { self.bytes = bytes }

    var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var copy = bytes
        _ = inet_ntop(bytes.count == 4 ? AF_INET : AF_INET6, &copy, &buffer, socklen_t(buffer.count))
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Not loopback, private (RFC 1918, unique local), shared (100.64/10), link-local, unspecified, multicast,
    /// benchmarking, documentation or reserved; an IPv4-mapped IPv6 address is judged by its IPv4 address.
    var isPublic: Bool {
        if bytes.count == 16 {
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
                return IPAddress(bytes: Array(bytes[12..<16])).isPublic
            }
            if bytes[0..<15].allSatisfy({ $0 == 0 }) { return false }  // :: and ::1
            if bytes[0] & 0xfe == 0xfc { return false }  // fc00::/7 unique local
            if bytes[0] == 0xfe && bytes[1] & 0xc0 == 0x80 { return false }  // fe80::/10 link-local
            if bytes[0] == 0xfe && bytes[1] & 0xc0 == 0xc0 { return false }  // fec0::/10 site-local (deprecated)
            if bytes[0] == 0xff { return false }  // multicast
            if bytes[0...3] == [0x20, 0x01, 0x0d, 0xb8] { return false }  // documentation
            return true
        }
        let (a, b) = (bytes[0], bytes[1])
        switch a {
        case 0, 10, 127: return false
        case 100 where b & 0xc0 == 64: return false  // 100.64/10 shared address space
        case 169 where b == 254: return false  // link-local (cloud metadata services)
        case 172 where b & 0xf0 == 16: return false
        case 192 where b == 168: return false
        case 192 where b == 0 && bytes[2] == 0: return false  // 192.0.0/24 protocol assignments
        case 198 where b & 0xfe == 18: return false  // benchmarking
        case 224...255: return false  // multicast, reserved, broadcast
        default: return true
        }
    }

    /// Every address `host` resolves to (getaddrinfo, TCP), in its order.
    static func resolve(_ host: String, port: Int) -> [IPAddress]? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(list) }
        var addresses: [IPAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let item = entry {
            if let address = item.pointee.ai_addr {
                switch Int32(address.pointee.sa_family) {
                case AF_INET:
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                        var raw = v4.pointee.sin_addr
                        addresses.append(IPAddress(bytes: withUnsafeBytes(of: &raw) { Array($0) }))
                    }
                case AF_INET6:
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                        var raw = v6.pointee.sin6_addr
                        addresses.append(IPAddress(bytes: withUnsafeBytes(of: &raw) { Array($0) }))
                    }
                default: break
                }
            }
            entry = item.pointee.ai_next
        }
        return addresses
    }
}

/// Fetches a signed URL's source (docs/serve.md, "Signed URLs"): only from the allowed origins, following a
/// redirect only to an allowed origin, refusing a name that resolves to a non-public address (an origin listed
/// by its address is fetched from it whatever its range), connecting to the very address that was checked,
/// counting the body as it streams, and all within the origin timeout.
struct SourceFetcher: Sendable {
    let origins: Set<AllowedOrigin>
    let maxBytes: Int
    let timeout: Duration
    let maxRedirects: Int

    func fetch(_ source: URL) async throws -> Data {
        try await withDeadline(
            timeout, orThrow: .originTimeout("the origin did not deliver the source within \(timeout.components.seconds) s (--origin-timeout)")
        ) {
            try await self.fetchFollowingRedirects(source)
        }
    }

    private func fetchFollowingRedirects(_ source: URL) async throws -> Data {
        var url = source
        for hop in 0...maxRedirects {
            guard let origin = AllowedOrigin(url: url) else {
                throw hop == 0
                    ? ServiceError.badSource("the source must be an absolute http or https URL")
                    : ServiceError.redirectRefused("the origin redirected to \(url.absoluteString), not an http or https URL")
            }
            guard origins.contains(origin) else {
                throw hop == 0
                    ? ServiceError.originNotAllowed("\(origin) is not an allowed origin (--origin)")
                    : ServiceError.redirectRefused("the origin redirected to \(origin), which is not an allowed origin (--origin)")
            }
            switch try await get(url, origin: origin) {
            case .body(let data): return data
            case .redirect(let location):
                guard let next = URL(string: location, relativeTo: url)?.absoluteURL else {
                    throw ServiceError.redirectRefused("the origin redirected to '\(location)', not a URL")
                }
                url = next
            }
        }
        throw ServiceError.redirectRefused("the origin redirected more than \(maxRedirects) times")
    }

    private enum Answer { case body(Data), redirect(String) }

    /// One request to `origin`, on a client of its own whose connection goes to the address checked here.
    private func get(_ url: URL, origin: AllowedOrigin) async throws -> Answer {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.timeout = .init(connect: TimeAmount(timeout), read: TimeAmount(timeout))
        configuration.decompression = .disabled
        if !origin.isAddressLiteral {
            let host = origin.host
            let port = origin.port
            let addresses = try await offThePool { IPAddress.resolve(host, port: port) ?? [] }
            guard let first = addresses.first else { throw ServiceError.originError("cannot resolve \(origin.host)") }
            if let refused = addresses.first(where: { !$0.isPublic }) {
                throw ServiceError.privateAddress(
                    "\(origin.host) resolves to \(refused), which is not a public address; list the origin by its address to allow it")
            }
            configuration.dnsOverride = [origin.host: first.description]
        }
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let answer = try await exchange(client, url)
            try? await client.shutdown()
            return answer
        } catch {
            try? await client.shutdown()
            throw Self.mapped(error, origin: origin)
        }
    }

    private func exchange(_ client: HTTPClient, _ url: URL) async throws -> Answer {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .GET
        request.headers.add(name: "User-Agent", value: "gifx-serve")
        let response = try await client.execute(request, timeout: TimeAmount(timeout))
        let status = Int(response.status.code)
        if [301, 302, 303, 307, 308].contains(status) {
            guard let location = response.headers.first(name: "Location") else {
                throw ServiceError.originError("the origin answered \(status) without a Location")
            }
            return .redirect(location)
        }
        guard (200..<300).contains(status) else { throw ServiceError.originError("the origin answered \(status)") }
        if let length = response.headers.first(name: "Content-Length").flatMap({ Int($0) }), length > maxBytes {
            throw ServiceError.sourceTooLarge(limit: maxBytes)
        }
        var data = Data()
        for try await chunk in response.body {
            guard data.count + chunk.readableBytes <= maxBytes else { throw ServiceError.sourceTooLarge(limit: maxBytes) }
            data.append(contentsOf: chunk.readableBytesView)
        }
        return .body(data)
    }

    /// The client's failures in the service's codes: timeouts 504, anything else 502.
    private static func mapped(_ error: any Error, origin: AllowedOrigin) -> any Error {
        if error is ServiceError || error is CancellationError { return error }
        if let error = error as? HTTPClientError {
            if [.connectTimeout, .readTimeout, .deadlineExceeded, .tlsHandshakeTimeout].contains(error) {
                return ServiceError.originTimeout("\(origin) did not answer in time (--origin-timeout): \(error)")
            }
            if error == .cancelled { return CancellationError() }
        }
        return ServiceError.originError("cannot fetch from \(origin): \(error)")
    }
}
