import Foundation
import GifxKit
import GifxTimeline
@testable import GifxServer
import Testing

/// The service reads a query once (issue 58, "One request per service request"): into a typed job,
/// `ConversionOrder`, which is what the cache key is made of and what goes to a worker, encoded once; the worker
/// decodes it and runs it as it is. Expected values are written from the query by hand.
struct ConversionOrderTests {
    static func job(_ order: ConversionOrder, in folder: String) -> ConversionJob {
        ConversionJob(
            input: folder + "/in.gif", order: order, output: folder + "/out.webp", description: folder + "/out.json",
            spool: nil, memoryBudget: 256 << 20, threads: 1, scratchFolder: folder)
    }

    /// The query's settings, edit and switches are typed in the order; the job's one JSON line carries that order
    /// (no query items) and decodes to the same job.
    @Test func theQueryIsReadOnceIntoATypedJobThatRoundTrips() throws {
        let query = try ConvertQuery(ConvertQuery.pairs(fromQuery: "format=WEBP&width=0016&quality=80&from=0.04&reverse"))
        let order = try #require(query.order)
        #expect(order.kind.name == "webp")
        #expect(order.settings.size == .width(16))
        #expect(order.settings.quality == 80)
        #expect(order.edit == TimelineEdit(from: 4, reverse: true))
        #expect(order.stream == false)
        #expect(order.canonicalText == "format=webp;width=16,quality=80.0;from=4,reverse")

        let job = Self.job(order, in: "/spool")
        let line = try JSONEncoder().encode(job)
        let object = try #require(try JSONSerialization.jsonObject(with: line) as? [String: Any])
        #expect(Set(object.keys) == ["input", "order", "output", "description", "memoryBudget", "threads", "scratchFolder"])
        let sent = try #require(object["order"] as? [String: Any])
        #expect(sent["format"] as? String == "webp")
        #expect(Set(sent.keys) == ["format", "settings", "edit", "stream"])
        let decoded = try JSONDecoder().decode(ConversionJob.self, from: line)
        #expect(decoded == job)
        #expect(decoded.order.canonicalText == order.canonicalText)
    }

    /// Every served kind, with and without a stream and an edit, comes back as itself.
    @Test func everyServedKindRoundTrips() throws {
        for kind in OutputKind.served {
            var settings = OutputSettings()
            settings.size = .scale(0.5)
            for order in [
                ConversionOrder(kind: kind),
                ConversionOrder(kind: kind, settings: settings, edit: TimelineEdit(speed: Rational(3, 2), boomerang: true), stream: kind.streams),
            ] {
                let decoded = try JSONDecoder().decode(ConversionOrder.self, from: try JSONEncoder().encode(order))
                #expect(decoded == order && decoded.kind.name == kind.name && decoded.canonicalText == order.canonicalText)
            }
        }
        let unknown = Data(#"{"format": "bmp", "settings": {}, "stream": false}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ConversionOrder.self, from: unknown) }
    }

    /// A worker process runs the order it is sent as it is: an order made in code (a reversed WebP, no query
    /// anywhere) comes back with the fixture's delays (4, 8, 6, 10 cs) reversed, as webpmux reads them.
    @Test(.enabled(if: workerBinary != nil && oracleAvailable("webpmux"), "the gifx binary or webpmux is missing"))
    func aWorkerRunsTheTypedJobAsSent() async throws {
        let binary = try #require(workerBinary)
        let folder = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try ServerTests.gif.write(to: URL(fileURLWithPath: folder + "/in.gif"))
        let workers = ServeWorkers(executable: binary, environment: ["SWIFT_BACKTRACE": "enable=no"], maxIdle: 1, crashed: { _ in })
        defer { workers.shutdown() }
        let job = Self.job(ConversionOrder(kind: try #require(OutputKind.served.first { $0.name == "webp" }), edit: TimelineEdit(reverse: true)), in: folder)
        _ = try await workers.convert(job)
        let output = try Data(contentsOf: URL(fileURLWithPath: job.output))
        #expect(try QueryEditTests.webPDurations(output, in: folder).durations == [100, 60, 80, 40])
    }
}
