import GifxFrames

/// What `verify` found in one output: how its frames map onto the GIF's schedule, how close its pixels are,
/// and what the file says about itself. Encoded as the JSON report of the CLI's `verify`.
public struct OutputVerification: Sendable, Codable, Equatable {
    /// The file verified (for a sprite sheet, its JSON; the pages are in `pages`).
    public var path: String
    /// `video`, `webp`, `sheet` or `poster`.
    public var kind: String
    /// Codec or format as the file declares it (`h264`, `vp9`, `webp`, `png`, `mjpeg`, …).
    public var codec: String
    public var width: Int
    public var height: Int
    /// Pixel format, colour space, range, primaries, transfer as the stream tags them (video and JPEG).
    public var pixelFormat: String?
    public var colorSpace: String?
    public var colorRange: String?
    public var colorPrimaries: String?
    public var colorTransfer: String?
    /// The codec level the stream declares (H.264: 31 = 3.1), when it has one.
    public var level: Int?
    public var profile: String?
    /// Whether every frame was compared exactly (lossless: sheets, PNG, lossless WebP).
    public var exact: Bool
    /// The loop count the file carries (WebP, Godot) and the one the GIF's schedule asks for; `nil`: none.
    public var loopCount: Int?
    public var expectedLoopCount: Int?
    /// The PNG pages of a sprite sheet.
    public var pages: [String]?

    /// Frames the output shows (decoded), and GIF frames (× plays) the schedule has for it.
    public var outputFrames = 0
    public var scheduledFrames = 0
    /// Plays of the animation the output holds (a video of 3 loops holds 3).
    public var plays = 1
    /// GIF frames the output never shows although one of its frames should (their first indices).
    public var missingFrames = 0
    public var missingIndices: [Int] = []
    /// GIF frames shorter than one output frame that a resampled output legitimately skips.
    public var skippedShortFrames = 0
    /// Output frames past the end of the schedule.
    public var extraFrames = 0
    /// Output frames that show a GIF frame again after a later one was shown (out of order).
    public var repeatedFrames = 0

    /// Timing: each GIF frame's first appearance against its scheduled start, in ms.
    public var worstTimingErrorMs = 0.0
    public var worstTimingFrame: Int?
    public var meanTimingErrorMs = 0.0
    public var timingToleranceMs = 0.0
    /// How the tolerance was chosen: `exact`, `cfr 30 fps (one frame)`, `requested`.
    public var timingMode = ""
    /// The output's duration minus the schedule's (plays × the GIF's duration), in ms.
    public var durationErrorMs = 0.0

    /// Pixels: PSNR (dB) of each shown frame against the composited GIF frame it shows (`nil`: infinite,
    /// identical), worst with its output frame and the GIF frame it was compared with.
    public var worstPSNR: Double?
    public var meanPSNR: Double?
    public var worstPSNRFrame: Int?
    public var worstPSNRGifFrame: Int?
    /// The bound (`nil` when exact).
    public var minPSNR: Double?
    /// SSIM on luma of the frame shown at each GIF frame's mid-delay against that GIF frame (`LumaSSIM`, what
    /// `make bench-quality` reports): the mean over the GIF frames, and weighted by their delays (what a viewer
    /// sees); videos only, `nil` elsewhere.
    public var meanSSIM: Double?
    public var delayWeightedSSIM: Double?
    /// Exact outputs: frames with at least one differing pixel, and the first of them.
    public var mismatchedFrames = 0
    /// Sprite sheets: JSON frames whose rect shows another GIF frame's pixels, as (json frame, GIF frame).
    public var swappedRects: [[Int]]?

    /// Each output frame as it was matched, in presentation order; only when `VerifySettings.recordsFrames` asked
    /// for them (`gifx verify --report`), else `nil` and not written.
    public var frames: [VerifiedFrame]?

    /// One line per failed check; empty when the output verifies.
    public var failures: [String] = []
    public var passed: Bool { failures.isEmpty }

    public init(path: String, kind: String, codec: String, width: Int, height: Int, exact: Bool) {
        self.path = path; self.kind = kind; self.codec = codec; self.width = width; self.height = height
        self.exact = exact
    }

    private enum CodingKeys: String, CodingKey {
        case path, kind, codec, width, height, pixelFormat, colorSpace, colorRange, colorPrimaries, colorTransfer
        case level, profile, exact, loopCount, expectedLoopCount, pages, outputFrames, scheduledFrames, plays
        case missingFrames, missingIndices, skippedShortFrames, extraFrames, repeatedFrames
        case worstTimingErrorMs, worstTimingFrame, meanTimingErrorMs, timingToleranceMs, timingMode
        case durationErrorMs, worstPSNR, meanPSNR, worstPSNRFrame, worstPSNRGifFrame, minPSNR, mismatchedFrames
        case meanSSIM, delayWeightedSSIM
        case swappedRects, frames, failures, passed
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(path, forKey: .path); try c.encode(kind, forKey: .kind); try c.encode(codec, forKey: .codec)
        try c.encode(width, forKey: .width); try c.encode(height, forKey: .height)
        try c.encode(pixelFormat, forKey: .pixelFormat); try c.encode(colorSpace, forKey: .colorSpace)
        try c.encode(colorRange, forKey: .colorRange); try c.encode(colorPrimaries, forKey: .colorPrimaries)
        try c.encode(colorTransfer, forKey: .colorTransfer); try c.encode(level, forKey: .level)
        try c.encode(profile, forKey: .profile); try c.encode(exact, forKey: .exact)
        try c.encode(loopCount, forKey: .loopCount); try c.encode(expectedLoopCount, forKey: .expectedLoopCount)
        try c.encodeIfPresent(pages, forKey: .pages)
        try c.encode(outputFrames, forKey: .outputFrames); try c.encode(scheduledFrames, forKey: .scheduledFrames)
        try c.encode(plays, forKey: .plays); try c.encode(missingFrames, forKey: .missingFrames)
        try c.encode(missingIndices, forKey: .missingIndices)
        try c.encode(skippedShortFrames, forKey: .skippedShortFrames)
        try c.encode(extraFrames, forKey: .extraFrames); try c.encode(repeatedFrames, forKey: .repeatedFrames)
        try c.encode(worstTimingErrorMs, forKey: .worstTimingErrorMs)
        try c.encode(worstTimingFrame, forKey: .worstTimingFrame)
        try c.encode(meanTimingErrorMs, forKey: .meanTimingErrorMs)
        try c.encode(timingToleranceMs, forKey: .timingToleranceMs); try c.encode(timingMode, forKey: .timingMode)
        try c.encode(durationErrorMs, forKey: .durationErrorMs)
        try c.encode(worstPSNR, forKey: .worstPSNR); try c.encode(meanPSNR, forKey: .meanPSNR)
        try c.encode(worstPSNRFrame, forKey: .worstPSNRFrame)
        try c.encode(worstPSNRGifFrame, forKey: .worstPSNRGifFrame)
        try c.encode(minPSNR, forKey: .minPSNR); try c.encode(mismatchedFrames, forKey: .mismatchedFrames)
        try c.encodeIfPresent(meanSSIM, forKey: .meanSSIM)
        try c.encodeIfPresent(delayWeightedSSIM, forKey: .delayWeightedSSIM)
        try c.encodeIfPresent(swappedRects, forKey: .swappedRects)
        try c.encodeIfPresent(frames, forKey: .frames)
        try c.encode(failures, forKey: .failures); try c.encode(passed, forKey: .passed)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            path: try c.decode(String.self, forKey: .path), kind: try c.decode(String.self, forKey: .kind),
            codec: try c.decode(String.self, forKey: .codec), width: try c.decode(Int.self, forKey: .width),
            height: try c.decode(Int.self, forKey: .height), exact: try c.decode(Bool.self, forKey: .exact))
        outputFrames = try c.decode(Int.self, forKey: .outputFrames)
        missingFrames = try c.decode(Int.self, forKey: .missingFrames)
        extraFrames = try c.decode(Int.self, forKey: .extraFrames)
        repeatedFrames = try c.decode(Int.self, forKey: .repeatedFrames)
        worstTimingErrorMs = try c.decode(Double.self, forKey: .worstTimingErrorMs)
        worstTimingFrame = try c.decodeIfPresent(Int.self, forKey: .worstTimingFrame)
        worstPSNR = try c.decodeIfPresent(Double.self, forKey: .worstPSNR)
        worstPSNRFrame = try c.decodeIfPresent(Int.self, forKey: .worstPSNRFrame)
        mismatchedFrames = try c.decode(Int.self, forKey: .mismatchedFrames)
        meanSSIM = try c.decodeIfPresent(Double.self, forKey: .meanSSIM)
        delayWeightedSSIM = try c.decodeIfPresent(Double.self, forKey: .delayWeightedSSIM)
        swappedRects = try c.decodeIfPresent([[Int]].self, forKey: .swappedRects)
        frames = try c.decodeIfPresent([VerifiedFrame].self, forKey: .frames)
        failures = try c.decode([String].self, forKey: .failures)
    }
}

/// One output frame as the verifier matched it: when it starts, the GIF frame it was compared with, and how close.
public struct VerifiedFrame: Sendable, Codable, Equatable {
    /// When the frame starts showing, in ms from the output's start.
    public var startMs: Double
    /// The GIF frame it was compared with; `nil`: past the end of the schedule (an extra frame).
    public var gifFrame: Int?
    /// PSNR in dB against that GIF frame; `nil`: identical (or not compared, for an extra frame).
    public var psnr: Double?
    /// Whether it passed the pixel check (the bound, or exactness).
    public var passed: Bool

    public init(startMs: Double, gifFrame: Int?, psnr: Double?, passed: Bool) {
        self.startMs = startMs; self.gifFrame = gifFrame; self.psnr = psnr; self.passed = passed
    }
}

/// One or more outputs failed verification: the run's error, carrying every output's report.
public struct VerificationFailed: GifxError {
    public let reports: [OutputVerification]
    public init(reports: [OutputVerification]) { self.reports = reports }
    public var failureClass: FailureClass { .verificationFailed }
    public var description: String {
        reports.filter { !$0.passed }.map { "\($0.path): \($0.failures.joined(separator: "; "))" }
            .joined(separator: "\n")
    }
}
