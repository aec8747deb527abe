import Foundation
import GifFixtures
import GifxKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `OutputTarget.fileDescriptor`: a caller's pipe gets the output (as it is encoded, where the format streams), and
/// stays the caller's.
/// Judged by ffprobe on the bytes that came through the pipe; the expected figures come from the fixture's
/// delays (timeline.md), not from gifx.
@Suite(.enabled(if: AnimatedInputTools.ffprobePath != nil, "needs ffprobe (make deps: ffmpeg)"))
struct OutputTargetTests {
    /// Delays 10, 10, 6 cs (GifConverterTests.gif): 26 cs at a 2 cs tick, 13 pictures at 50 fps.
    @Test func anMP4ToACallersPipeStreamsAndTheDescriptorStaysOpen() async throws {
        let (writeEnd, received) = try PipeReader.open()
        let report = try await GifConverter().convert(
            .bytes(try GifConverterTests.gif.encode()),
            to: [.video(target: .fileDescriptor(writeEnd), options: VideoSettings(preset: "ultrafast"))])
        #expect(report.outputs.count == 1)
        // gifx never closes the caller's descriptor.
        #expect(fcntl(writeEnd, F_GETFD) != -1)
        close(writeEnd)
        let bytes = await received.all()
        // Streamed as encoded: a fragmented MP4 (movie fragments), never a file rewritten at the end.
        #expect(bytes.range(of: Data("moof".utf8)) != nil)
        let folder = try GifConverterTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("piped.mp4")
        try bytes.write(to: file)
        let probe = try AnimatedInputTools.ffprobe(file.path)
        #expect(probe.rate == "50/1")
        #expect(probe.frames == 13)
        #expect(abs(probe.duration - 0.26) < 0.0005)
    }

    /// A one-page sprite sheet whose PNG goes to a caller's pipe: the pipe gets a whole PNG, and the description
    /// (a file) names the sheet after itself (`s.png` beside `s.json`), where the reader is expected to store it.
    @Test func aSheetsPNGToACallersPipe() async throws {
        let (writeEnd, received) = try PipeReader.open()
        let folder = try GifConverterTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let json = folder.appendingPathComponent("s.json")
        _ = try await GifConverter().convert(
            .bytes(try GifConverterTests.gif.encode()),
            to: [.spriteSheet(SpriteOptions(png: .fileDescriptor(writeEnd), json: .file(json.path)))])
        #expect(fcntl(writeEnd, F_GETFD) != -1)
        close(writeEnd)
        let bytes = await received.all()
        #expect(Array(bytes.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(Array(bytes.suffix(8)) == [0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82])  // IEND and its CRC
        let description = try String(contentsOf: json, encoding: .utf8)
        #expect(description.contains("\"s.png\""))
        #expect(try Self.contents(folder) == ["s.json"])
    }

    static func contents(_ folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }
}

/// Reads a pipe to its end on a thread of its own (the conversion fills it meanwhile: a pipe holds 64 KiB), and
/// closes its read end once the writer's end is closed.
private final class PipeReader: @unchecked Sendable {
    /// A new pipe: its write end, for the conversion (the caller closes it), and the reader of the other end.
    static func open() throws -> (writeEnd: Int32, reader: PipeReader) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw POSIXError(.EMFILE) }
        return (ends[1], PipeReader(ends[0]))
    }

    private let lock = NSLock()
    private var data = Data()
    private var waiter: CheckedContinuation<Data, Never>?
    private var ended = false

    init(_ fd: Int32) {
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                lock.withLock { data.append(contentsOf: buffer[..<count]) }
            }
            close(fd)
            let resume = lock.withLock { () -> (CheckedContinuation<Data, Never>, Data)? in
                ended = true
                return waiter.map { ($0, data) }
            }
            resume.map { $0.0.resume(returning: $0.1) }
        }
        thread.start()
    }

    /// Everything read, once the writer's end is closed.
    func all() async -> Data {
        await withCheckedContinuation { continuation in
            let done = lock.withLock { () -> Data? in
                if ended { return data }
                waiter = continuation
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
    }
}
