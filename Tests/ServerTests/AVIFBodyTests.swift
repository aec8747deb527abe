import ChildProcesses
import Foundation
import Testing

/// `gifx serve` takes an AVIF body (issue 59), sniffed by its `ftyp` brands like every input whatever the
/// Content-Type: the timeline it answers is avifenc's own `--duration` values in the file's timescale.
@Suite(.serialized) struct AVIFBodyTests {
    @Test(.enabled(if: oracleAvailable("avifenc", "python3"), "avifenc (libavif-bin) or python3 is not installed"))
    func anAVIFBodyIsReadOnItsOwnTimescale() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        // Two 16×16 frames (Pillow-free: avifenc reads the PNGs python3's zlib writes) of 30 and 50 ms at 1/1000 s.
        let script = """
            import struct, sys, zlib
            def png(path, rgb):
                raw = b''.join(b'\\x00' + bytes(rgb) * 16 for _ in range(16))
                def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
                open(path, 'wb').write(b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 16, 16, 8, 2, 0, 0, 0))
                    + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))
            png(sys.argv[1] + '/a.png', (255, 0, 0)); png(sys.argv[1] + '/b.png', (0, 0, 255))
            """
        #expect(try CapturedRun.run(tool("python3"), ["-c", script, cache]).status == 0)
        let avif = cache + "/in.avif"
        let encode = try CapturedRun.run(tool("avifenc"), [
            "-s", "10", "-j", "1", "--timescale", "1000", "--duration", "30", cache + "/a.png", "--duration", "50",
            cache + "/b.png", "-o", avif,
        ])
        #expect(encode.status == 0, "\(String(decoding: encode.stderr, as: UTF8.self))")
        let server = try await RunningServer.start(ServerTests.configuration(cache))
        let reply = try await server.send(
            .POST, "/v1/convert?format=timeline", body: try Data(contentsOf: URL(fileURLWithPath: avif)),
            headers: [("Content-Type", "image/avif")])
        try await server.stop()
        #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
        let json = reply.json
        #expect(json["format"] as? String == "avif")
        #expect(json["timescale"] as? Int == 1000)
        #expect((json["frames"] as? [[String: Any]])?.compactMap { $0["delay"] as? Int } == [30, 50])
    }
}
