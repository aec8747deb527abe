import Foundation
import GifFixtures
import Testing

/// `gifx timeline` on fixture GIFs written with giflib: every expected value comes from the fixture's bytes
/// and timeline.md, never from the code under test.
@Suite struct TimelineFixtureTests {
    /// Seven images covering every GCE field: delays 0, none, 7, 2, 65535, 5, none; disposals 0-3 and 5;
    /// transparency on two frames; one interlaced partial frame; loop count 3.
    static let mixed = FixtureGIF(
        width: 8, height: 6, loopCounts: [3],
        frames: [
            .solid(1, width: 8, height: 6, delay: 0, disposal: 0),
            .solid(2, left: 2, top: 1, width: 3, height: 2, delay: nil),
            FixtureFrame(
                left: 1, top: 1, width: 4, height: 4, indices: [UInt8](repeating: 3, count: 16), delay: 7,
                disposal: 1, transparentIndex: 2, interlaced: true),
            .solid(4, left: 7, top: 5, width: 1, height: 1, delay: 2, disposal: 2),
            .solid(5, width: 8, height: 6, delay: 65535, disposal: 3, transparentIndex: 0),
            .solid(6, left: 0, top: 3, width: 8, height: 3, delay: 5, disposal: 5),
            .solid(7, width: 2, height: 2, delay: nil),
        ])

    @Test func flanimatedJSON() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try writeGIF(Self.mixed, to: folder)
        let run = try runGifx(["timeline", path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty)
        let json = try TimelineJSON(run)
        #expect(json.object["schema"] as? String == "gifx.timeline/1")
        #expect(json.object["policy"] as? String == "flanimated")
        #expect(json.canvas == [8, 6])
        #expect(json.frames.map { $0["index"] as? Int } == Array(0..<7))
        #expect(json.rawDelays == [0, nil, 7, 2, 65535, 5, nil])
        #expect(json.frames[1]["rawDelay"] is NSNull)
        #expect(json.delays == [10, 10, 7, 2, 65535, 5, 5])
        #expect(json.rules == ["rounded-up", "carried", "raw", "raw", "raw", "raw", "carried"])
        #expect(json.starts == [0, 10, 20, 27, 29, 65564, 65569])
        #expect(json.duration == 65574)
        #expect(json.tick == 1)
        #expect(json.fps == [100, 1])
        #expect(json.loopCount == 3)
        #expect(json.loopPlays == 3)
        #expect(json.rects == [[0, 0, 8, 6], [2, 1, 3, 2], [1, 1, 4, 4], [7, 5, 1, 1], [0, 0, 8, 6], [0, 3, 8, 3], [0, 0, 2, 2]])
        // Frames without GCE have no disposal or transparency: none / null.
        #expect(json.disposals == ["none", "none", "keep", "background", "previous", "previous", "none"])
        #expect(json.transparentIndices == [nil, nil, 2, nil, 0, nil, nil])
        #expect(json.frames[0]["transparentIndex"] is NSNull)
        #expect(json.interlaced == [false, false, true, false, false, false, false])
        #expect(json.warnings == [])
    }

    @Test func browserJSON() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try writeGIF(Self.mixed, to: folder)
        let run = try runGifx(["timeline", path, "--json", "--policy", "browser"])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try TimelineJSON(run)
        #expect(json.object["policy"] as? String == "browser")
        // No carry-over: both frames without GCE get 10 cs.
        #expect(json.delays == [10, 10, 7, 2, 65535, 5, 10])
        #expect(json.rules == ["rounded-up", "default", "raw", "raw", "raw", "raw", "default"])
        #expect(json.starts == [0, 10, 20, 27, 29, 65564, 65569])
        #expect(json.duration == 65579)
        #expect(json.loopCount == 3)
        #expect(json.loopPlays == 4)
    }

    @Test func workedExampleRowsThroughTheBinary() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // timeline.md §5, rows 1 and 3, both policies.
        let row1 = try writeGIF(
            .solidFrames(width: 2, height: 2, colorIndices: Array(repeating: 1, count: 10),
                         delays: [70, 5, 5, 5, 0, 1, 2, 3, nil, 4]), to: folder, name: "row1.gif")
        let flanimated = try TimelineJSON(try runGifx(["timeline", row1, "--json"]))
        #expect(flanimated.delays == [70, 5, 5, 5, 10, 10, 2, 3, 3, 4])
        #expect(flanimated.duration == 117)
        #expect(flanimated.tick == 1)
        let browser = try TimelineJSON(try runGifx(["timeline", row1, "--json", "--policy", "browser"]))
        #expect(browser.delays == [70, 5, 5, 5, 10, 10, 2, 3, 10, 4])
        #expect(browser.duration == 124)
        let row3 = try writeGIF(
            .solidFrames(width: 2, height: 2, colorIndices: [1, 2, 3], delays: [nil, nil, 20]), to: folder,
            name: "row3.gif")
        let row3f = try TimelineJSON(try runGifx(["timeline", row3, "--json"]))
        #expect(row3f.rules == ["default", "carried", "raw"])
        #expect(row3f.tick == 10)
        #expect(row3f.fps == [10, 1])
        #expect(row3f.duration == 40)
        let row3b = try TimelineJSON(try runGifx(["timeline", row3, "--json", "--policy", "browser"]))
        #expect(row3b.rules == ["default", "default", "raw"])
        #expect(row3b.delays == [10, 10, 20])
    }

    /// (loop extensions in the file, extension name, raw count, flanimated plays, browser plays); nil = forever.
    static let loopCases: [(counts: [Int], name: String, count: Int?, flanimated: Int?, browser: Int?)] = [
        ([], "NETSCAPE2.0", nil, nil, 1),
        ([0], "NETSCAPE2.0", 0, nil, nil),
        ([1], "NETSCAPE2.0", 1, 1, 2),
        ([65535], "NETSCAPE2.0", 65535, 65535, 65536),
        ([2, 5], "NETSCAPE2.0", 2, 2, 3),  // two extensions: the first wins
        ([0, 7], "NETSCAPE2.0", 0, nil, nil),
        ([4], "ANIMEXTS1.0", 4, 4, 5),
        ([0], "ANIMEXTS1.0", 0, nil, nil),
    ]

    @Test(arguments: 0..<loopCases.count)
    func loopCount(_ row: Int) throws {
        let expected = Self.loopCases[row]
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var gif = FixtureGIF.solidFrames(width: 2, height: 2, colorIndices: [1, 2], delays: [10, 20])
        gif.loopCounts = expected.counts
        gif.loopExtensionName = expected.name
        let path = try writeGIF(gif, to: folder)
        for (policy, plays) in [("flanimated", expected.flanimated), ("browser", expected.browser)] {
            let run = try runGifx(["timeline", path, "--json", "--policy", policy])
            #expect(run.status == 0, "\(run.stderr)")
            let json = try TimelineJSON(run)
            if let count = expected.count {
                #expect(json.loopCount == count, "\(expected.counts) \(policy)")
            } else {
                #expect(json.loopCountIsNull, "\(expected.counts) \(policy)")
            }
            if let plays {
                #expect(json.loopPlays == plays, "\(expected.counts) \(policy)")
            } else {
                #expect(json.loopPlaysIsNull, "\(expected.counts) \(policy)")
            }
        }
    }

    @Test func oneFrameAndLongestDelay() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try writeGIF(.solidFrames(width: 3, height: 3, colorIndices: [4], delays: [65535]), to: folder)
        let json = try TimelineJSON(try runGifx(["timeline", path, "--json"]))
        #expect(json.delays == [65535])
        #expect(json.rules == ["raw"])
        #expect(json.tick == 65535)  // one frame: tick = its delay
        #expect(json.fps == [20, 13107])  // 100/65535 reduced (65535 = 5 × 13107)
        #expect(json.duration == 65535)
        #expect((json.object["duration"] as? [String: Any])?["seconds"] as? Double == 655.35)
    }

    @Test func tableHasOneRowPerFrameAndASummary() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try writeGIF(Self.mixed, to: folder)
        let run = try runGifx(["timeline", path])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdoutText.split(separator: "\n").map(String.init)
        // Header, 7 frame rows, summary.
        #expect(lines.count == 9, "\(run.stdoutText)")
        guard lines.count == 9 else { return }
        let header = lines[0].split(separator: " ").map(String.init)
        #expect(header == ["frame", "raw", "delay", "rule", "start(s)", "rect", "disposal"])
        let rows = lines[1...7].map { $0.split(separator: " ").map(String.init) }
        #expect(rows.map { $0.first } == ["0", "1", "2", "3", "4", "5", "6"])
        #expect(rows.map { $0[1] } == ["0", "-", "7", "2", "65535", "5", "-"])
        #expect(rows.map { $0[2] } == ["10", "10", "7", "2", "65535", "5", "5"])
        #expect(rows.map { $0[3] } == ["rounded-up", "carried", "raw", "raw", "raw", "raw", "carried"])
        #expect(rows.map { $0[4] } == ["0.00", "0.10", "0.20", "0.27", "0.29", "655.64", "655.69"])
        #expect(rows.map { $0[5] } == ["8x6+0+0", "3x2+2+1", "4x4+1+1", "1x1+7+5", "8x6+0+0", "8x3+0+3", "2x2+0+0"])
        #expect(rows.map { $0.last } == ["none", "none", "keep", "background", "previous", "previous", "none"])
        let summary = lines[8]
        for part in ["7 frames", "655.74 s", "8x6", "tick 1 cs", "(100 fps)", "plays 3 times", "loop count 3", "flanimated"] {
            #expect(summary.contains(part), "summary lacks \(part): \(summary)")
        }
    }

    @Test func tableSummaryForForeverAndFractionalFPS() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try writeGIF(.solidFrames(width: 2, height: 2, colorIndices: [1, 2], delays: [3, 6]), to: folder)
        let run = try runGifx(["timeline", path, "--policy", "browser"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        let summary = lines.last ?? ""
        for part in ["2 frames", "0.09 s", "tick 3 cs", "100/3 fps", "forever", "loop count 0", "browser"] {
            #expect(summary.contains(part), "summary lacks \(part): \(summary)")
        }
    }

    @Test func truncatedFileKeepsImagesWithAWarningOrFailsWhenStrict() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let whole = try FixtureGIF.solidFrames(width: 4, height: 4, colorIndices: [1, 2, 3], delays: [5, 6, 7]).encode()
        // Drop the block terminator and trailer: the third image's data never ends.
        let path = folder.appendingPathComponent("cut.gif").path
        try whole.prefix(whole.count - 2).write(to: URL(fileURLWithPath: path))
        let lenient = try runGifx(["timeline", path, "--json"])
        #expect(lenient.status == 0, "\(lenient.stderr)")
        let json = try TimelineJSON(lenient)
        #expect(json.delays == [5, 6, 7])
        #expect(json.warnings?.count == 1)
        let strict = try runGifx(["timeline", path, "--json", "--strict"])
        #expect(strict.status == 65)
        #expect(strict.stderrLines.count == 1)
        #expect(strict.stderrLines.first?.hasPrefix("gifx: \(path): ") == true)
        #expect(strict.stdout.isEmpty)
    }

    @Test func badPolicyIsAUsageError() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try writeGIF(.solidFrames(width: 2, height: 2, colorIndices: [1], delays: [5]), to: folder)
        let run = try runGifx(["timeline", path, "--policy", "chrome"])
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
    }

    @Test func notAGIFIsMalformed() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("text.gif").path
        try Data("hello, not a gif at all".utf8).write(to: URL(fileURLWithPath: path))
        let run = try runGifx(["timeline", path, "--json"])
        #expect(run.status == 65)
        #expect(run.stderrLines.count == 1)
        #expect(run.stderrLines.first?.hasPrefix("gifx: \(path): ") == true)
        #expect(run.stdout.isEmpty)
    }
}
