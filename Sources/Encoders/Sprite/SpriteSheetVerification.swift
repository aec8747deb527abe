import Foundation
import GifxChecks
import GifxFrames
import GifxPOSIXFiles
import GifxPipeline
import GifxTimeline

/// A verified sprite sheet: a digest of every cell as the sheet scales it, compared exactly with each cell read
/// back from the page temporaries the JSON names.
extension SpriteSheetSink: VerifiableSink {
    package func makeCheck(context: ConversionContext, settings: VerifySettings) throws -> any OutputCheck {
        let canvas = context.metadata.canvas
        let cell = options.size.size(for: canvas)
        return SpriteSheetCheck(
            options: options, cell: cell, canvasBytes: context.metadata.canvasBytes,
            references: CanvasReferences(
                try ReferenceMaker(canvas: canvas, output: cell, keepAlpha: true, background: .white, exactScaling: true)))
    }
}

/// The check of one sheet: the page reader's buffers (2 canvases and 4 MiB).
final class SpriteSheetCheck: OutputCheck {
    private let options: SpriteOptions
    private let cell: CanvasSize
    private let references: CanvasReferences
    let memoryBytes: Int

    init(options: SpriteOptions, cell: CanvasSize, canvasBytes: Int, references: CanvasReferences) {
        self.options = options
        self.cell = cell
        self.references = references
        memoryBytes = 2 * canvasBytes + (4 << 20)
    }

    var observesCanvases: Bool { true }
    var needsEveryCanvas: Bool { true }
    func observe(_ canvas: Canvas) { references.observe(canvas) }

    func verify(_ temporaries: [AtomicOutput], in context: ConversionContext, settings: VerifySettings) throws
        -> OutputVerification?
    {
        let verifier = Verifier(context: context, settings: settings)
        var pageMap: [String: String] = [:]
        for output in temporaries {
            pageMap[URL(fileURLWithPath: output.targetPath).standardized.path] = output.temporaryPath
        }
        let json = URL(fileURLWithPath: options.jsonPath).standardized.path
        guard let temporary = pageMap[json] else { return nil }
        return try verifier.verifySheet(
            temporary, target: options.jsonPath, pageMap: pageMap,
            source: DigestReferenceSource(digests: references.digests, width: cell.width, height: cell.height))
    }
}

/// Sprite sheets: outputs without presentation times.
extension Verifier {
    /// A sheet: every JSON frame cut from its page (placed at its offset in its untrimmed frame) against the GIF
    /// frame of the same position, exactly when the frame keeps the canvas size (else PSNR, as scaled); each
    /// frame's duration against its delay. A frame whose cut shows another GIF frame is named with that frame
    /// (swapped rects). One page is held at a time, and one digest per GIF frame to name those.
    /// `target` and `pageMap` serve a verifying conversion: the description is read from its temporary `path` but names its
    /// pages relative to `target`, and each page is read from its temporary; `source` gives the references
    /// (digests there), else the GIF is decoded.
    /// `onlyPage` (a page's standardized path): only the frames the description cuts from that page are checked,
    /// and the report, named `reportedAs`, is that page's (`gifx verify in.gif sheet.png sheet.json`); the frames
    /// missing or extra are the whole sheet's report's.
    func verifySheet(
        _ path: String, target: String? = nil, pageMap: [String: String] = [:], source given: ReferenceSource? = nil,
        onlyPage: String? = nil, reportedAs: String? = nil
    ) throws -> OutputVerification {
        let (format, cuts) = try SheetDescription.read(path: path, target: target, pageMap: pageMap)
        let canvas = timeline.canvas
        let sourceSize = cuts.first.map { CanvasSize(width: $0.sourceW, height: $0.sourceH) } ?? canvas
        let exact = sourceSize == canvas
        let description = ((target ?? path) as NSString).lastPathComponent
        var report = OutputVerification(
            path: reportedAs ?? target ?? path,
            kind: onlyPage == nil ? OutputKind.sheet.reader.name : OutputKind.sheet.reader.partName!,
            codec: onlyPage == nil ? "png (\(format))" : "png (page of \(description), \(format))",
            width: sourceSize.width, height: sourceSize.height, exact: exact)
        var pageNames: [String] = []
        for cut in cuts where !pageNames.contains(cut.page) { pageNames.append(cut.page) }
        report.pages = onlyPage.map { [$0] } ?? pageNames
        let pageCuts = onlyPage.map { page in cuts.indices.filter { cuts[$0].page == page } }
        let bound = exact ? nil : settings.minPSNR ?? VerifyDefaults.minPSNR
        report.minPSNR = bound
        let source = try given ?? CanvasReferenceSource(
            feed: StreamCanvasFeed(path: inputPath, metadata: metadata, settings: run),
            maker: ReferenceMaker(canvas: canvas, output: sourceSize, keepAlpha: true, background: settings.background, exactScaling: true))
        var cutPixels = [UInt8](repeating: 0, count: sourceSize.width * sourceSize.height * 4)
        var page: PNGBand?
        let bandRows = max(1, cuts.map(\.h).max() ?? 1)
        var referenceDigests: [Int: [Int]] = [:]
        var wrong: [(frame: Int, digest: Int)] = []
        var squaredError = 0.0, samples = 0
        var worstTiming = 0.0, timingSum = 0.0
        var index = 0
        while index < timeline.frames.count, let reference = try source.next() {
            defer { index += 1 }
            let referenceDigest: Int
            switch reference {
            case .pixels(let pixels): referenceDigest = FrameDigest.digest(pixels, width: sourceSize.width, height: sourceSize.height)
            case .digest(let digest): referenceDigest = digest
            case .unchecked, .planes, .absent: referenceDigest = 0
            }
            referenceDigests[referenceDigest, default: []].append(index)
            guard index < cuts.count else { continue }
            let cut = cuts[index]
            if let onlyPage, cut.page != onlyPage { continue }
            if page?.path != cut.page { page = try PNGBand(path: cut.page, capacity: bandRows) }
            guard let image = page, cut.x >= 0, cut.y >= 0, cut.x + cut.w <= image.width,
                  cut.y + cut.h <= image.height, cut.offsetX + cut.w <= sourceSize.width,
                  cut.offsetY + cut.h <= sourceSize.height, cut.sourceW == sourceSize.width,
                  cut.sourceH == sourceSize.height
            else {
                report.failures.append("frame \(index): its rect lies outside its page or frame")
                continue
            }
            // A whole untrimmed cell is read where it lies on the page; a trimmed one is placed in its frame first.
            let whole = cut.offsetX == 0 && cut.offsetY == 0 && cut.w == sourceSize.width && cut.h == sourceSize.height
            let band = try image.rows(cut.y, cut.h)
            if !whole {
                cutPixels.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
                for row in 0..<cut.h {
                    let from = band + (row * image.width + cut.x) * 4
                    cutPixels.withUnsafeMutableBufferPointer {
                        ($0.baseAddress! + ((cut.offsetY + row) * sourceSize.width + cut.offsetX) * 4)
                            .update(from: from, count: cut.w * 4)
                    }
                }
            }
            func withCut<R>(_ body: (UnsafePointer<UInt8>, Int) -> R) -> R {
                if whole { return body(band + cut.x * 4, image.width) }
                return cutPixels.withUnsafeBufferPointer { body($0.baseAddress!, sourceSize.width) }
            }
            let cutDigest = { withCut { FrameDigest.digest($0, stride: $1, width: sourceSize.width, height: sourceSize.height) } }
            let result: PixelComparison
            switch reference {
            case .pixels(let pixels):
                result = withCut { a, stride in
                    pixels.withUnsafeBufferPointer { b in
                        PixelComparison.compare(
                            a, aStride: stride, b.baseAddress!, bStride: sourceSize.width,
                            width: sourceSize.width, height: sourceSize.height)
                    }
                }
            case .digest(let digest):
                result = .same(cutDigest() == digest, pixels: sourceSize.width * sourceSize.height)
            case .unchecked, .planes, .absent:
                result = .same(true, pixels: 0)
            }
            if !result.squaredError.isNaN {
                squaredError += result.squaredError
                samples += result.samples
            }
            if let psnr = result.psnr, report.worstPSNR == nil || psnr < report.worstPSNR! {
                report.worstPSNR = psnr
                report.worstPSNRFrame = index
                report.worstPSNRGifFrame = index
            }
            if !result.passes(minPSNR: bound) {
                report.mismatchedFrames += 1
                wrong.append((index, cutDigest()))
            }
            let error = cut.durationMs - timeline.milliseconds(timeline.frames[index].delay)
            timingSum += abs(error)
            if abs(error) > abs(worstTiming) || report.worstTimingFrame == nil {
                worstTiming = error
                report.worstTimingFrame = index
            }
        }
        let checked = pageCuts.map { $0.filter { $0 < timeline.frames.count }.count } ?? min(cuts.count, timeline.frames.count)
        report.outputFrames = pageCuts?.count ?? cuts.count
        report.scheduledFrames = pageCuts?.count ?? timeline.frames.count
        report.worstTimingErrorMs = worstTiming
        report.meanTimingErrorMs = checked == 0 ? 0 : timingSum / Double(checked)
        if squaredError > 0 { report.meanPSNR = 10 * log10(255.0 * 255.0 / (squaredError / Double(max(1, samples)))) }
        let tolerance = settings.maxTimingErrorMs ?? VerifyDefaults.exactTimingMs
        report.timingToleranceMs = tolerance
        report.timingMode = settings.maxTimingErrorMs == nil ? "exact, durations" : "requested"
        if let pageCuts {
            if pageCuts.isEmpty { report.failures.append("\(description) cuts no frame from this page") }
            if pageCuts.contains(where: { $0 >= timeline.frames.count }) {
                report.extraFrames = pageCuts.filter { $0 >= timeline.frames.count }.count
                report.failures.append("\(report.extraFrames) frames on this page past the end of the schedule")
            }
        } else if cuts.count < timeline.frames.count {
            report.missingFrames = timeline.frames.count - cuts.count
            report.missingIndices = Array(cuts.count..<min(timeline.frames.count, cuts.count + 10))
            report.failures.append("\(report.missingFrames) GIF frames missing (first: \(report.missingIndices.map(String.init).joined(separator: ", ")))")
        }
        if pageCuts == nil && cuts.count > timeline.frames.count {
            report.extraFrames = cuts.count - timeline.frames.count
            report.failures.append("\(report.extraFrames) extra frames past the end of the schedule")
        }
        if let frame = report.worstTimingFrame, abs(worstTiming) > tolerance {
            report.failures.append(String(
                format: "timing: frame %d lasts %.1f ms %@ than its delay (tolerance %.1f ms)", frame, abs(worstTiming),
                worstTiming > 0 ? "longer" : "shorter", tolerance))
        }
        if !wrong.isEmpty {
            let swapped = wrong.compactMap { item in
                referenceDigests[item.digest]?.first { $0 != item.frame }.map { [item.frame, $0] }
            }
            if !swapped.isEmpty {
                report.swappedRects = swapped
                report.failures.append("rects: " + swapped.map { "frame \($0[0]) shows GIF frame \($0[1])" }.joined(separator: ", "))
            }
            let others = wrong.count - swapped.count
            if others > 0 || swapped.isEmpty {
                report.failures.append(bound.map {
                    String(format: "pixels: %d frames below %.1f dB, worst %.2f dB at frame %d", wrong.count, $0,
                           report.worstPSNR ?? 0, report.worstPSNRFrame ?? wrong[0].frame)
                } ?? "pixels: \(wrong.count) frames differ from the GIF (first: frame \(wrong[0].frame))")
            }
        }
        return report
    }

    /// A PNG that failed as a poster but is a sprite sheet's page: named by a description beside it, or a grid
    /// of two or more cells of the GIF's frame size. One line saying to give the description.
    func sheetPageHint(_ path: String, width: Int, height: Int) -> String? {
        let page = Self.standardized(path)
        let folder = (page as NSString).deletingLastPathComponent
        let given = (path as NSString).deletingLastPathComponent
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
        for name in names where ["json", "tres"].contains((name as NSString).pathExtension.lowercased()) {
            let candidate = folder + "/" + name
            guard let bytes = POSIXFiles.fileSize(candidate), bytes < 64 << 20,
                  let cuts = try? SheetDescription.read(path: candidate).cuts, cuts.contains(where: { $0.page == page })
            else { continue }
            let shown = given.isEmpty ? name : given + "/" + name
            return "hint: this PNG is a page of the sprite sheet \(shown): give the description with it "
                + "(gifx verify IN.gif \(path) \(shown))"
        }
        let cell = timeline.canvas
        if width % cell.width == 0, height % cell.height == 0, (width / cell.width) * (height / cell.height) > 1 {
            return "hint: this PNG looks like a sprite sheet page (\(width / cell.width)x\(height / cell.height) cells "
                + "of the GIF's \(cell.width)x\(cell.height) frame): give the sheet's description (.json or .tres) with it"
        }
        return nil
    }
}
