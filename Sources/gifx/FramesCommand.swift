import ArgumentParser
import Foundation
import GifxKit

#if canImport(Glibc)
import Glibc
#endif

/// Hidden developer aid: writes every composited canvas as a PNG, so you can see what the encoders receive.
struct FramesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "frames", abstract: "Write each composited canvas as DIR/frame-NNNN.png (developer aid).",
        shouldDisplay: false)

    @Argument(help: "Input \(InputFormat.helpPhrase()) (told by content), or - for standard input.") var input: String
    @Option(name: .long, help: "Folder for the PNGs (created if missing).") var out: String?
    @Flag(help: "Decode and composite only, write nothing; print throughput (like ffmpeg -f null).")
    var null = false
    @Flag(help: "Fail on damaged data instead of keeping what decodes.") var strict = false
    @Flag(help: "No warnings on stderr.") var quiet = false
    @Option(help: "Threads decoding frames (default: one per 2^20 composited pixels, frames × canvas, at most the cores; one for canvases under 32,768 pixels; 1: the sequential decoder).") var threads: Int?
    @Option(help: "LZW decoder: gifx (its own, the default) or giflib (the reference).") var decoder: GifDecoderKind = .gifx
    @OptionGroup(title: "Edits") var edits: EditOptions

    /// The run's settings: only decoding ones apply (strictness, threads, the developer switches).
    var settings: RunSettings {
        var settings = RunSettings(limits: DecodeLimits(strict: strict, decoder: decoder), threads: threads)
        DeveloperSwitches.current.apply(to: &settings)
        return edits.applied(to: settings)
    }

    func validate() throws {
        if (out == nil) == !null { throw ValidationError("give either --out DIR or --null") }
        if let problem = settings.problem { throw ValidationError(problem.commandLineWording) }
    }

    func run() throws {
        if let out {
            do {
                try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            } catch {
                printError(out, "cannot create folder: \(error.localizedDescription)")
                throw ExitCode(ExitStatus.cannotCreate)
            }
        }
        try reportingErrors(input: input) {
            let started = Date()
            let report = try InputSource.withPath(input) { path in
                try GifConverter(settings: settings).convert(path: path, to: [.canvases(folder: out)])
            }
            guard let written = (report.outputs[0] as? CanvasesResult)?.count else { return }
            printWarnings(report.warnings, input: input, quiet: quiet)
            if let out {
                print("\(written) frames written to \(out)")
            } else {
                let seconds = Date().timeIntervalSince(started)
                let megapixels = Double(written * report.canvas.width * report.canvas.height) / 1e6
                let decode = report.decode
                print(String(
                    format: "%d frames %dx%d, %.1f MP in %.3f s: %.1f MP/s (metadata %.3f s; cache %d canvases, peak %d bytes; %d threads, window %d frames, %d bands; composite %.3f s, lzw %.3f s, busiest band %.3f s: serial fraction %.3f)",
                    written, report.canvas.width, report.canvas.height, megapixels, seconds,
                    megapixels / max(seconds, 1e-9), report.metadataSeconds, report.cacheCapacity,
                    report.peakCacheBytes, decode.threads, decode.window, decode.bands, decode.compositeSeconds,
                    decode.lzwSeconds, decode.longestBandSeconds, decode.serialFraction))
            }
        }
    }
}
