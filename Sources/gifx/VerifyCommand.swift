import ArgumentParser
import Foundation
import GifxKit
import GifxTimeline

/// `gifx verify IN.gif OUTPUT...`: reads each output back with its own decoder and checks that it shows the
/// GIF: every frame at its time, every pixel within a bound. Exit 0 when all verify, 1 when one does not.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check that outputs (from gifx or any tool) show the GIF: every frame at its time, every pixel within a bound.",
        discussion: """
            Outputs by extension: .mp4/.webm/.avif/.mkv/.mov (video, read with libavformat/libavcodec), .webp (libwebp), \
            .apng (libpng, every frame), .png or .jpg (a poster: the GIF frame it shows is found; a .png that is an \
            animation is read as an APNG), .json or .tres (a sprite sheet's description \
            in any of to-sprite's formats; its PNG pages beside it; a PNG given with the description that names it \
            is checked as that page). Each output frame's time is mapped onto the \
            GIF's schedule under --policy, and its pixels compared with the composited GIF frame shown then. \
            Sheets, PNG posters and lossless WebP must match exactly; lossy outputs must reach --min-psnr. \
            Exit 0 when every output verifies, 1 when one does not (one line per failing output on stderr).
            """)

    @Argument(help: "The GIF (or WebP, PNG/APNG) the outputs were made from.") var input: String
    @Argument(help: "Outputs to verify.") var outputs: [String] = []
    @Flag(help: "Print the report as JSON on stdout.") var json = false
    @Option(help: ArgumentHelp(
        "Largest timing error accepted (default: each output's own timing mode: 1 ms when exact, one output frame when resampled).",
        valueName: "ms"))
    var maxTimingError: Double?
    @Option(help: ArgumentHelp("Lowest PSNR accepted for lossy outputs (default: 30 dB).", valueName: "dB"))
    var minPsnr: Double?
    @Option(help: "Whose reading of delays and loop counts to follow: flanimated (iOS reference player) or browser.")
    var policy: TimelinePolicy = .flanimated
    @Option(help: "The colour transparent pixels were composited over in outputs without alpha.")
    var background: RGBColor = .white
    @Option(help: ArgumentHelp("Memory for decoded frames, e.g. 64M.", valueName: "size")) var memoryBudget: ByteCount?
    @Option(help: ArgumentHelp("Threads decoding frames.", valueName: "n")) var threads: Int?
    @Flag(help: "No report on stdout (failures still go to stderr).") var quiet = false
    @Option(help: ArgumentHelp(
        "Also write a self-contained HTML page that draws each output's frame starts against the schedule and its "
            + "PSNR per frame (written whether or not the outputs verify; - for standard output).",
        valueName: "file"))
    var report: String?
    @Flag(help: "Replace an existing --report file.") var overwrite = false

    func validate() throws {
        if outputs.isEmpty { throw ValidationError("give at least one output to verify") }
        if overwrite && report == nil { throw ValidationError("--overwrite goes with --report") }
        if report == "-" && (json || !quiet) {
            throw ValidationError("--report - writes the page to standard output: add --quiet, without --json")
        }
        if let maxTimingError, maxTimingError < 0 { throw ValidationError("--max-timing-error must be 0 or more") }
        if let threads, !RunSettings.threadRange.contains(threads) { throw ValidationError("--threads must be 1...256") }
    }

    func run() throws {
        try reportingErrors(input: input) {
            let run = RunSettings(policy: policy, memoryBudget: memoryBudget?.bytes, threads: threads)
            let settings = VerifySettings(
                maxTimingErrorMs: maxTimingError, minPSNR: minPsnr, background: background, recordsFrames: report != nil)
            let (reports, timeline) = try InputSource.withPath(input) { path in
                let verifier = try Verifier(inputPath: path, run: run, settings: settings)
                return (try verifier.verify(outputs), verifier.timeline)
            }
            if let report {
                let page = VerificationPage(input: input == "-" ? "standard input" : input, timeline: timeline, reports: reports)
                try writeTextOutput(page.html, to: report, overwrite: overwrite)
            }
            if json {
                print(try VerificationText.json(reports))
            } else if !quiet {
                print(reports.map(VerificationText.text).joined(separator: "\n"))
            }
            if reports.contains(where: { !$0.passed }) { throw VerificationFailed(reports: reports) }
        }
    }
}

/// `verify --report`: the schedule with each output's frame starts and per-frame PSNR drawn under it
/// (`TimelinePicture`), then each output's text report.
struct VerificationPage {
    let input: String
    let timeline: Timeline
    let reports: [OutputVerification]

    var html: String {
        let tracks = reports.compactMap { r -> TimelinePicture.Track? in
            guard let frames = r.frames else { return nil }
            return TimelinePicture.Track(
                name: r.path, caption: "\(r.kind) \(r.codec) \(r.width)x\(r.height): \(r.passed ? "verified" : "FAILED"), "
                    + "\(r.outputFrames) frames shown for \(r.scheduledFrames) scheduled",
                plays: r.plays, bound: r.minPSNR,
                frames: frames.map {
                    .init(startMilliseconds: $0.startMs, gifFrame: $0.gifFrame, psnr: $0.psnr, passed: $0.passed)
                })
        }
        let picture = TimelinePicture(timeline: timeline, title: input)
        var sections = [PicturePage.Section(heading: "Schedule and outputs", lines: [], svg: picture.svg(tracks: tracks))]
        for r in reports {
            sections.append(.init(heading: r.path, lines: VerificationText.text(r).split(separator: "\n").map(String.init), svg: ""))
        }
        return PicturePage(title: "gifx verify: \(input)", sections: sections).html
    }
}

/// The words of a verification report: text for people, JSON for scripts, one line per failing output.
enum VerificationText {
    static func json(_ reports: [OutputVerification]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(["outputs": reports]), as: UTF8.self)
    }

    static func text(_ r: OutputVerification) -> String {
        func ms(_ v: Double) -> String { String(format: "%+.1f ms", v) }
        func db(_ v: Double?) -> String { v.map { String(format: "%.2f dB", $0) } ?? "identical" }
        var lines = ["\(r.path): \(r.passed ? "verified" : "FAILED")"]
        var what = "  \(r.kind) \(r.codec) \(r.width)x\(r.height)"
        if let pf = r.pixelFormat { what += " \(pf)" }
        if r.colorSpace != nil || r.colorRange != nil {
            what += " colour \(r.colorSpace ?? "unspecified")/\(r.colorRange ?? "unspecified")"
            what += " primaries \(r.colorPrimaries ?? "unspecified") transfer \(r.colorTransfer ?? "unspecified")"
        }
        if let level = r.level { what += " level \(level)" }
        if let loop = r.loopCount { what += " loop \(loop) (expected \(r.expectedLoopCount ?? 0))" }
        lines.append(what)
        // What the kind's reader says its reports show (`OutputReader.report`); every line for a report of no kind's.
        let shows = OutputReader.reporting(r.kind)?.report ?? VerificationLines()
        if shows.framesAndTiming {
            lines.append(
                "  frames: \(r.outputFrames) shown for \(r.scheduledFrames) scheduled (\(r.plays) play\(r.plays == 1 ? "" : "s")); "
                    + "missing \(r.missingFrames), extra \(r.extraFrames), repeated \(r.repeatedFrames)"
                    + (r.skippedShortFrames > 0 ? ", \(r.skippedShortFrames) shorter than an output frame skipped" : ""))
            lines.append(
                "  timing: worst \(ms(r.worstTimingErrorMs))\(r.worstTimingFrame.map { " (GIF frame \($0))" } ?? ""), "
                    + "mean \(String(format: "%.1f", r.meanTimingErrorMs)) ms, tolerance \(String(format: "%.1f", r.timingToleranceMs)) ms "
                    + "(\(r.timingMode))" + (shows.duration ? "; duration \(ms(r.durationErrorMs))" : ""))
        }
        var pixels = "  pixels: worst \(db(r.worstPSNR))"
        if let frame = r.worstPSNRFrame, r.worstPSNR != nil {
            pixels += " (output frame \(frame), GIF frame \(r.worstPSNRGifFrame ?? frame))"
        } else if !shows.framesAndTiming, let gif = r.worstPSNRGifFrame {
            pixels += " (GIF frame \(gif))"
        }
        pixels += ", mean \(db(r.meanPSNR)), " + (r.minPSNR.map { String(format: "bound %.1f dB", $0) } ?? "exact")
        if let ssim = r.meanSSIM {
            pixels += String(format: "; SSIM %.4f, %.4f weighted by delay (Y, at each frame's mid-delay)", ssim,
                             r.delayWeightedSSIM ?? ssim)
        }
        lines.append(pixels)
        for failure in r.failures { lines.append("  ✗ \(failure)") }
        return lines.joined(separator: "\n")
    }
}
