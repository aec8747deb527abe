import Foundation
import Testing

/// Hand-made hostile GIFs, byte by byte (what they declare is what the assertions expect).
enum HostileGIF {
    /// Header + logical screen descriptor, with a 2-entry global colour table (black, white) or none.
    static func screen(width: Int, height: Int, palette: Bool = true) -> [UInt8] {
        Array("GIF89a".utf8) + le16(width) + le16(height) + [palette ? 0x80 : 0, 0, 0]
            + (palette ? [0, 0, 0, 255, 255, 255] : [])
    }

    /// LZW data for one pixel of index 0 at minimum code size 2: codes clear (4), 0, end (5) in 3 bits
    /// each, packed LSB first: 0b01_000_100, 0b1 → 0x44 0x01.
    static let onePixel: [UInt8] = [0x02, 0x02, 0x44, 0x01, 0x00]

    /// An image descriptor (no local table, not interlaced) followed by `data`.
    static func image(x: Int = 0, y: Int = 0, width: Int, height: Int, data: [UInt8] = onePixel) -> [UInt8] {
        [0x2C] + le16(x) + le16(y) + le16(width) + le16(height) + [0] + data
    }

    /// A graphic control extension with a 2 cs delay.
    static let control: [UInt8] = [0x21, 0xF9, 0x04, 0x00, 0x02, 0x00, 0x00, 0x00]
    static let trailer: [UInt8] = [0x3B]

    static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }

    /// One pixel of index 2 (beyond a 2-entry palette): codes 4, 2, 5 → 0b101_010_100 → 0x54 0x01.
    static let outOfRangePixel: [UInt8] = [0x02, 0x02, 0x54, 0x01, 0x00]

    /// `count` 1×1 frames, each with a GCE; `outOfRange`: every pixel is beyond the palette (one warning each).
    static func tinyFrames(_ count: Int, palette: Bool, outOfRange: Bool = false) -> Data {
        var data = Data(screen(width: 1, height: 1, palette: palette))
        let frame = Data(control + image(width: 1, height: 1, data: outOfRange ? outOfRangePixel : onePixel))
        data.reserveCapacity(data.count + frame.count * count + 1)
        for _ in 0..<count { data.append(frame) }
        data.append(contentsOf: trailer)
        return data
    }
}

/// Limits (design.md "Bad input"): oversized canvases and frames refused before allocating, endless data
/// stopping at its end, many tiny frames in bounded memory — through every subcommand.
@Suite struct ReliabilityLimitsTests {
    static func write(_ bytes: some Sequence<UInt8>, _ name: String, in folder: URL) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static var commands: [Subcommand] { Subcommand.allCases }

    /// Runs every subcommand on `path`, checking the common rules, and returns the runs for more checks.
    static func runAll(_ path: String, extra: [String] = []) throws -> [(Subcommand, GifxRun, [String])] {
        try commands.map { command in
            let folder = try temporaryFolder("limits")
            defer { try? FileManager.default.removeItem(at: folder) }
            let run = try runGifx(command.arguments(input: path, folder: folder, extra: extra), timeout: 60)
            let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            return (command, run, left)
        }
    }

    @Test func canvasOf65535SquaredIsRefusedAtByte6() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try Self.write(
            HostileGIF.screen(width: 65535, height: 65535) + HostileGIF.image(width: 1, height: 1) + HostileGIF.trailer,
            "huge-canvas.gif", in: folder)
        for (command, run, left) in try Self.runAll(path) {
            #expect(run.status == 65, "\(command): \(run.stderr)")
            #expect(run.stderrLines == ["gifx: \(path): GIF too large at byte 6: canvas 65535×65535 exceeds the 16384×16384 limit"], "\(command)")
            #expect(left.isEmpty, "\(command): \(left)")
        }
    }

    @Test func frameRectBeyondTheLimitIsRefusedAtItsDescriptor() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // 13-byte header + 6-byte palette = 19; frame 0 is 15 bytes, so frame 1's separator is at 34.
        let path = try Self.write(
            HostileGIF.screen(width: 10, height: 10) + HostileGIF.image(width: 1, height: 1)
                + HostileGIF.image(width: 65535, height: 65535) + HostileGIF.trailer,
            "huge-frame.gif", in: folder)
        for (command, run, left) in try Self.runAll(path) {
            #expect(run.status == 65, "\(command): \(run.stderr)")
            #expect(run.stderrLines == ["gifx: \(path): GIF too large at byte 34: frame 1 65535×65535 exceeds the 16384×16384 limit"], "\(command)")
            #expect(left.isEmpty, "\(command): \(left)")
        }
    }

    @Test func lzwDataThatNeverEndsStopsAtEndOfFile() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // One 4×4 image whose data is 2 MiB of full 255-byte sub-blocks of zeros and no terminator.
        let blocks = 2 << 20 / 256
        var bytes = HostileGIF.screen(width: 4, height: 4) + [0x2C, 0, 0, 0, 0, 4, 0, 4, 0, 0, 0x02]
        bytes.reserveCapacity(bytes.count + blocks * 256)
        for _ in 0..<blocks { bytes.append(255); bytes.append(contentsOf: repeatElement(0, count: 255)) }
        let path = try Self.write(bytes, "endless-lzw.gif", in: folder)
        for (command, run, left) in try Self.runAll(path) {
            // Lenient: the frame is kept, with a warning that names where the data ran out.
            #expect(run.status == 0, "\(command): \(run.stderr)")
            #expect(run.stderr.contains("truncated GIF at byte \(bytes.count)"), "\(command): \(run.stderr)")
            #expect(!left.contains { $0.hasPrefix(".") }, "\(command): \(left)")
        }
        for (command, run, left) in try Self.runAll(path, extra: ["--strict"]) {
            #expect(run.status == 65, "\(command): \(run.stderr)")
            #expect(run.stderrLines.count == 1 && run.stderr.contains("at byte \(bytes.count)"), "\(command): \(run.stderr)")
            #expect(left.isEmpty, "\(command): \(left)")
        }
    }

    @Test func endlessTinyExtensionSubBlocksStopAtEndOfFile() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // After one good image, a comment extension of 512 Ki one-byte sub-blocks that never terminates.
        var bytes = HostileGIF.screen(width: 4, height: 4) + HostileGIF.image(width: 1, height: 1) + [0x21, 0xFE]
        for _ in 0..<(512 << 10) { bytes.append(1); bytes.append(0x41) }
        let path = try Self.write(bytes, "endless-extension.gif", in: folder)
        for (command, run, left) in try Self.runAll(path) {
            #expect(run.status == 0, "\(command): \(run.stderr)")
            #expect(run.stderr.contains("truncated GIF at byte \(bytes.count)"), "\(command): \(run.stderr)")
            #expect(run.stderr.contains("keeping the 1 image read before it"), "\(command)")
            #expect(!left.contains { $0.hasPrefix(".") }, "\(command): \(left)")
        }
    }

    /// 20,000 frames that each use a colour beyond their palette: one warning per frame used to be
    /// kept in an array copied per frame (quadratic, a hang at a million frames) and printed a line each.
    /// Now the first 100 are printed, then one summary line.
    @Test func damagedFramesByTheThousandGiveBoundedWarnings() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let count = 20_000
        let path = try Self.write(
            HostileGIF.tinyFrames(count, palette: true, outOfRange: true), "tiny-frames.gif", in: folder)
        for (command, run, left) in try Self.runAll(path) where command != .timeline {
            #expect(run.status == 0, "\(command): \(run.stderr.suffix(500))")
            let warnings = run.stderrLines.filter { $0.contains("beyond its palette") }
            #expect(warnings.count == 100, "\(command)")
            #expect(run.stderrLines.contains("gifx: \(path): warning: \(count - 100) more warnings like these not shown"), "\(command)")
            #expect(!left.contains { $0.hasPrefix(".") }, "\(command): \(left)")
        }
    }

    @Test func aHundredThousandTinyFramesHaveAScheduleEntryEach() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let count = 100_000
        let path = try Self.write(HostileGIF.tinyFrames(count, palette: true), "many-frames.gif", in: folder)
        let run = try runGifx(["timeline", path, "--json"], timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        let json = try #require(JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        let frames = try #require(json["frames"] as? [[String: Any]])
        #expect(frames.count == count)
        #expect(frames.last?["delay"] as? Int == 2)
    }
}
