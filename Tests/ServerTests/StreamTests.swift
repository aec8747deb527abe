import Foundation
import GifxServer
import Testing

/// Cached objects sent in chunks: judged against the cache's own file, byte for byte.
@Suite(.serialized) struct StreamTests {
    /// A cached object over several chunks (a sprite sheet of noise, over 1 MB) comes back byte for byte the file
    /// the cache holds, whole and in ranges that cross the chunks' boundaries.
    @Test func aLargeObjectIsSentInChunksByteForByte() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let noise = try noiseGIF(width: 320, height: 240, frames: 40, seed: 44)
        let server = try await RunningServer.start(ServerTests.configuration(cache))
        let made = try await server.send(.POST, "/v1/convert?format=sheet", body: noise)
        #expect(made.status == 200, "\(made.json)")
        let key = try #require(made.header("X-Gifx-Key"))
        let file = try Data(contentsOf: URL(fileURLWithPath: cache + "/objects/\(key).png"))
        #expect(file.count > 1 << 20, "\(file.count)")
        #expect(made.body == file)
        let whole = try await server.send(.GET, "/v1/o/\(key)")
        #expect(whole.status == 200 && whole.body == file && whole.header("Content-Length") == String(file.count))
        for (first, last) in [(0, (256 << 10) - 1), (100_000, 700_000), (file.count - 300_000, file.count - 1)] {
            let piece = try await server.send(.GET, "/v1/o/\(key)", headers: [("Range", "bytes=\(first)-\(last)")])
            #expect(piece.status == 206 && piece.body == file[first...last], "\(first)-\(last)")
            #expect(piece.header("Content-Length") == String(last - first + 1))
        }
        try await server.stop()
        #expect(leftovers(in: cache).isEmpty, "\(leftovers(in: cache))")
    }
}
