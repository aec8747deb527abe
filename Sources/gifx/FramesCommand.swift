import ArgumentParser
import Encoders
import Foundation
import Frames

#if canImport(Glibc)
import Glibc
#endif

/// Hidden developer aid: writes every composited canvas as a PNG, so you can see what the encoders receive.
struct FramesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "frames", abstract: "Write each composited canvas as DIR/frame-NNNN.png (developer aid).",
        shouldDisplay: false)

    @Argument(help: "Input GIF.") var input: String
    @Option(name: .long, help: "Folder for the PNGs (created if missing).") var out: String?
    @Flag(help: "Decode and composite only, write nothing; print throughput (like ffmpeg -f null).")
    var null = false
    @Flag(help: "Fail on damaged data instead of keeping what decodes.") var strict = false
    @Flag(help: "No warnings on stderr.") var quiet = false
    @Option(help: "Threads decoding frames (default: the cores; 1: the sequential decoder).") var threads: Int?

    func validate() throws {
        if (out == nil) == !null { throw ValidationError("give either --out DIR or --null") }
        if let threads, threads < 1 || threads > 256 { throw ValidationError("--threads must be 1...256") }
    }

    func run() throws {
        if let out {
            do {
                try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            } catch {
                FileHandle.standardError.write(Data("gifx: \(out): cannot create folder: \(error.localizedDescription)\n".utf8))
                throw ExitCode(ExitStatus.cannotCreate)
            }
        }
        do {
            let started = Date()
            let limits = DecodeLimits(strict: strict)
            let metadata = try readGifMetadata(path: input, limits: limits)
            let metadataSeconds = Date().timeIntervalSince(started)
            let stream = try FrameStream(path: input, metadata: metadata, limits: limits, threads: threads)
            var written = 0
            while try stream.nextCanvas({ (canvas: Canvas) -> Void in
                if let out { try writeCanvasPNG(canvas, to: "\(out)/frame-\(String(format: "%04d", canvas.index)).png") }
            }) != nil {
                written += 1
            }
            if !quiet {
                for warning in stream.metadata.warnings + stream.warnings {
                    FileHandle.standardError.write(Data("gifx: \(input): warning: \(warning)\n".utf8))
                }
            }
            if let out {
                print("\(written) frames written to \(out)")
            } else {
                let seconds = Date().timeIntervalSince(started)
                let megapixels = Double(written * stream.canvasSize.width * stream.canvasSize.height) / 1e6
                print(String(
                    format: "%d frames %dx%d, %.1f MP in %.3f s: %.1f MP/s (metadata %.3f s; cache %d canvases, peak %d bytes; %d threads, window %d frames)",
                    written, stream.canvasSize.width, stream.canvasSize.height, megapixels, seconds,
                    megapixels / max(seconds, 1e-9), metadataSeconds, stream.capacity, stream.peakCacheBytes,
                    stream.threads, stream.decodeWindow))
            }
        } catch let error as any GifxError {
            let subject = (error as? GifDecodeError).map { _ in input } ?? error.subjectPath ?? out ?? input
            FileHandle.standardError.write(Data("gifx: \(subject): \(error.description)\n".utf8))
            throw ExitCode(error.exitCode)
        }
    }
}
