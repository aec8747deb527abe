import Foundation
import GifFixtures
import GifxServer
import Testing

/// A refused video plan in the query's words (issue 49): the library states the facts, the service names its
/// own parameters (`fps=vfr`, `format=webp`), never the command line's flags (`--vfr`, `.webp`). The inputs are
/// those of TinyVideoTests, which holds the CLI's wording of the same refusals: one 1x1 frame of 3.39 s.
@Suite(.serialized) struct PlanErrorWordingTests {
    @Test func aRefusedPlanNamesTheQuerysParametersNotTheCommandLinesFlags() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let gif = try FixtureGIF.solidFrames(width: 1, height: 1, colorIndices: [3], delays: [339]).encode()
        let server = try await RunningServer.start(ServerTests.configuration(cache))
        // AV1 under 64 pixels a side is libaom, which takes frames of at most 1 s at a constant rate (the tick).
        let av1 = try await server.send(.POST, "/v1/convert?format=mp4&codec=av1", body: gif)
        // An AVIF of one frame (VFR, AVIF's default timing, keeps the one frame).
        let avif = try await server.send(.POST, "/v1/convert?format=avif", body: gif)
        try await server.stop()

        #expect(av1.status == 400 && av1.code == "bad_query", "\(av1.json)")
        #expect(av1.json["message"] as? String == "libaom-av1 (AV1 under 64 pixels a side) takes frames of at most "
            + "1 s at a constant rate, and this one is 3.39 s: use fps=vfr, or fps=1 or faster")
        #expect(avif.status == 400 && avif.code == "bad_query", "\(avif.json)")
        #expect(avif.json["message"] as? String == "an AVIF of one frame is a still image, which FFmpeg 5.1 writes "
            + "without the track its own reader needs: ask for format=webp or format=jpg instead")
        #expect(leftovers(in: cache).isEmpty, "\(leftovers(in: cache))")
    }
}
