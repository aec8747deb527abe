import ChildProcesses
import Foundation
import GifFixtures
import GifxServer
import Testing

/// The bearer token: every /v1 route but the signed form needs it; the probes and metrics stay open.
@Suite(.serialized) struct BearerTokenTests {
    static let token = "s3cret-T0ken_for.gifx~serve"

    @Test func everyV1RouteNeedsTheTokenAndTheProbesDoNot() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        var configuration = ServerTests.configuration(cache)
        configuration.bearerToken = Self.token
        let server = try await RunningServer.start(configuration)

        func expect401(_ reply: RunningServer.Reply, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(reply.status == 401, "\(reply.status) \(reply.json)", sourceLocation: sourceLocation)
            #expect(reply.code == "unauthorized", sourceLocation: sourceLocation)
            #expect(reply.header("WWW-Authenticate") == "Bearer", sourceLocation: sourceLocation)
            #expect(reply.header("Content-Type") == "application/json", sourceLocation: sourceLocation)
        }
        let convert = "/v1/convert?format=timeline"
        expect401(try await server.send(.POST, convert, body: ServerTests.gif))
        expect401(try await server.send(.POST, convert, body: ServerTests.gif, headers: [("Authorization", "Bearer wrong")]))
        expect401(try await server.send(.POST, convert, body: ServerTests.gif, headers: [("Authorization", "Bearer \(Self.token)x")]))
        expect401(try await server.send(.POST, convert, body: ServerTests.gif, headers: [("Authorization", "Basic \(Self.token)")]))
        // A bad query is not answered before the token is checked.
        expect401(try await server.send(.POST, "/v1/convert?format=gif", body: ServerTests.gif))
        #expect(try await server.metric("gifx_conversions_total{format=\"timeline\"}") == 0)

        let made = try await server.send(.POST, convert, body: ServerTests.gif, headers: [("Authorization", "Bearer \(Self.token)")])
        #expect(made.status == 200)
        let key = try #require(made.header("X-Gifx-Key"))
        // The scheme is case-insensitive (RFC 9110).
        let lower = try await server.send(.GET, "/v1/o/\(key)", headers: [("Authorization", "bearer \(Self.token)")])
        #expect(lower.status == 200 && lower.body == made.body)
        expect401(try await server.send(.GET, "/v1/o/\(key)"))
        expect401(try await server.send(.GET, "/v1/o/\(key)/json"))
        for open in ["/healthz", "/readyz", "/metrics"] {
            #expect(try await server.send(.GET, open).status == 200, "\(open)")
        }
        try await server.stop()
    }
}

/// Edits in the query: the command line's edit options, read by the same parser, worded the query's way, and
/// part of the cache key. Expected schedules come from the fixture's delays (4, 8, 6, 10 cs) and docs/edits.md.
@Suite(.serialized) struct QueryEditTests {
    /// webpmux's frame durations, in ms.
    static func webPDurations(_ body: Data, in folder: String) throws -> (canvas: String, durations: [Int]) {
        let path = folder + "/edit-\(UUID().uuidString).webp"
        try body.write(to: URL(fileURLWithPath: path))
        let info = try CapturedRun.run(tool("webpmux"), ["-info", path]).stdoutText
        let canvas = info.split(separator: "\n").first { $0.hasPrefix("Canvas size:") }.map(String.init) ?? info
        let durations = info.split(separator: "\n").compactMap { line -> Int? in
            let fields = line.split(separator: " ")
            guard fields.count > 6, fields[0].hasSuffix(":"), Int(fields[0].dropLast()) != nil else { return nil }
            return Int(fields[6])
        }
        return (canvas, durations)
    }

    @Test(.enabled(if: oracleAvailable("webpmux", "ffprobe"), "webpmux and ffprobe, the oracles, are not installed"))
    func editsShapeTheOutput() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let server = try await RunningServer.start(ServerTests.configuration(cache))

        let boomerang = try await server.send(.POST, "/v1/convert?format=webp&boomerang", body: ServerTests.gif)
        #expect(boomerang.status == 200, "\(boomerang.json)")
        #expect(boomerang.header("X-Gifx-Timeline") == "frames=6, duration=0.42, tick=0.02")
        #expect(try Self.webPDurations(boomerang.body, in: cache).durations == [40, 80, 60, 100, 60, 80])

        let reversedFast = try await server.send(.POST, "/v1/convert?format=webp&reverse=1&speed=2", body: ServerTests.gif)
        #expect(reversedFast.status == 200, "\(reversedFast.json)")
        #expect(try Self.webPDurations(reversedFast.body, in: cache).durations == [50, 30, 40, 20])

        let cropped = try await server.send(.POST, "/v1/convert?format=webp&crop=16x12%2B8%2B6", body: ServerTests.gif)
        #expect(cropped.status == 200, "\(cropped.json)")
        #expect(try Self.webPDurations(cropped.body, in: cache).canvas == "Canvas size: 16 x 12")

        let cut = try await server.send(.POST, "/v1/convert?format=mp4&from=0.04&to=0.18", body: ServerTests.gif)
        #expect(cut.status == 200, "\(cut.json)")
        let path = cache + "/cut.mp4"
        try cut.body.write(to: URL(fileURLWithPath: path))
        let probe = try CapturedRun.run(tool("ffprobe"), [
            "-v", "error", "-select_streams", "v:0", "-count_frames",
            "-show_entries", "stream=nb_read_frames,duration", "-of", "default=nw=1", path,
        ]).stdoutText
        #expect(probe.contains("nb_read_frames=7") && probe.contains("duration=0.140000"), "\(probe)")
        try await server.stop()
        #expect(leftovers(in: cache).isEmpty, "\(leftovers(in: cache))")
    }

    @Test func theEditIsPartOfTheCacheKeyHoweverItIsSpelled() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let server = try await RunningServer.start(ServerTests.configuration(cache))
        func key(_ query: String) async throws -> String? {
            let reply = try await server.send(.POST, "/v1/convert?format=timeline\(query)", body: ServerTests.gif)
            #expect(reply.status == 200, "\(query): \(reply.json)")
            return reply.header("X-Gifx-Key")
        }
        let plain = try await key("")
        let cut = try await key("&from=0.1")
        let cutAgain = try await key("&from=0.10")
        let decimal = try await key("&speed=1.5")
        let fraction = try await key("&speed=3%2F2")
        let notReversed = try await key("&reverse=0")
        let reversed = try await key("&reverse")
        let reversedTrue = try await key("&reverse=true")
        #expect(plain != nil && plain != cut && cut == cutAgain)
        #expect(decimal == fraction && decimal != plain)
        #expect(notReversed == plain && reversed != plain && reversedTrue == reversed)
        try await server.stop()
    }

    /// The command line's texts with the options named as the query names them (`--from 0.125` there,
    /// `from=0.125` here; EditCommandTests checks the command line's).
    @Test func badEditsAre400WithTheCommandLinesWords() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let server = try await RunningServer.start(ServerTests.configuration(cache))
        let cases: [(query: String, message: String)] = [
            ("from=0.125", "from=0.125: GIF times are whole centiseconds; give at most 2 decimals (e.g. 0.12)"),
            ("from=-1", "from=-1: give seconds, e.g. 1.5 (0 or more)"),
            ("from=1&to=0.5", "to=0.50 must be after from=1.00"),
            ("from=5", "from=5.00 is at or after the end of the GIF (0.28 s)"),
            ("speed=fast", "speed=fast: give a positive number or fraction, e.g. 2, 1.5 or 3/2"),
            ("speed=300", "speed=300 leaves less than 1 cs of the 0.28 s schedule"),
            ("crop=64x64%2B0%2B0", "crop=64x64+0+0 reaches outside the 32x24 canvas"),
            ("crop=16x16", "crop=16x16: give WxH+X+Y in canvas pixels, e.g. 320x240+16+8"),
            ("crop=0x4%2B0%2B0", "crop=0x4+0+0: the width and height must be at least 1"),
            ("reverse=maybe", "'reverse=maybe': reverse is a switch: give reverse, reverse=1 or reverse=0"),
            ("from=1&from=2", "'from=2': from is given twice"),
        ]
        for (query, message) in cases {
            let reply = try await server.send(.POST, "/v1/convert?format=mp4&\(query)", body: ServerTests.gif)
            #expect(reply.status == 400 && reply.code == "bad_query", "\(query): \(reply.status) \(reply.json)")
            #expect(reply.json["message"] as? String == message, "\(query): \(reply.json)")
        }
        #expect(try await server.metric("gifx_conversions_total{format=\"mp4\"}") == 0)
        try await server.stop()
        #expect(leftovers(in: cache).isEmpty, "\(leftovers(in: cache))")
    }
}
