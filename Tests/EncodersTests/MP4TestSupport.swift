import ChildProcesses
import GifxEncoders
import Foundation
import GifxFrames
import GifFixtures
import GifxPipeline
import Testing
import GifxTimeline

/// The ffmpeg tools used as an independent oracle for the MP4 tests (`nil` when not installed).
enum MP4Oracle {
    static let ffprobe = executable("ffprobe")
    static let ffmpeg = executable("ffmpeg")
    static var available: Bool { ffprobe != nil && ffmpeg != nil }

    private static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs a tool and returns its standard output; throws on a non-zero exit.
    static func run(_ tool: String, _ arguments: [String]) throws -> Data {
        let run = try CapturedRun.run(tool, arguments)
        guard run.status == 0 else {
            throw MP4OracleError( "\(tool) \(arguments.joined(separator: " ")) exited \(run.status)")
        }
        return run.stdout
    }

    /// What ffprobe says about the first video stream.
    static func probe(_ path: String) throws -> ProbedStream {
        let data = try run(ffprobe!, [
            "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
            "stream=codec_name,codec_tag_string,width,height,pix_fmt,time_base,r_frame_rate,avg_frame_rate,"
                + "duration_ts,duration,nb_frames,nb_read_frames,start_time,color_range,color_space,color_transfer,"
                + "color_primaries:format=duration",
            "-of", "json", path,
        ])
        let root = try JSONDecoder().decode(ProbeOutput.self, from: data)
        guard var stream = root.streams.first else { throw MP4OracleError( "no video stream in \(path)") }
        stream.formatDuration = root.format.duration
        return stream
    }

    /// Every frame as decoded by ffmpeg (no frame dropped or duplicated), in presentation order.
    static func decodeFrames(_ path: String, width: Int, height: Int) throws -> [YUVFrame] {
        let data = try run(ffmpeg!, [
            "-v", "error", "-nostdin", "-i", path, "-fps_mode", "passthrough", "-f", "rawvideo",
            "-pix_fmt", "yuv420p", "-",
        ])
        let size = width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2)
        let bytes = [UInt8](data)
        guard size > 0, bytes.count % size == 0 else {
            throw MP4OracleError( "decoded \(bytes.count) bytes, not a multiple of \(size)")
        }
        return stride(from: 0, to: bytes.count, by: size).map {
            YUVFrame(width: width, height: height, bytes: Array(bytes[$0..<$0 + size]))
        }
    }
}

/// Why the oracle could not answer.
struct MP4OracleError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

private struct ProbeOutput: Decodable {
    struct Format: Decodable { var duration: String? }
    var streams: [ProbedStream]
    var format: Format
}

/// ffprobe's view of a video stream (strings as ffprobe prints them).
struct ProbedStream: Decodable {
    var codec_name: String
    var codec_tag_string: String
    var width: Int
    var height: Int
    var pix_fmt: String?
    var time_base: String
    var r_frame_rate: String
    var avg_frame_rate: String
    var duration_ts: Int?
    var duration: String?
    var nb_frames: String?
    var nb_read_frames: String?
    var start_time: String?
    var color_range: String?
    var color_space: String?
    var color_transfer: String?
    var color_primaries: String?
    var formatDuration: String?

    /// The stream's exact duration in centiseconds, when `duration_ts × time_base` is a whole number of them.
    var durationCentiseconds: Int? {
        let parts = time_base.split(separator: "/").compactMap { Int($0) }
        guard parts.count == 2, let ticks = duration_ts else { return nil }
        let scaled = ticks * parts[0] * 100
        return scaled % parts[1] == 0 ? scaled / parts[1] : nil
    }
}

/// One decoded yuv420p frame.
struct YUVFrame {
    var width: Int
    var height: Int
    var bytes: [UInt8]

    func luma(_ x: Int, _ y: Int) -> Int { Int(bytes[y * width + x]) }

    /// The pixel at (x, y) back in full-range RGB with the BT.709 limited-range equations (written out here,
    /// independent of libswscale).
    func rgb(_ x: Int, _ y: Int) -> [Int] {
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        let u = Double(bytes[width * height + (y / 2) * chromaWidth + x / 2]) - 128
        let v = Double(bytes[width * height + chromaWidth * chromaHeight + (y / 2) * chromaWidth + x / 2]) - 128
        let l = (Double(luma(x, y)) - 16) * 255 / 219
        let cb = u * 255 / 224, cr = v * 255 / 224
        let r = l + 1.5748 * cr
        let g = l - 0.1873 * cb - 0.4681 * cr
        let b = l + 1.8556 * cb
        return [r, g, b].map { Int(max(0, min(255, $0.rounded()))) }
    }

    /// The centre pixel, where every colour in these tests is flat.
    var centre: [Int] { rgb(width / 2, height / 2) }
}

/// BT.709 limited-range luma of an sRGB colour (the same equations as `YUVFrame.rgb`, forwards).
func expectedLuma(_ rgb: RGB) -> Int {
    let y = 0.2126 * Double(rgb.r) + 0.7152 * Double(rgb.g) + 0.0722 * Double(rgb.b)
    return Int((16 + y * 219 / 255).rounded())
}

/// Whether each channel is within `tolerance` (YUV rounding only).
func close(_ actual: [Int], _ expected: RGB, tolerance: Int = 6) -> Bool {
    zip(actual, [Int(expected.r), Int(expected.g), Int(expected.b)]).allSatisfy { abs($0 - $1) <= tolerance }
}

/// A fresh folder for one MP4 test.
func mp4Folder(_ name: String = #function) throws -> URL {
    let url = TestScratch.path("mp4", name: name)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// The result of converting one fixture through the library: the plan, the output and ffprobe's view.
struct MP4Run {
    var result: VideoResult
    var summary: VideoSummary
    var path: String
    var stream: ProbedStream
    var frames: [YUVFrame]
}

/// Writes `gif`, converts it through `Conversion` (the path every command takes) into `out.mp4`, probes
/// and decodes the result with ffmpeg. `memoryBudget` is the run's budget (frame cache and encoder).
/// `encodeRepeats`: the old path (every repeat encoded again, `GIFX_REPEATS=encode`), for the tests of what
/// B-frames do to the MP4's boxes, which a stream with repeat pictures does not have.
func convertFixture(
    _ gif: FixtureGIF, options: VideoSettings = VideoSettings(), memoryBudget: Int? = nil, encodeRepeats: Bool = false,
    name: String = #function
) throws -> MP4Run {
    let folder = try mp4Folder(name)
    let input = folder.appendingPathComponent("in.gif").path
    try gif.write(to: URL(fileURLWithPath: input))
    let target = folder.appendingPathComponent("out.mp4").path
    var settings = RunSettings(memoryBudget: memoryBudget)
    settings.diagnostics.encodeRepeats = encodeRepeats
    let report = try Conversion(inputPath: input, settings: settings).run([.video(target: .file(target), options: options)])
    let result = try #require(report.outputs[0] as? VideoResult)
    let stream = try MP4Oracle.probe(target)
    let frames = try MP4Oracle.decodeFrames(target, width: stream.width, height: stream.height)
    return MP4Run(result: result, summary: result.summary, path: target, stream: stream, frames: frames)
}

/// Colours of the fixture palette by index.
func palette(_ index: UInt8) -> RGB { FixtureGIF.primaries[Int(index)] }
