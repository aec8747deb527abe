import Foundation
import GifxChecks
import GifxFrames
import GifxPipeline
import GifxTimeline

/// Proves that outputs show the GIF: each output is decoded with its own reader (libavformat/libavcodec for
/// video and JPEG, libwebp for WebP, libpng for sheets and PNG posters), its frames are mapped onto the GIF's
/// schedule under the run's policy, and its pixels are compared with the composited GIF frame shown at that
/// time. Streaming: the GIF is decoded through `FrameStream`, one output frame is decoded at a time.
///
/// An output that cannot be read is a failed verification of that output (its report says why), not an
/// error of the run; errors about the GIF itself are thrown as usual.
public final class Verifier {
    public let inputPath: String
    public let run: RunSettings
    public let settings: VerifySettings
    let metadata: AnimationMetadata
    /// The input's schedule under the run's policy, which every output is checked against.
    package let timeline: Timeline

    /// The verifier of a conversion's own outputs (`RunSettings.verify`): the metadata and schedule it already has.
    package init(context: ConversionContext, settings: VerifySettings) {
        inputPath = context.inputPath
        run = context.settings
        self.settings = settings
        metadata = context.metadata
        timeline = context.timeline
    }

    public init(inputPath: String, run: RunSettings = RunSettings(), settings: VerifySettings = VerifySettings()) throws {
        if let problem = run.problem { throw problem }
        self.inputPath = inputPath
        self.run = run
        self.settings = settings
        metadata = try readAnimationMetadata(path: inputPath, limits: run.limits)
        timeline = Timeline(metadata.timelineInput, policy: run.policy)
    }

    /// How an output is read back, from its name (`OutputKind.forPath`): a sprite sheet's description (`.json`,
    /// `.tres`; any JSON), a PNG or JPEG poster, an animated WebP, or a video (anything else libavformat opens).
    /// The reader of the kind `path`'s ending names; a `.png` that is an animation (an APNG written with
    /// `-o apng:x.png`, or by another tool) is read as an APNG, every frame at its time, not as a poster.
    package static func reader(of path: String) -> OutputReader {
        let kind = OutputKind.forPath(path)
        if kind?.reader.name == OutputReader.pngPoster.name, isAnimatedPNG(path) { return OutputKind.apng.reader }
        return kind?.reader ?? .video
    }

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

    /// Verifies every output; never throws for an output's own defects (see the type's comment). A PNG that a
    /// sheet description given alongside names as one of its pages is verified as that page (the frames the
    /// description cuts from it), not as a poster.
    public func verify(_ paths: [String]) throws -> [OutputVerification] {
        var pageOwners: [String: String] = [:]
        for path in paths where Self.reader(of: path).name == OutputReader.sheetDescription.name {
            guard let cuts = try? SheetDescription.read(path: path).cuts else { continue }
            for cut in cuts where pageOwners[cut.page] == nil { pageOwners[cut.page] = path }
        }
        return try paths.map { path in
            if Self.reader(of: path).name == OutputReader.pngPoster.name, let sheet = pageOwners[Self.standardized(path)] {
                do {
                    return try verifySheet(sheet, onlyPage: Self.standardized(path), reportedAs: path)
                } catch let error as VerifyReadError {
                    return unreadable(path, error.description)
                }
            }
            return try verify(path)
        }
    }

    /// A path as a sheet description names its pages (absolute, `.` and `..` resolved).
    static func standardized(_ path: String) -> String { URL(fileURLWithPath: path).standardized.path }

    /// Verifies one output. `expected` narrows what a verifying conversion knows (the poster's frame, the
    /// timing tolerance of the plan, the plays written).
    public func verify(_ path: String, expected: Expectation = Expectation()) throws -> OutputVerification {
        do {
            return try Self.reader(of: path).verify(self, path, expected)
        } catch let error as VerifyReadError {
            return unreadable(path, error.description)
        } catch let error as LibavError {
            return unreadable(path, error.description)
        }
    }

    /// What the conversion that wrote an output knows about it.
    public struct Expectation: Sendable {
        /// The poster's GIF frame.
        public var posterFrame: Int?
        /// Plays of the animation the video holds.
        public var plays: Int?
        /// The timing tolerance of the plan the output was written with (ms) and its name.
        public var timingToleranceMs: Double?
        public var timingMode: String?
        public init(posterFrame: Int? = nil, plays: Int? = nil, timingToleranceMs: Double? = nil, timingMode: String? = nil) {
            self.posterFrame = posterFrame; self.plays = plays
            self.timingToleranceMs = timingToleranceMs; self.timingMode = timingMode
        }
    }

    func unreadable(_ path: String, _ why: String) -> OutputVerification {
        var report = OutputVerification(path: path, kind: Self.reader(of: path).name, codec: "?", width: 0, height: 0, exact: false)
        report.failures = ["cannot read the output: \(why)"]
        return report
    }

    private func feed() -> CanvasFeed { StreamCanvasFeed(path: inputPath, metadata: metadata, settings: run) }

    func verifyVideo(_ path: String, expected: Expectation, feed canvasFeed: CanvasFeed? = nil) throws -> OutputVerification {
        let reader = try AVFrameReader(path: path, threads: run.threads)
        var report = OutputVerification(
            path: path, kind: "video", codec: reader.codecName, width: reader.width, height: reader.height, exact: false)
        report.pixelFormat = reader.tags.pixelFormat
        report.colorSpace = reader.tags.colorSpace
        report.colorRange = reader.tags.colorRange
        report.colorPrimaries = reader.tags.colorPrimaries
        report.colorTransfer = reader.tags.colorTransfer
        report.level = reader.tags.level
        report.profile = reader.tags.profile
        let playMs = timeline.milliseconds(timeline.duration.units)
        // The plays the file holds, from its packets (a `--loops k` video holds k): never from the declared
        // length, which is what is checked against them (a header that declared 10x the schedule read as 10 plays).
        let fromPackets = AVFrameReader.packetSpan(path: path).map { $0.seconds / timeline.playDuration.seconds }
        let plays = expected.plays ?? (fromPackets ?? reader.durationMs.map { $0 / playMs }).map { max(1, Int($0.rounded())) } ?? 1
        // The first frame tells the pixel format, matrix and range the references go through.
        let first = try reader.next()
        let maker = try ReferenceMaker(
            canvas: timeline.canvas, output: CanvasSize(width: reader.width, height: reader.height),
            keepAlpha: reader.hasAlpha, background: settings.background, chroma: reader.yuvFormat)
        let matcher = TimedMatcher(
            timeline: timeline, source: CanvasReferenceSource(feed: canvasFeed ?? feed(), maker: maker), plays: plays,
            bound: settings.minPSNR ?? VerifyDefaults.minPSNR, memoryBudget: run.memoryBudget,
            ssimWeights: LumaSSIM.weights(colorSpace: reader.tags.colorSpace))
        if settings.recordsFrames { matcher.frameLog = [] }
        var next = first
        while let (start, duration) = next {
            try reader.rgba.withUnsafeBufferPointer {
                try matcher.add(ShownFrame(
                    pixels: $0.baseAddress!, stride: reader.frameWidth, startMs: start, endMs: start + duration))
            }
            next = try reader.next()
        }
        let declaredMs = reader.durationMs.map { $0 - reader.startOffsetMs }
        matcher.finish(into: &report, settings: settings, knownTolerance: known(expected), endMs: declaredMs)
        // An AVIF's loop count, from its edit list: the schedule's plays, or once for a `--loops k` AVIF, whose
        // frames hold the k plays.
        // Read by the AVIF input's own reader of edit lists (as Chromium and Firefox read them).
        if let declared = try AVIFBoxes.declaredLoop(path: path) {
            let count: Int
            switch declared {
            case .still: count = 1
            case .plays(let n): count = n
            case .forever: count = 0
            }
            let wanted = plays > 1 ? 1 : timeline.loop.plays ?? 0
            report.loopCount = count
            report.expectedLoopCount = wanted
            if count != wanted {
                report.failures.append("loop count \(count), the schedule's is \(wanted) (0: forever)")
            }
        }
        // What the file declares (the container's length: MP4 mvhd/tkhd/mdhd, the Matroska Duration) against the
        // schedule's plays: within the timing mode's tolerance (one output frame at a resampled rate, whose last
        // frame ends on its own grid) and at least a millisecond (WebM counts whole ms).
        if let declaredMs, abs(declaredMs - Double(plays) * playMs) > max(1, report.timingToleranceMs) {
            report.failures.append(String(
                format: "declares %.3f s, the schedule is %.3f s%@", declaredMs / 1000, Double(plays) * playMs / 1000,
                plays > 1 ? " (\(plays) plays)" : ""))
        }
        return report
    }

    private func known(_ expected: Expectation) -> (Double, String)? {
        expected.timingToleranceMs.map { ($0, expected.timingMode ?? "plan") }
    }

    /// `source`/`target` serve a verifying conversion (digests of the conversion's canvases; the temporary read, the target
    /// named). A lossy WebP's pixels cannot be checked against digests: in a verifying conversion only its frames,
    /// timing and loop count are.
    /// `memoryBudget`: a verifying conversion's share for the check (else the run's budget).
    func verifyWebP(
        _ path: String, source given: ReferenceSource? = nil, target: String? = nil, memoryBudget: Int? = nil
    ) throws -> OutputVerification {
        let reader = try WebPFrameReader(path: path, threads: run.threads)
        var report = OutputVerification(
            path: target ?? path, kind: "webp", codec: reader.lossless ? "webp (lossless)" : "webp (lossy)", width: reader.width,
            height: reader.height, exact: reader.lossless)
        report.loopCount = reader.loopCount
        report.expectedLoopCount = timeline.loop.plays ?? 0
        let maker = try ReferenceMaker(
            canvas: timeline.canvas, output: CanvasSize(width: reader.width, height: reader.height), keepAlpha: true,
            background: settings.background)
        let pixelsChecked = given == nil || reader.lossless
        let matcher = TimedMatcher(
            timeline: timeline,
            source: pixelsChecked ? given ?? CanvasReferenceSource(feed: feed(), maker: maker)
                : UncheckedReferenceSource(width: maker.width, height: maker.height),
            plays: 1, bound: reader.lossless ? nil : settings.minPSNR ?? VerifyDefaults.minPSNR,
            memoryBudget: memoryBudget ?? run.memoryBudget)
        if settings.recordsFrames { matcher.frameLog = [] }
        // A still WebP (gifx writes one for a GIF of one frame): shown as long as the page shows it, so it
        // lasts the GIF's one frame and has no loop count to compare (found by the encoder matrix).
        let still = !reader.animated && reader.frameCount == 1 && timeline.frames.count == 1
        while let (start, duration) = try reader.next(), let pixels = reader.pixels {
            let end = still ? timeline.playDuration.seconds * 1000 : start + duration
            try matcher.add(ShownFrame(pixels: pixels, stride: reader.width, startMs: start, endMs: end))
        }
        matcher.finish(into: &report, settings: settings)
        if !still && reader.loopCount != report.expectedLoopCount {
            report.failures.append("loop count \(reader.loopCount), the schedule's is \(report.expectedLoopCount ?? 0) (0: forever)")
        }
        return report
    }
}
