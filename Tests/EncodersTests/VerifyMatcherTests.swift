@testable import GifxChecks
@testable import GifxEncoders
@testable import GifxPipeline
import GifxTimeline
import Testing

/// The verifier's engine on synthetic frames whose answers are known by construction: a 1×1 "image" per GIF
/// frame (its own grey level), output frames placed by hand.
@Suite struct VerifyMatcherTests {
    /// Delays 10, 20, 30 cs: starts 0, 100, 300 ms, 600 ms in all.
    static let timeline = Timeline(TimelineInput(
        canvas: CanvasSize(width: 1, height: 1), loopCount: 0,
        frames: [10, 20, 30].map {
            FrameDescriptor(rawDelay: $0, rect: PixelRect(x: 0, y: 0, width: 1, height: 1), disposal: .none,
                            transparentIndex: nil, interlaced: false)
        }))

    /// Grey level of GIF frame `i`: far apart, so a wrong frame is 40+ dB off.
    static func grey(_ i: Int) -> UInt8 { UInt8(40 + 80 * i) }

    final class Frames: ReferenceSource {
        var index = 0
        let width = 1, height = 1
        var bytesPerReference: Int { 4 }
        func next() throws -> Reference? {
            defer { index += 1 }
            let g = VerifyMatcherTests.grey(index % 3)
            return .pixels([g, g, g, 255])
        }
    }

    /// Runs output frames (grey level of the GIF frame shown, start ms) through a matcher, last frame ending at `end`.
    static func run(_ shown: [(Int, Double)], end: Double, plays: Int = 1, settings: VerifySettings = VerifySettings())
        throws -> OutputVerification
    {
        let matcher = TimedMatcher(timeline: timeline, source: Frames(), plays: plays, bound: 30, memoryBudget: nil)
        for (k, (frame, start)) in shown.enumerated() {
            let g = grey(frame)
            let pixels: [UInt8] = [g, g, g, 255]
            let next = k + 1 < shown.count ? shown[k + 1].1 : end
            try pixels.withUnsafeBufferPointer {
                try matcher.add(ShownFrame(pixels: $0.baseAddress!, stride: 1, startMs: start, endMs: next))
            }
        }
        var report = OutputVerification(path: "x", kind: "video", codec: "test", width: 1, height: 1, exact: false)
        matcher.finish(into: &report, settings: settings, endMs: end)
        return report
    }

    @Test func exactVFRVerifies() throws {
        let report = try Self.run([(0, 0), (1, 100), (2, 300)], end: 600)
        #expect(report.failures == [])
        #expect(report.worstTimingErrorMs == 0)
        #expect(report.timingToleranceMs == VerifyDefaults.exactTimingMs)
    }

    /// Frame 2 shown 40 ms late (at 340 instead of 300): the timing check names it.
    @Test func lateFrameIsNamedWithItsError() throws {
        let report = try Self.run([(0, 0), (1, 100), (1, 300), (2, 340)], end: 600)
        #expect(report.worstTimingFrame == 2)
        #expect(abs(report.worstTimingErrorMs - 40) < 1e-9)
        #expect(report.failures.contains { $0.hasPrefix("timing: GIF frame 2 shown 40.0 ms late") })
    }

    /// CFR at 25 fps (40 ms frames): frame 1 (start 100) first shows at 120, frame 2 (start 300) at 320; 40 ms
    /// divides no delay, so the tolerance is one output frame (40 + 1 ms) and 20 ms passes.
    @Test func resampledCFRGetsOneFrameOfTolerance() throws {
        let shown = (0..<15).map { k -> (Int, Double) in
            let t = Double(k) * 40
            return (t < 100 ? 0 : t < 300 ? 1 : 2, t)
        }
        let report = try Self.run(shown, end: 600)
        #expect(report.failures == [], "\(report.failures)")
        #expect(abs(report.worstTimingErrorMs - 20) < 1e-9)
        #expect(abs(report.timingToleranceMs - 41) < 1e-9)
        let strict = try Self.run(shown, end: 600, settings: VerifySettings(maxTimingErrorMs: 10))
        #expect(strict.failures.contains { $0.hasPrefix("timing: GIF frame 1 shown 20.0 ms late") }, "\(strict.failures)")
    }

    @Test func missingExtraAndRepeatedAreCounted() throws {
        // Frame 1 never shown (frame 0 held instead), then frame 0 again after frame 2, then a frame past the end.
        let report = try Self.run([(0, 0), (0, 100), (2, 300), (0, 450), (2, 600)], end: 700)
        #expect(report.missingFrames == 1 && report.missingIndices == [1])
        #expect(report.repeatedFrames == 1)
        #expect(report.extraFrames == 1)
        #expect(abs(report.durationErrorMs - 100) < 1e-9)
    }

    /// Annex B (an encoder's) and length-prefixed (an MP4's: 4-byte lengths, or 2 from `AVCShortLengths`) H.264
    /// access units digest alike, NAL unit by NAL unit, even when a length prefix looks like a start code
    /// (0x00000123).
    @Test func nalFramingsAgree() {
        let nals: [[UInt8]] = [[0x67, 1, 2, 3], Array(repeating: 0x41, count: 0x123)]
        let annexB: [UInt8] = nals.flatMap { nal -> [UInt8] in [0, 0, 0, 1] + nal }
        let prefixed = nals.flatMap { nal -> [UInt8] in
            let n = nal.count
            return [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + nal
        }
        let a = annexB.withUnsafeBufferPointer { NALFraming.annexB.units($0) }.map { Array(annexB[$0]) }
        let p = prefixed.withUnsafeBufferPointer { NALFraming.lengthPrefixed(4).units($0) }.map { Array(prefixed[$0]) }
        let short = nals.flatMap { nal -> [UInt8] in [UInt8(nal.count >> 8), UInt8(nal.count & 0xFF)] + nal }
        let s = short.withUnsafeBufferPointer { NALFraming.lengthPrefixed(2).units($0) }.map { Array(short[$0]) }
        #expect(a == nals)
        #expect(p == nals)
        #expect(s == nals)
    }
}
