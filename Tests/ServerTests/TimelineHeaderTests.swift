import ChildProcesses
import Foundation
import GifFixtures
import GifxKit
import GifxServer
import Testing

/// `X-Gifx-Timeline` for every input format (issue 49: a WebP's ms were read as cs, so a 0.245 s WebP said
/// `duration=2.45`). The inputs are made here: the GIF by giflib, the APNG by GifFixtures' chunk writer
/// (`PNGWriter`, no gifx code), the WebP by libwebp's `img2webp` from that writer's PNG frames. The expected
/// headers are worked out by hand from the delays (flanimated, the service's policy: nothing here is under
/// 11 ms), then held against the Timeline library's reading of the same bytes (what `gifx timeline --json`
/// prints) and against ffprobe's duration of the MP4 the service made.
///
/// - GIF 4, 8, 6, 10 cs: tick gcd 2 cs, 28 cs: `duration=0.28, tick=0.02`.
/// - WebP 40, 70, 35, 100 ms: tick gcd 5 ms, 245 ms: `duration=0.245, tick=0.005` (not `2.45`, `0.05`).
/// - APNG 1/30, 1/30, 1/15, 5/100 s: exact in 1/3000 s (lcm of 1000 and the denominators): 100, 100, 200,
///   150 units; tick gcd 50 units = 1/60 s = 0.016666… s, 550 units = 0.183333… s, both to the microsecond.
@Suite(.serialized, .enabled(if: oracleAvailable("img2webp", "ffprobe"), "needs img2webp and ffprobe (make deps: webp, ffmpeg)"))
struct TimelineHeaderTests {
    static let colours: [[UInt8]] = [[255, 0, 0, 255], [0, 0, 255, 255], [0, 255, 0, 255], [255, 255, 0, 255]]
    static let (width, height) = (8, 6)

    struct Case {
        let name: String
        let body: Data
        let header: String
    }

    static func cases(in folder: String) throws -> [Case] {
        let gif = try FixtureGIF.solidFrames(
            width: width, height: height, colorIndices: [1, 2, 3, 4], delays: [4, 8, 6, 10]).encode()
        let apng = PNGWriter.apng(
            width: width, height: height, frames: colours.map { PNGWriter.solid(width, height, $0) },
            delays: [(1, 30), (1, 30), (1, 15), (5, 100)])
        var arguments = ["-loop", "0", "-lossless"]
        for (index, (colour, delay)) in zip(colours, [40, 70, 35, 100]).enumerated() {
            let frame = folder + "/f\(index).png"
            try PNGWriter.still(width: width, height: height, pixels: PNGWriter.solid(width, height, colour))
                .write(to: URL(fileURLWithPath: frame))
            arguments += ["-d", "\(delay)", frame]
        }
        let webpPath = folder + "/in.webp"
        let run = try CapturedRun.run(tool("img2webp"), arguments + ["-o", webpPath])
        guard run.status == 0 else { throw TestFailure("img2webp: \(run.stderrText)") }
        let webp = try Data(contentsOf: URL(fileURLWithPath: webpPath))
        return [
            Case(name: "GIF", body: gif, header: "frames=4, duration=0.28, tick=0.02"),
            Case(name: "WebP", body: webp, header: "frames=4, duration=0.245, tick=0.005"),
            Case(name: "APNG", body: apng, header: "frames=4, duration=0.183333, tick=0.016667"),
        ]
    }

    @Test func theHeaderIsTheInputsScheduleInSecondsForGIFWebPAndAPNG() async throws {
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let server = try await RunningServer.start(ServerTests.configuration(cache))
        var replies: [(Case, RunningServer.Reply)] = []
        do {
            for input in try Self.cases(in: cache) {
                replies.append((input, try await server.send(.POST, "/v1/convert?format=mp4", body: input.body)))
            }
        } catch {
            try await server.stop()
            throw error
        }
        try await server.stop()

        for (input, reply) in replies {
            #expect(reply.status == 200, "\(input.name): \(String(decoding: reply.body, as: UTF8.self))")
            #expect(reply.header("X-Gifx-Timeline") == input.header, "\(input.name)")

            // The Timeline library's reading of the same bytes (`gifx timeline --json`): its frame count, and
            // its duration and tick in units of 1/timescale s, to the microsecond.
            let timeline = try GifConverter().timeline(of: .bytes(input.body))
            let fields = Self.fields(reply.header("X-Gifx-Timeline") ?? "")
            #expect(fields["frames"] == "\(timeline.frames.count)", "\(input.name)")
            let duration = try #require(fields["duration"].flatMap(Double.init), "\(input.name)")
            let tick = try #require(fields["tick"].flatMap(Double.init), "\(input.name)")
            let scale = Double(timeline.timescale)
            #expect(abs(duration - Double(timeline.duration.units) / scale) <= 0.5e-6, "\(input.name)")
            #expect(abs(tick - Double(timeline.tick.units) / scale) <= 0.5e-6, "\(input.name)")

            // The MP4 the service made lasts what the header says (ffprobe, independent of gifx): the video
            // track's duration, in the track's own timescale (the movie header's is whole ms, 0.184 for 11/60 s).
            let path = try ServerTests.write(reply.body, "\(input.name).mp4", in: cache)
            let probe = try CapturedRun.run(tool("ffprobe"), [
                "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=duration", "-of", "default=nw=1:nk=1", path,
            ]).stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
            let probed = try #require(Double(probe), "\(input.name): ffprobe said \(probe)")
            #expect(abs(probed - duration) <= 1e-6, "\(input.name): ffprobe \(probe) s")
        }
    }

    /// `frames=4, duration=0.28, tick=0.02` as `["frames": "4", "duration": "0.28", "tick": "0.02"]`.
    static func fields(_ header: String) -> [String: String] {
        var fields: [String: String] = [:]
        for item in header.split(separator: ",") {
            let pair = item.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if pair.count == 2 { fields[String(pair[0])] = String(pair[1]) }
        }
        return fields
    }
}
