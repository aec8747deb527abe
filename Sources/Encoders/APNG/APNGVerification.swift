import Foundation
import GifxChecks
import GifxFrames
import GifxPipeline
import GifxTimeline

/// A verified APNG: lossless, so a digest of every canvas is kept and compared exactly with each frame read back;
/// the delays must add up to the schedule's duration exactly (as fractions of a second), and acTL's plays must be
/// the policy's.
extension APNGSink: VerifiableSink {
    package func makeCheck(context: ConversionContext, settings: VerifySettings) throws -> any OutputCheck {
        let canvas = context.canvas
        return APNGCheck(
            target: target, canvas: canvas, canvasBytes: canvas.width * canvas.height * 4,
            references: CanvasReferences(
                try ReferenceMaker(canvas: canvas, output: canvas, keepAlpha: true, background: .white)))
    }
}

/// The check of one APNG: the reader's ring (two canvases), its copy of the frame read, and 4 MiB.
final class APNGCheck: OutputCheck {
    private let target: String
    private let canvas: CanvasSize
    private let references: CanvasReferences
    let memoryBytes: Int
    private var bytes: Int?

    init(target: String, canvas: CanvasSize, canvasBytes: Int, references: CanvasReferences) {
        self.target = target
        self.canvas = canvas
        self.references = references
        memoryBytes = 3 * canvasBytes + (4 << 20)
    }

    func useMemory(bytes: Int) { self.bytes = bytes }
    var observesCanvases: Bool { true }
    var needsEveryCanvas: Bool { true }
    func observe(_ canvas: Canvas) { references.observe(canvas) }

    func verify(_ temporaries: [AtomicOutput], in context: ConversionContext, settings: VerifySettings) throws
        -> OutputVerification?
    {
        let verifier = Verifier(context: context, settings: settings)
        guard let output = temporaries.first else { return nil }
        return try verifier.verifyAPNG(
            output.temporaryPath,
            source: DigestReferenceSource(digests: references.digests, width: canvas.width, height: canvas.height),
            target: target, memoryBudget: bytes)
    }
}

/// Reads an APNG back with gifx's own APNG input (Sources/Frames/APNG: chunk walk with every CRC and sequence
/// number checked, libpng per frame, the spec's dispose and blend ops): each frame's composited canvas and its
/// delay as the exact fraction the file stores, the plays acTL stores. Strict: damage fails the read.
final class APNGFrameReader {
    let metadata: AnimationMetadata
    private let stream: FrameStream
    private var index = 0
    /// The canvas of the frame last read (width × height RGBA).
    private(set) var pixels: [UInt8]
    /// Where the frame read last ends, as an exact fraction of a second.
    private(set) var end = MediaTime.zero

    var width: Int { metadata.canvas.width }
    var height: Int { metadata.canvas.height }
    /// acTL's num_plays (0: forever).
    var loopCount: Int? { metadata.loopCount }

    /// `path` decoded on the calling thread, its ring held to two canvases.
    init(path: String, limits: DecodeLimits) throws {
        var strict = limits
        strict.strict = true
        do {
            metadata = try readAnimationMetadata(path: path, limits: strict)
        } catch let error as GifDecodeError {
            throw VerifyReadError(error.description)
        }
        guard metadata.format == .apng else { throw VerifyReadError("not an animated PNG") }
        guard metadata.loopCount != nil else { throw VerifyReadError("no acTL chunk: a still PNG, not an animation") }
        if let warning = metadata.warnings.first { throw VerifyReadError(warning) }
        stream = try FrameStream(
            path: path, metadata: metadata, limits: strict, memoryBudget: 2 * metadata.canvasBytes, threads: 1)
        pixels = [UInt8](repeating: 0, count: metadata.canvasBytes)
    }

    deinit { stream.close() }

    /// The next frame's start and end (exact fractions of a second); its canvas in `pixels`.
    func next() throws -> (start: MediaTime, end: MediaTime)? {
        guard index < metadata.images.count else { return nil }
        let got: Void?
        do {
            got = try stream.nextCanvas { canvas in
                pixels.withUnsafeMutableBytes { $0.copyMemory(from: canvas.pixels) }
            }
        } catch let error as GifDecodeError {
            throw VerifyReadError(error.description)
        }
        guard got != nil else { throw VerifyReadError("frame \(index) cannot be decoded") }
        let numerator = metadata.images.descriptors[index].rawDelay ?? 0
        let stored = Int(metadata.delayDenominators[index])
        let start = end
        end = try MediaTime.adding(end, MediaTime(numerator, timescale: stored == 0 ? 100 : stored))  // den 0 means 100 (the APNG spec)
        index += 1
        return (start, end)
    }
}

extension Verifier {
    /// An APNG, read back by `APNGFrameReader`: its canvases against the schedule's (digests of a verifying
    /// conversion's canvases, else the input decoded again), exactly; its total duration against the schedule's
    /// as fractions; acTL's plays against the policy's.
    func verifyAPNG(
        _ path: String, source given: ReferenceSource? = nil, target: String? = nil, memoryBudget: Int? = nil
    ) throws -> OutputVerification {
        let reader = try APNGFrameReader(path: path, limits: run.limits)
        var report = OutputVerification(
            path: target ?? path, kind: "apng", codec: "png", width: reader.width, height: reader.height, exact: true)
        report.loopCount = reader.loopCount
        report.expectedLoopCount = timeline.loop.plays ?? 0
        guard reader.width == timeline.canvas.width, reader.height == timeline.canvas.height else {
            report.failures.append(
                "size \(reader.width)×\(reader.height), the canvas is \(timeline.canvas.width)×\(timeline.canvas.height)")
            return report
        }
        let maker = try ReferenceMaker(
            canvas: timeline.canvas, output: timeline.canvas, keepAlpha: true, background: settings.background)
        let matcher = TimedMatcher(
            timeline: timeline,
            source: given ?? CanvasReferenceSource(
                feed: StreamCanvasFeed(path: inputPath, metadata: metadata, settings: run), maker: maker),
            plays: 1, bound: nil, memoryBudget: memoryBudget ?? run.memoryBudget)
        if settings.recordsFrames { matcher.frameLog = [] }
        var end = MediaTime.zero
        while let (start, stop) = try reader.next() {
            end = stop
            try reader.pixels.withUnsafeBufferPointer {
                try matcher.add(ShownFrame(
                    pixels: $0.baseAddress!, stride: reader.width, startMs: start.approximateMilliseconds, endMs: stop.approximateMilliseconds))
            }
        }
        matcher.finish(into: &report, settings: settings)
        let expected = timeline.playDuration
        if end != expected {
            report.failures.append(
                "delays add up to \(end), the schedule lasts \(expected)")
        }
        if reader.loopCount != report.expectedLoopCount {
            report.failures.append(
                "loop count \(reader.loopCount ?? 0), the schedule's is \(report.expectedLoopCount ?? 0) (0: forever)")
        }
        return report
    }
}

extension Verifier {
    /// Whether the PNG at `path` has an `acTL` chunk before its first `IDAT` (an APNG, PNG spec 3rd ed. §11.3.6);
    /// false when it is unreadable or not a PNG (the poster's reader then says why).
    static func isAnimatedPNG(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let signature = try? handle.read(upToCount: 8), signature.elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        else { return false }
        var offset: UInt64 = 8
        // Chunks: length (4, big-endian), type (4), data, CRC (4); a few chunks precede IDAT, never many.
        for _ in 0..<64 {
            guard (try? handle.seek(toOffset: offset)) != nil, let header = try? handle.read(upToCount: 8), header.count == 8
            else { return false }
            let length = header.prefix(4).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            switch String(decoding: header.suffix(4), as: UTF8.self) {
            case "acTL": return true
            case "IDAT", "IEND": return false
            default: offset += 12 + length
            }
        }
        return false
    }
}
