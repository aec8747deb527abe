import Foundation
import GifFixtures
import Testing

/// Six frames of uneven delays (29 + 7 + 12 + 3 + 50 + 9 = 110 cs): x264 (medium preset; ultrafast has no
/// B-frames) reorders them, so
/// the first dts is below the first pts and the fragmented layout's end-of-presentation fix is exercised.
private let uneven = FixtureGIF.solidFrames(
    width: 16, height: 16, colorIndices: [1, 2, 3, 4, 5, 6], delays: [29, 7, 12, 3, 50, 9])

/// ffprobe's packets (pts, dts, in the stream's time base), its time base and the format duration.
private struct ProbedPackets {
    var pts: [Int] = []
    var dts: [Int] = []
    var timeBase = 1.0
    var duration = 0.0

    init(_ path: String) throws {
        let text = String(decoding: try runTool(Oracle.tool("ffprobe"), [
            "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=time_base:format=duration:packet=pts,dts",
            "-of", "default=nw=1", path,
        ]), as: UTF8.self)
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            switch parts[0] {
            case "pts": pts.append(Int(parts[1]) ?? .min)
            case "dts": dts.append(Int(parts[1]) ?? .min)
            case "duration": duration = Double(parts[1]) ?? 0
            case "time_base":
                let fraction = parts[1].split(separator: "/").compactMap { Double($0) }
                if fraction.count == 2 { timeBase = fraction[0] / fraction[1] }
            default: break
            }
        }
    }
}

/// The top-level box types of an ISO BMFF file, in order.
private func topLevelBoxes(_ path: String) throws -> [String] {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    var boxes: [String] = []
    var offset = 0
    while offset + 8 <= data.count {
        var size = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        let type = String(decoding: data[offset + 4..<offset + 8], as: UTF8.self)
        if size == 1, offset + 16 <= data.count { size = data[offset + 8..<offset + 16].reduce(0) { $0 << 8 | Int($1) } }
        if size == 0 { size = data.count - offset }
        guard size >= 8 else { break }
        boxes.append(type)
        offset += size
    }
    return boxes
}

/// Issue 17: the MP4 is fragmented above `MP4Layout.fragmentAbove` output frames (so libavformat's
/// per-sample index does not grow with the video), faststart below; `GIFX_MP4_FRAGMENT_ABOVE` moves the
/// threshold so small fixtures cover both layouts.
@Suite struct MP4LayoutCommandTests {
    private func convert(
        _ folder: URL, _ name: String, fragmentAbove: Int?, _ options: [String], encodeRepeats: Bool = false
    ) throws -> (path: String, stats: [String: Any]) {
        let input = try writeGIF(uneven, to: folder)
        var environment = ProcessInfo.processInfo.environment
        environment["GIFX_MP4_FRAGMENT_ABOVE"] = fragmentAbove.map(String.init)
        if encodeRepeats { environment["GIFX_REPEATS"] = "encode" }
        let output = folder.appendingPathComponent(name).path
        let run = try runGifx(
            ["to-mp4", input, "-o", output, "--stats", "--overwrite"] + options,
            environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        let stats = try #require(JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        return (output, stats)
    }

    @Test("the layout switches above the threshold of output frames, not at it", arguments: [
        // Default timing: tick 1 cs, 110 output frames; --vfr: 6.
        ([String](), 110), (["--vfr"], 6),
    ])
    func threshold(_ options: [String], _ outputFrames: Int) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let atThreshold = try convert(folder, "at.mp4", fragmentAbove: outputFrames, options)
        #expect(atThreshold.stats["outputFrames"] as? Int == outputFrames)
        #expect(atThreshold.stats["mp4Layout"] as? String == "faststart")
        let boxes = try topLevelBoxes(atThreshold.path)
        #expect(!boxes.contains("moof"), "\(boxes)")
        let moov = try #require(boxes.firstIndex(of: "moov")), mdat = try #require(boxes.firstIndex(of: "mdat"))
        #expect(moov < mdat, "faststart puts the index first: \(boxes)")

        let above = try convert(folder, "above.mp4", fragmentAbove: outputFrames - 1, options)
        #expect(above.stats["mp4Layout"] as? String == "fragmented")
        #expect(try topLevelBoxes(above.path).contains("moof"))
        #expect(try convert(folder, "default.mp4", fragmentAbove: nil, options).stats["mp4Layout"] as? String
            == "faststart")
    }

    /// Both layouts carry the same samples at the same times, and both present exactly the GIF's 110 cs.
    /// ffprobe reports a fragmented file's duration as its media (decode) span, which starts at the first
    /// dts: the edit list's media time (−first dts, the B-frame reorder delay) is subtracted here, as
    /// ISO/IEC 14496-12 players do for an edit extending to the end of a fragmented track. The tick runs the
    /// old path (`GIFX_REPEATS=encode`), which keeps x264's B-frames: with repeat pictures there are none
    /// (RepeatPictureTests compares both layouts there).
    @Test(.enabled(if: ffprobeAvailable(), "ffprobe is not installed"), arguments: [[String](), ["--vfr"]])
    func fragmentedPresentsExactlyWhatFaststartDoes(_ options: [String]) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let faststart = try ProbedPackets(convert(folder, "f.mp4", fragmentAbove: nil, options, encodeRepeats: true).path)
        let fragmented = try ProbedPackets(convert(folder, "g.mp4", fragmentAbove: 0, options, encodeRepeats: true).path)
        #expect(fragmented.pts == faststart.pts)
        #expect(fragmented.dts == faststart.dts)
        #expect(abs(faststart.duration - 1.10) < 1e-6, "faststart duration \(faststart.duration)")
        let reorderDelay = -Double(try #require(fragmented.dts.first)) * fragmented.timeBase
        #expect(reorderDelay > 0, "the medium preset's B-frames put the first dts below 0")
        #expect(abs(fragmented.duration - reorderDelay - 1.10) < 1e-6,
                "fragmented media span \(fragmented.duration) s, reorder delay \(reorderDelay) s")
    }

    @Test func convertReportsTheLayoutOfItsMP4() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try writeGIF(uneven, to: folder)
        var environment = ProcessInfo.processInfo.environment
        environment["GIFX_MP4_FRAGMENT_ABOVE"] = "0"
        let run = try runGifx(
            ["convert", input, "-o", folder.appendingPathComponent("c.mp4").path, "-o",
             folder.appendingPathComponent("c.webm").path, "--preset", "ultrafast", "--stats", "--quiet"],
            environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        let stats = try #require(JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        let outputs = try #require(stats["outputs"] as? [[String: Any]])
        #expect(outputs.map { $0["kind"] as? String } == ["mp4", "webm"])
        #expect(outputs.map { $0["mp4Layout"] as? String } == ["fragmented", nil])
    }
}
