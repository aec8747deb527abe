import Foundation
import GifxChecks
import GifxFrames
import GifxPipeline
import GifxTimeline

/// A verified poster: a PNG's frame compared exactly with its canvas's digest; a JPEG's with its reference pixels
/// (the canvas over the background), within the PSNR bound.
extension PosterSink: VerifiableSink {
    package func makeCheck(context: ConversionContext, settings: VerifySettings) throws -> any OutputCheck {
        let canvas = context.metadata.canvas
        let references: CanvasReferences
        if case .jpeg(let options) = format {
            references = CanvasReferences(
                try ReferenceMaker(canvas: canvas, output: canvas, keepAlpha: false, background: options.background),
                keepingPixelsOf: frame)
        } else {
            references = CanvasReferences(
                try ReferenceMaker(canvas: canvas, output: canvas, keepAlpha: true, background: .white))
        }
        let png = if case .png = format { true } else { false }
        return PosterCheck(
            target: target, frame: frame, png: png, canvasBytes: context.metadata.canvasBytes, references: references)
    }
}

/// The check of one poster: the image read back (2 canvases and 4 MiB). It sees the canvases up to its frame and
/// stops with its sink.
final class PosterCheck: OutputCheck {
    private let target: String
    private let frame: Int
    /// A PNG poster (else a JPEG).
    private let png: Bool
    private let references: CanvasReferences
    let memoryBytes: Int

    init(target: String, frame: Int, png: Bool, canvasBytes: Int, references: CanvasReferences) {
        self.target = target
        self.frame = frame
        self.png = png
        self.references = references
        memoryBytes = 2 * canvasBytes + (4 << 20)
    }

    var observesCanvases: Bool { true }
    func observe(_ canvas: Canvas) { references.observe(canvas) }

    func verify(_ temporaries: [AtomicOutput], in context: ConversionContext, settings: VerifySettings) throws
        -> OutputVerification?
    {
        let verifier = Verifier(context: context, settings: settings)
        guard let output = temporaries.first else { return nil }
        return try verifier.verifyPoster(
            output.temporaryPath, expected: Verifier.Expectation(posterFrame: frame), png: png,
            given: references.reference(ofFrame: frame), target: target)
    }
}

extension Verifier {
    /// A poster: which GIF frame it shows (the expected one in a verifying conversion, else the best match of all),
    /// exactly for a PNG (`png`), within the JPEG bound for a JPEG.
    /// `given`: the expected frame's reference, kept by a verifying conversion (no GIF decode then); `target` names the output.
    func verifyPoster(
        _ path: String, expected: Expectation, png isPNG: Bool, given: Reference? = nil, target: String? = nil
    ) throws -> OutputVerification {
        var image: (pixels: UnsafePointer<UInt8>, stride: Int, width: Int, height: Int)
        let png = isPNG ? try PNGImage(path: path) : nil
        let jpeg = isPNG ? nil : try AVFrameReader(path: path, threads: run.threads)
        var report: OutputVerification
        if let png {
            image = (UnsafePointer(png.pixels), png.width, png.width, png.height)
            report = OutputVerification(
                path: target ?? path, kind: OutputKind.pngPoster.reader.name, codec: "png", width: png.width,
                height: png.height, exact: true)
        } else {
            let reader = jpeg!
            guard try reader.next() != nil else { throw VerifyReadError("no image in the JPEG") }
            report = OutputVerification(
                path: target ?? path, kind: OutputKind.pngPoster.reader.name, codec: reader.codecName, width: reader.width,
                height: reader.height,
                exact: false)
            report.pixelFormat = reader.tags.pixelFormat
            report.colorSpace = reader.tags.colorSpace
            report.colorRange = reader.tags.colorRange
            image = (reader.rgba.withUnsafeBufferPointer { $0.baseAddress! }, reader.frameWidth, reader.width, reader.height)
        }
        let bound = isPNG ? nil : settings.minPSNR ?? VerifyDefaults.minPSNR
        report.minPSNR = bound
        report.outputFrames = 1
        report.scheduledFrames = 1
        let maker = try ReferenceMaker(
            canvas: timeline.canvas, output: CanvasSize(width: image.width, height: image.height), keepAlpha: isPNG,
            background: settings.background,
            chroma: jpeg?.yuvFormat)
        var best: (frame: Int, result: PixelComparison)?
        func consider(_ reference: Reference, frame: Int) {
            let result: PixelComparison
            switch reference {
            case .pixels(let pixels):
                result = pixels.withUnsafeBufferPointer {
                    PixelComparison.compare(
                        image.pixels, aStride: image.stride, $0.baseAddress!, bStride: maker.width, width: maker.width,
                        height: maker.height)
                }
            case .digest(let digest):
                result = .same(
                    FrameDigest.digest(image.pixels, stride: image.stride, width: maker.width, height: maker.height) == digest,
                    pixels: maker.width * maker.height)
            case .unchecked, .planes, .absent:
                result = .same(true, pixels: 0)
            }
            if best == nil || result.squaredError < best!.result.squaredError { best = (frame, result) }
        }
        if let given, let frame = expected.posterFrame {
            if case .pixels(var pixels) = given {  // kept before the JPEG existed: through its chroma now
                pixels.withUnsafeMutableBufferPointer { maker.roundTrip(in: $0.baseAddress!) }
                consider(.pixels(pixels), frame: frame)
            } else {
                consider(given, frame: frame)
            }
        } else {
            var reference = [UInt8](repeating: 0, count: maker.allocationBytes)
            let stream = try FrameStream(
                path: inputPath, metadata: metadata, limits: run.limits, memoryBudget: run.memoryBudget, threads: run.decodeThreads(for: metadata))
            defer { stream.close() }
            var index = 0
            while try stream.nextCanvas({ (canvas: Canvas) -> Void in
                if expected.posterFrame == nil || expected.posterFrame == index {
                    reference.withUnsafeMutableBufferPointer { maker.make(canvas, into: $0.baseAddress!) }
                    consider(.pixels(reference), frame: index)
                }
            }) != nil {
                index += 1
                if let frame = expected.posterFrame, index > frame { break }
            }
        }
        withExtendedLifetime(jpeg) { _ = $0 }
        guard let best else {
            report.failures.append("the GIF has no frame \(expected.posterFrame ?? 0)")
            return report
        }
        report.worstPSNR = best.result.psnr
        report.meanPSNR = best.result.psnr
        report.worstPSNRFrame = 0
        report.worstPSNRGifFrame = best.frame
        if !best.result.passes(minPSNR: bound) {
            report.mismatchedFrames = 1
            report.failures.append(bound.map {
                String(format: "pixels: %.2f dB against GIF frame %d, below %.1f dB", best.result.psnr ?? 0, best.frame, $0)
            } ?? "pixels: \(best.result.differingPixels) pixels differ from GIF frame \(best.frame), the closest")
            if isPNG, target == nil, let hint = sheetPageHint(path, width: image.width, height: image.height) {
                report.failures.append(hint)
            }
        }
        return report
    }
}
