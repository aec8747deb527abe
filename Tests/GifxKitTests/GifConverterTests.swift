import Foundation
import GifFixtures
import GifxKit
import Testing

/// The library API as a Swift program sees it: inputs by path, descriptor or bytes; progress; a cancelled
/// Task leaving nothing behind; settings refused before any work. Expected values come from the fixture's
/// construction and timeline.md, not from gifx.
@Suite struct GifConverterTests {
    /// Raw delays 1 cs (sub-minimum: 10 cs), none (carries 10 cs), 6 cs: resolved 10, 10, 6; tick 2 cs.
    static let gif = FixtureGIF.solidFrames(width: 6, height: 4, colorIndices: [1, 2, 3], delays: [1, nil, 6])

    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gifxkit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func contents(_ folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    @Test func timelineFromPathDescriptorAndBytesIsTheSpecsSchedule() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = try Self.gif.encode()
        let path = folder.appendingPathComponent("in.gif")
        try data.write(to: path)
        let descriptor = open(path.path, O_RDONLY)
        #expect(descriptor >= 0)
        defer { close(descriptor) }

        let converter = GifConverter()
        for input in [GifInput.path(path.path), .fileDescriptor(descriptor), .bytes(data)] {
            let timeline = try converter.timeline(of: input)
            #expect(timeline.frames.map(\.delay) == [10, 10, 6])
            #expect(timeline.frames.map(\.rule) == [.roundedUp, .carried, .raw])
            #expect(timeline.tick.units == 2)
            #expect(timeline.duration.units == 26)
        }
    }

    @Test func aSpoolIsAPrivateCopyThatLastsAsLongAsItsBody() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = try Self.gif.encode()
        let spooled = try InputSpool.withPath(.bytes(data), scratchFolder: folder.path) { path in
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == data)
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
            #expect(mode == 0o600)
            #expect(try Self.contents(folder).count == 1)
            return path
        }
        #expect(!FileManager.default.fileExists(atPath: spooled))
        // Also when the body throws.
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try InputSpool.withPath(.bytes(data), scratchFolder: folder.path) { _ in throw Stop() }
        }
        #expect(try Self.contents(folder).isEmpty)
        // A path is read in place: nothing is copied, nothing removed.
        let original = folder.appendingPathComponent("in.gif")
        try data.write(to: original)
        #expect(try InputSpool.withPath(.path(original.path), scratchFolder: folder.path) { $0 } == original.path)
        #expect(try Self.contents(folder) == ["in.gif"])
    }

    /// `RunSettings.scratchFolder` is where a conversion keeps its private files: a copy of in-memory input lies
    /// there while the conversion runs, nothing is left after it, and a folder that cannot be written fails the
    /// run as an I/O error (where the environment's folder works).
    @Test func theScratchFolderIsTheConvertersConfiguration() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let scratch = folder.appendingPathComponent("scratch")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        var settings = RunSettings()
        settings.scratchFolder = scratch.path
        let seen = NameLog()
        _ = try await GifConverter(settings: settings).convert(
            .bytes(try Self.gif.encode()), to: [.poster(target: .file(folder.appendingPathComponent("a.png").path), frame: .index(0))]
        ) { _ in seen.append((try? Self.contents(scratch)) ?? []) }
        #expect(!seen.all.isEmpty)
        #expect(seen.all.allSatisfy { $0.count == 1 && $0[0].hasPrefix("gifx-input-") })
        #expect(try Self.contents(scratch).isEmpty)

        settings.scratchFolder = folder.appendingPathComponent("missing").path
        let poster = OutputRequest.poster(target: .file(folder.appendingPathComponent("b.png").path), frame: .index(0))
        do {
            _ = try await GifConverter(settings: settings).convert(.bytes(try Self.gif.encode()), to: [poster])
            Issue.record("a scratch folder that does not exist was used")
        } catch let error as any GifxError {
            #expect(error.failureClass == .io)
        }
        settings.scratchFolder = nil
        _ = try await GifConverter(settings: settings).convert(.bytes(try Self.gif.encode()), to: [poster])
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("b.png").path))
    }

    @Test func convertsBytesToVideoAndSheetWithProgress() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let seen = ProgressLog()
        let report = try await GifConverter().convert(
            .bytes(try Self.gif.encode()),
            to: [
                .video(target: .file(folder.appendingPathComponent("a.mp4").path), options: VideoSettings(preset: "ultrafast")),
                .spriteSheet(SpriteOptions(
                    png: .file(folder.appendingPathComponent("a.png").path),
                    json: .file(folder.appendingPathComponent("a.json").path))),
            ],
            progress: { seen.append($0) })
        #expect(report.frames == 3)
        #expect(report.outputs.count == 2)
        #expect(try Self.contents(folder) == ["a.json", "a.mp4", "a.png"])
        let updates = seen.all
        #expect(updates.map(\.canvasesDone) == Array(1...updates.count))
        #expect(updates.last?.canvasesDone == updates.last?.canvasesTotal)
        #expect(updates.last?.fraction == 1)
        guard let video = report.outputs.first as? VideoResult else {
            Issue.record("no video result: \(String(describing: report.outputs.first))")
            return
        }
        // Tick 2 cs: 13 samples of 50 fps for 26 cs.
        #expect(video.summary.outputFrames == 13)
    }

    @Test func cancellingTheTaskStopsTheRunAndLeavesNothing() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in.gif")
        try Self.gif.encode().write(to: input)
        let (reached, reachedSignal) = AsyncStream<Void>.makeStream()
        let gate = DispatchSemaphore(value: 0)
        let task = Task {
            try await GifConverter().convert(
                .path(input.path),
                to: [
                    .video(
                        target: .file(folder.appendingPathComponent("long.mp4").path),
                        options: VideoSettings(preset: "ultrafast", loops: 100)),
                    .webp(target: .file(folder.appendingPathComponent("long.webp").path), options: WebPOptions()),
                ],
                progress: { update in
                    guard update.canvasesDone == 5 else { return }
                    reachedSignal.yield()
                    gate.wait()  // the conversion thread holds here until the Task is cancelled
                })
        }
        for await _ in reached { break }
        task.cancel()
        gate.signal()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try Self.contents(folder) == ["in.gif"])
    }

    @Test func eventsEndWithTheReport() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var finished: ConversionReport?
        for try await event in GifConverter().events(
            .bytes(try Self.gif.encode()), to: [.timelineJSON(target: .file(folder.appendingPathComponent("t.json").path))])
        {
            if case .finished(let report) = event { finished = report }
        }
        #expect(finished?.frames == 3)
        #expect(try Self.contents(folder) == ["t.json"])
    }

    @Test func badSettingsAreRefusedBeforeAnyWork() async throws {
        let converter = GifConverter(settings: RunSettings(threads: 0))
        await #expect(throws: RunSettingsProblem.threads(0)) {
            try await converter.convert(.path("/nonexistent.gif"), to: [])
        }
        #expect(throws: RunSettingsProblem.threads(0)) { try converter.timeline(of: .path("/nonexistent.gif")) }
    }

    @Test func damagedInputIsATypedErrorWithItsByteOffset() throws {
        var data = try Self.gif.encode()
        data = data.prefix(data.count - 12)
        var settings = RunSettings()
        settings.limits = DecodeLimits(strict: true)
        do {
            _ = try GifConverter(settings: settings).timeline(of: .bytes(data))
            Issue.record("a truncated GIF was read")
        } catch let error as any GifxError {
            #expect(error.failureClass == .malformedData)
            #expect(error.inputByteOffset != nil)
        }
    }
}

/// Progress updates collected from the conversion's thread.
private final class NameLog: @unchecked Sendable {
    private let lock = NSLock()
    private var lists: [[String]] = []
    func append(_ names: [String]) { lock.withLock { lists.append(names) } }
    var all: [[String]] { lock.withLock { lists } }
}

private final class ProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var updates: [ConversionProgress] = []
    func append(_ update: ConversionProgress) { lock.withLock { updates.append(update) } }
    var all: [ConversionProgress] { lock.withLock { updates } }
}
