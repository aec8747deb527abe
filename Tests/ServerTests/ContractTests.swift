import Foundation
import GifxServer
import NIOHTTP1
import Testing

/// What docs/openapi.yaml promises beside the routes' own answers (issue 50): a known path asked with another
/// method is 405 with `Allow` and the JSON error; an `X-Request-Id` outside the spec's limits is 400 on the /v1
/// routes; each format's Content-Type on the object route, whole and in a range. `make api-check` runs
/// schemathesis over the whole spec; these pin the answers it found wrong.
@Suite(.serialized) struct ContractTests {
    @Test func aKnownPathWithAnotherMethodIs405WithAllow() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let server = try await RunningServer.start(ServerTests.configuration(cache))
        let key = String(repeating: "ab", count: 32)
        for (method, path, allow) in [
            (HTTPMethod.TRACE, "/healthz", "GET"), (.POST, "/metrics", "GET"), (.DELETE, "/readyz", "GET"),
            (.GET, "/v1/convert", "POST"), (.PUT, "/v1/convert", "POST"), (.DELETE, "/v1/o/\(key)", "GET"),
            (.POST, "/v1/o/\(key)/json", "GET"), (.HEAD, "/healthz", "GET"), (.OPTIONS, "/v1/a/b/c", "GET"),
        ] {
            let reply = try await server.send(method, path)
            #expect(reply.status == 405, "\(method) \(path): \(reply.status)")
            #expect(reply.header("Allow") == allow, "\(method) \(path)")
            if method != .HEAD {
                #expect(reply.code == "method_not_allowed", "\(method) \(path)")
                #expect(reply.header("Content-Type") == "application/json")
            }
        }
        // A path no route has stays 404, whatever the method; the routes themselves still answer.
        #expect(try await server.send(.TRACE, "/nowhere").code == "not_found")
        #expect(try await server.send(.GET, "/v1/convert/more").code == "not_found")
        #expect(try await server.send(.GET, "/healthz").status == 200)
        #expect(try await server.send(.POST, "/v1/convert?format=timeline", body: ServerTests.gif).status == 200)
        // Counted as answered, under their status.
        let metrics = String(decoding: try await server.send(.GET, "/metrics").body, as: UTF8.self)
        #expect(metrics.contains("status=\"405\""), "\(metrics)")
        try await server.stop()
    }

    @Test func aRequestIDOutsideTheSpecsLimitsIs400OnTheAPIRoutes() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let server = try await RunningServer.start(ServerTests.configuration(cache))
        let longest = String(repeating: "r", count: 128)
        let accepted = try await server.send(.POST, "/v1/convert?format=timeline", body: ServerTests.gif, headers: [("X-Request-Id", longest)])
        #expect(accepted.status == 200)
        for given in [longest + "r", "two words", "caf\u{e9}"] {
            let reply = try await server.send(
                .POST, "/v1/convert?format=timeline", body: ServerTests.gif, headers: [("X-Request-Id", given)])
            #expect(reply.status == 400 && reply.code == "bad_request_id", "\(given): \(reply.status)")
            #expect(reply.header("X-Request-Id") != nil && reply.header("X-Request-Id") != given)
            let object = try await server.send(.GET, "/v1/o/\(String(repeating: "0", count: 64))", headers: [("X-Request-Id", given)])
            #expect(object.status == 400 && object.code == "bad_request_id")
        }
        // The probes never refuse a request for a header.
        #expect(try await server.send(.GET, "/healthz", headers: [("X-Request-Id", longest + "r")]).status == 200)
        #expect(try await server.send(.GET, "/readyz", headers: [("X-Request-Id", "two words")]).status == 200)
        try await server.stop()
    }

    @Test func theObjectRouteSendsEachFormatsContentType() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let server = try await RunningServer.start(ServerTests.configuration(cache))
        let kinds = [("webp", "image/webp"), ("apng", "image/apng"), ("jpg", "image/jpeg"), ("sheet", "image/png"), ("timeline", "application/json")]
        for (format, type) in kinds {
            let converted = try await server.send(.POST, "/v1/convert?format=\(format)", body: ServerTests.gif)
            #expect(converted.status == 200 && converted.header("Content-Type") == type, "\(format)")
            let key = try #require(converted.header("X-Gifx-Key"))
            let whole = try await server.send(.GET, "/v1/o/\(key)")
            #expect(whole.status == 200 && whole.header("Content-Type") == type && whole.body == converted.body, "\(format)")
            let part = try await server.send(.GET, "/v1/o/\(key)", headers: [("Range", "bytes=0-3")])
            #expect(part.status == 206 && part.header("Content-Type") == type && part.body == converted.body.prefix(4), "\(format)")
            let outside = try await server.send(.GET, "/v1/o/\(key)", headers: [("Range", "bytes=\(converted.body.count)-")])
            #expect(outside.status == 416 && outside.code == "range_not_satisfiable")
            #expect(outside.header("Content-Range") == "bytes */\(converted.body.count)")
            if format == "apng" {
                // An animated PNG: PNG's signature, then an acTL chunk before the first IDAT (APNG's own rule).
                let body = [UInt8](converted.body)
                #expect(body.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
                let text = String(decoding: body, as: Unicode.ASCII.self)
                let acTL = try #require(text.range(of: "acTL")), idat = try #require(text.range(of: "IDAT"))
                #expect(acTL.lowerBound < idat.lowerBound)
            }
        }
        try await server.stop()
    }
}
