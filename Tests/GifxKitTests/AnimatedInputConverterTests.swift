import Foundation
import GifFixtures
import GifxKit
import Testing

/// Issue 35 at the library level: `GifConverter` takes an animated WebP and an APNG like a GIF, through the
/// same `GifInput`, and converts each to an MP4 and a sprite sheet in one run. The fixtures are made here:
/// the APNG by GifFixtures' chunk writer, `PNGWriter` (stored deflate, CRC-32 and Adler-32 written out, no gifx code),
/// the WebP by libwebp's `img2webp` from PNG frames of the same writer. The schedules are worked by hand from
/// the player table (flanimated: YYImage, a delay under 11 ms becomes 100 ms, fractions kept), and
/// the MP4s are read back by ffprobe.
@Suite(.enabled(if: AnimatedInputTools.available, "needs ffprobe and img2webp (make deps: ffmpeg, webp)"))
struct AnimatedInputConverterTests {
    static let colours: [[UInt8]] = [[255, 0, 0, 255], [0, 0, 255, 255], [0, 255, 0, 255], [255, 255, 0, 255]]
    static let (width, height) = (8, 6)

    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gifxkit-animated-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func apngConvertsToMP4AndSheetOnItsOwnSchedule() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Delays 1/30, 1/30, 1/15 s and 5/100 s: 33.3…, 33.3…, 66.6…, 50 ms. Exact in 1/3000 s (the lcm of
        // 1000 and the denominators): 100, 100, 200, 150 units; tick gcd = 50 units = 1/60 s; 550 units.
        let path = folder.appendingPathComponent("in.png")
        try PNGWriter.apng(
            width: Self.width, height: Self.height, frames: Self.colours.map { PNGWriter.solid(Self.width, Self.height, $0) },
            delays: [(1, 30), (1, 30), (1, 15), (5, 100)]
        ).write(to: path)

        let converter = GifConverter()
        let timeline = try converter.timeline(of: .path(path.path))
        #expect(timeline.format == .apng)
        #expect(timeline.timescale == 3000)
        #expect(timeline.frames.map(\.delay) == [100, 100, 200, 150])
        #expect(timeline.frames.map(\.start) == [0, 100, 200, 400])
        #expect(timeline.tick.units == 50, "the tick, in the timeline's units (1/3000 s)")
        #expect(timeline.duration.units == 550)
        #expect(timeline.loop.plays == nil, "acTL num_plays 0: forever")

        let mp4 = folder.appendingPathComponent("out.mp4").path
        let report = try await converter.convert(
            .path(path.path),
            to: [
                .video(target: .file(mp4), options: VideoSettings(preset: "ultrafast")),
                .spriteSheet(SpriteOptions(
                    png: .file(folder.appendingPathComponent("sheet.png").path),
                    json: .file(folder.appendingPathComponent("sheet.json").path))),
            ])
        #expect(report.frames == 4)
        // 60 fps (the tick) for 11/60 s: 11 samples; ffprobe reads the rate, the count and the duration.
        let probe = try AnimatedInputTools.ffprobe(mp4)
        #expect(probe.rate == "60/1")
        #expect(probe.frames == 11)
        #expect(abs(probe.duration - 11.0 / 60) < 0.001, "duration \(probe.duration) s")
        try Self.expectSheet(folder, frames: 4)
    }

    @Test func webPConvertsToMP4AndSheetOnItsOwnSchedule() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Delays 40, 60, 5 and 20 ms: 5 ms becomes 100 ms (under 11 ms); tick gcd(40, 60, 100, 20) = 20 ms
        // (50 fps); 220 ms in all.
        var arguments = ["-loop", "0", "-lossless"]
        for (index, (colour, delay)) in zip(Self.colours, [40, 60, 5, 20]).enumerated() {
            let frame = folder.appendingPathComponent("f\(index).png")
            try PNGWriter.still(width: Self.width, height: Self.height, pixels: PNGWriter.solid(Self.width, Self.height, colour))
                .write(to: frame)
            arguments += ["-d", "\(delay)", frame.path]
        }
        let path = folder.appendingPathComponent("in.webp")
        try AnimatedInputTools.run(AnimatedInputTools.img2webp!, arguments + ["-o", path.path])

        let converter = GifConverter()
        let timeline = try converter.timeline(of: .bytes(try Data(contentsOf: path)))
        #expect(timeline.format == .webp)
        #expect(timeline.timescale == 1000)
        #expect(timeline.frames.map(\.rawDelay) == [40, 60, 5, 20])
        #expect(timeline.frames.map(\.delay) == [40, 60, 100, 20])
        #expect(timeline.tick.units == 20, "the tick, in ms")
        #expect(timeline.duration.units == 220)

        let mp4 = folder.appendingPathComponent("out.mp4").path
        let report = try await converter.convert(
            .path(path.path),
            to: [
                .video(target: .file(mp4), options: VideoSettings(preset: "ultrafast")),
                .spriteSheet(SpriteOptions(
                    png: .file(folder.appendingPathComponent("sheet.png").path),
                    json: .file(folder.appendingPathComponent("sheet.json").path))),
            ])
        #expect(report.frames == 4)
        // 50 fps for 0.22 s: 11 samples.
        let probe = try AnimatedInputTools.ffprobe(mp4)
        #expect(probe.rate == "50/1")
        #expect(probe.frames == 11)
        #expect(abs(probe.duration - 0.22) < 0.001, "duration \(probe.duration) s")
        try Self.expectSheet(folder, frames: 4)
    }

    /// The sheet's PNG is a PNG of whole cells and its JSON names one entry per frame.
    static func expectSheet(_ folder: URL, frames: Int) throws {
        let png = try Data(contentsOf: folder.appendingPathComponent("sheet.png"))
        #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        let sheetWidth = png[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let sheetHeight = png[20..<24].reduce(0) { $0 << 8 | Int($1) }
        #expect(sheetWidth % width == 0 && sheetHeight % height == 0)
        #expect((sheetWidth / width) * (sheetHeight / height) >= frames)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("sheet.json")))
        let entries = (json as? [String: Any])?["frames"]
        let count = (entries as? [Any])?.count ?? (entries as? [String: Any])?.count
        #expect(count == frames, "sheet JSON frames: \(String(describing: entries))")
    }
}

/// ffprobe and img2webp, found on PATH.
enum AnimatedInputTools {
    static func find(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            let path = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }
    static let ffprobePath = find("ffprobe")
    static let img2webp = find("img2webp")
    static var available: Bool { ffprobePath != nil && img2webp != nil }

    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "\(tool) exited \(process.terminationStatus)"])
        }
        return data
    }

    /// The first video stream's average frame rate, counted frames and the container's duration.
    static func ffprobe(_ path: String) throws -> (rate: String, frames: Int, duration: Double) {
        let data = try run(ffprobePath!, [
            "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
            "stream=r_frame_rate,nb_read_frames:format=duration", "-of", "json", path,
        ])
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let stream = try #require((json["streams"] as? [[String: Any]])?.first)
        let format = try #require(json["format"] as? [String: Any])
        return (
            stream["r_frame_rate"] as? String ?? "", Int(stream["nb_read_frames"] as? String ?? "") ?? -1,
            Double(format["duration"] as? String ?? "") ?? -1
        )
    }
}
