import Foundation
import GifxFrames
import GifxPipeline
import GifxTimeline

/// One decoded output frame, presentation order: 8-bit RGBA, shown from `startMs` to `endMs`.
package struct ShownFrame {
    /// The decoded planes, when compared as YUV (`Reference.planes`).
    package var planes: PlaneView? = nil
    package var pixels: UnsafePointer<UInt8>
    /// Row stride in pixels.
    package var stride: Int
    package var startMs: Double
    package var endMs: Double

    package init(planes: PlaneView? = nil, pixels: UnsafePointer<UInt8>, stride: Int, startMs: Double, endMs: Double) {
        self.planes = planes; self.pixels = pixels; self.stride = stride; self.startMs = startMs; self.endMs = endMs
    }
}

/// Maps an animated output's frames onto the GIF's schedule, streaming: each shown frame is compared with the GIF
/// frame the schedule shows at its start; when that fails the pixel check, with the GIF frames scheduled within
/// `VerifyDefaults.searchWindowMs` of it, so a frame shown early or late is named with its timing error rather
/// than counted as wrong pixels. Each GIF frame's first appearance, against its start, is its timing error.
///
/// Bounded: it holds a ring of references (at most `capacity`, from the memory budget) covering the search window
/// around the current output frame, and nothing per frame beyond the running statistics.
package final class TimedMatcher {
    private struct Entry {
        var sequence: Int
        var gifIndex: Int
        var startMs: Double
        var endMs: Double
        var reference: Reference
        var firstShownMs: Double?
        /// Whether the frame shown at this GIF frame's mid-delay has been measured (SSIM).
        var sampled = false
    }

    private let timeline: Timeline
    private let source: ReferenceSource
    /// The compared region (the reference's size).
    private let width: Int
    private let height: Int
    private let bound: Double?
    private let capacity: Int
    private let playMs: Double
    private let totalSequences: Int
    package let plays: Int
    /// Every output frame as matched, when the caller asks for them (`VerifySettings.recordsFrames`): set it to `[]`
    /// before the first `add`; `finish` hands it to the report.
    package var frameLog: [VerifiedFrame]?
    private var ring: [Entry] = []
    private var nextSequence = 0
    private var lastAssigned = -1
    private var outputFrames = 0
    private var lastEndMs = 0.0
    private var shortestMs = Double.infinity
    private var longestMs = 0.0
    private var previousDurationMs: Double?
    private var previousStartMs: Double?

    // Statistics.
    private var timingCount = 0
    private var timingSum = 0.0
    private var worstTiming = 0.0
    private var worstTimingFrame: Int?
    private var missing = 0
    private var missingIndices: [Int] = []
    private var skipped = 0
    private var extra = 0
    private var repeated = 0
    private var squaredError = 0.0
    private var samples = 0
    private var worstPSNR: Double?
    private var worstPSNRFrame: Int?
    private var worstPSNRGifFrame: Int?
    private var anyCompared = false
    private var failingPixels = 0
    private var firstFailing: (output: Int, gif: Int)?

    /// `plays`: how many plays of the schedule the output holds; `bound`: minimum PSNR, `nil` for exact.
    /// `ssimWeights`: the luma weights of the output's matrix (`LumaSSIM.weights`), to measure SSIM at each GIF
    /// frame's mid-delay as `make bench-quality` does; `nil`: no SSIM.
    private let ssimWeights: (kr: Double, kb: Double)?
    private var ssimSum = 0.0, ssimCount = 0, ssimWeightedSum = 0.0, ssimWeight = 0.0

    package init(
        timeline: Timeline, source: ReferenceSource, plays: Int, bound: Double?, memoryBudget: Int?,
        ssimWeights: (kr: Double, kb: Double)? = nil
    ) {
        self.ssimWeights = ssimWeights
        self.timeline = timeline
        self.source = source
        width = source.width
        height = source.height
        self.plays = max(1, plays)
        self.bound = bound
        let budget = memoryBudget ?? CacheCapacity.defaultLimit
        capacity = max(3, min(CacheCapacity.maxCanvases, budget / max(1, source.bytesPerReference)))
        playMs = timeline.milliseconds(timeline.duration.units)
        totalSequences = timeline.frames.count * self.plays
    }

    private func startMs(_ sequence: Int) -> Double {
        let n = timeline.frames.count
        return Double(sequence / n) * playMs + timeline.milliseconds(timeline.frames[sequence % n].start)
    }

    /// Compares one output frame (presentation order).
    package func add(_ frame: ShownFrame) throws {
        let index = outputFrames
        outputFrames += 1
        // A frame lasts until the next one starts (containers' own per-sample durations are not always what a
        // player shows); the last frame's end comes from the container (`finish`) or its own duration.
        if let previousStartMs {
            let duration = frame.startMs - previousStartMs
            shortestMs = min(shortestMs, duration)
            longestMs = max(longestMs, duration)
        }
        previousStartMs = frame.startMs
        previousDurationMs = frame.endMs - frame.startMs
        lastEndMs = max(lastEndMs, frame.endMs)
        let at = frame.startMs
        if at >= Double(plays) * playMs - 0.5 {
            extra += 1
            frameLog?.append(VerifiedFrame(startMs: at, gifFrame: nil, psnr: nil, passed: false))
            return
        }
        try load(until: at + VerifyDefaults.searchWindowMs, now: at)
        while let first = ring.first, first.endMs < at - VerifyDefaults.searchWindowMs { finalize(ring.removeFirst()) }
        guard let expected = ring.firstIndex(where: { $0.startMs <= at + 0.01 && at + 0.01 < $0.endMs })
            ?? ring.indices.last
        else {
            frameLog?.append(VerifiedFrame(startMs: at, gifFrame: nil, psnr: nil, passed: false))
            return
        }
        var chosen = expected
        var frameDigest: Int?
        func compare(_ frame: ShownFrame, _ entry: Entry, rowStep: Int) -> PixelComparison {
            switch entry.reference {
            case .pixels(let pixels):
                return pixels.withUnsafeBufferPointer {
                    PixelComparison.compare(
                        frame.pixels, aStride: frame.stride, $0.baseAddress!, bStride: width, width: width,
                        height: height, rowStep: rowStep)
                }
            case .digest(let digest):
                if frameDigest == nil { frameDigest = FrameDigest.digest(frame.pixels, stride: frame.stride, width: width, height: height) }
                return PixelComparison.same(frameDigest == digest, pixels: width * height)
            case .unchecked:
                return PixelComparison(squaredError: 0, samples: 0, differingPixels: 0)
            case .absent:
                return PixelComparison(squaredError: .infinity, samples: 1, differingPixels: width * height)
            case .planes(let packed):
                guard let planes = frame.planes else { return .same(false, pixels: width * height) }
                return packed.withUnsafeBufferPointer { planes.compare(with: PlaneView(packed: $0.baseAddress!, like: planes)) }
            }
        }
        var result = compare(frame, ring[expected], rowStep: 1)
        if !result.passes(minPSNR: bound) {
            var best: (index: Int, error: Double)?
            for candidate in ring.indices where candidate != expected
                && abs(ring[candidate].startMs - at) <= VerifyDefaults.searchWindowMs
            {
                let rough = compare(frame, ring[candidate], rowStep: 4)
                let error = rough.squaredError / Double(max(1, rough.samples))
                if best == nil || error < best!.error { best = (candidate, error) }
            }
            if let best {
                let full = compare(frame, ring[best.index], rowStep: 1)
                if full.passes(minPSNR: bound) {
                    chosen = best.index
                    result = full
                }
            }
        }
        if ring[chosen].firstShownMs == nil { ring[chosen].firstShownMs = at }
        if let ssimWeights { sampleSSIM(frame, weights: ssimWeights) }
        if ring[chosen].sequence < lastAssigned { repeated += 1 }
        lastAssigned = max(lastAssigned, ring[chosen].sequence)
        record(result, output: index, gif: ring[chosen].gifIndex)
        frameLog?.append(VerifiedFrame(
            startMs: at, gifFrame: ring[chosen].gifIndex, psnr: result.psnr, passed: result.passes(minPSNR: bound)))
    }

    /// The SSIM of `frame` against each GIF frame whose mid-delay it shows (the schedule's frame there, whatever
    /// the match), once per GIF frame and play: the bench's sampling.
    private func sampleSSIM(_ frame: ShownFrame, weights: (kr: Double, kb: Double)) {
        for index in ring.indices where !ring[index].sampled {
            let mid = (ring[index].startMs + ring[index].endMs) / 2
            guard frame.startMs <= mid + 0.01, mid + 0.01 < frame.endMs, case .pixels(let pixels) = ring[index].reference
            else { continue }
            ring[index].sampled = true
            let value = pixels.withUnsafeBufferPointer {
                LumaSSIM.ssim(frame.pixels, aStride: frame.stride, $0.baseAddress!, bStride: width, width: width,
                              height: height, weights: weights)
            }
            guard let value else { continue }
            let delay = ring[index].endMs - ring[index].startMs
            ssimSum += value
            ssimCount += 1
            ssimWeightedSum += value * delay
            ssimWeight += delay
        }
    }

    private func record(_ result: PixelComparison, output: Int, gif: Int) {
        anyCompared = true
        squaredError += result.squaredError
        samples += result.samples
        if let psnr = result.psnr, worstPSNR == nil || psnr < worstPSNR! || worstPSNRFrame == nil {
            if worstPSNR == nil || psnr < worstPSNR! {
                worstPSNR = psnr
                worstPSNRFrame = output
                worstPSNRGifFrame = gif
            }
        }
        if !result.passes(minPSNR: bound) {
            failingPixels += 1
            if firstFailing == nil { firstFailing = (output, gif) }
        }
    }

    /// Loads references whose start is at most `limit` ms; a full ring drops only frames already past `now`.
    private func load(until limit: Double, now: Double) throws {
        while nextSequence < totalSequences, startMs(nextSequence) <= limit {
            if ring.count >= capacity {
                guard let first = ring.first, first.endMs <= now else { return }
                finalize(ring.removeFirst())
            }
            let sequence = nextSequence
            let gifIndex = sequence % timeline.frames.count
            let frame = timeline.frames[gifIndex]
            let start = startMs(sequence)
            guard let reference = try source.next() else { return }
            ring.append(Entry(
                sequence: sequence, gifIndex: gifIndex, startMs: start, endMs: start + timeline.milliseconds(frame.delay),
                reference: reference))
            nextSequence += 1
        }
    }

    private func finalize(_ entry: Entry) {
        if let shown = entry.firstShownMs {
            let error = shown - entry.startMs
            timingCount += 1
            timingSum += abs(error)
            if worstTimingFrame == nil || abs(error) > abs(worstTiming) {
                worstTiming = error
                worstTimingFrame = entry.gifIndex
            }
        } else {
            let delay = entry.endMs - entry.startMs
            let shortest = shortestMs.isFinite ? shortestMs : (previousDurationMs ?? 0)
            if entry.startMs < lastEndMs && delay + 0.5 < shortest {
                skipped += 1
            } else {
                noteMissing(entry.gifIndex)
            }
        }
    }

    private func noteMissing(_ gifIndex: Int) {
        missing += 1
        if missingIndices.count < 10 { missingIndices.append(gifIndex) }
    }

    /// Closes the statistics into `report` and adds a failure line for every check outside the tolerances.
    /// `endMs`: where the container says the last frame ends, when it says so.
    package func finish(
        into report: inout OutputVerification, settings: VerifySettings, knownTolerance: (Double, String)? = nil,
        endMs: Double? = nil
    ) {
        if let endMs, let previousStartMs, endMs > previousStartMs { lastEndMs = endMs }
        for entry in ring { finalize(entry) }
        ring.removeAll()
        // GIF frames never loaded: the output ended before them.
        while nextSequence < totalSequences {
            noteMissing(nextSequence % timeline.frames.count)
            nextSequence += 1
        }
        report.outputFrames = outputFrames
        report.frames = frameLog
        report.scheduledFrames = totalSequences
        report.plays = plays
        report.missingFrames = missing
        report.missingIndices = missingIndices
        report.skippedShortFrames = skipped
        report.extraFrames = extra
        report.repeatedFrames = repeated
        report.worstTimingErrorMs = worstTiming
        report.worstTimingFrame = worstTimingFrame
        report.meanTimingErrorMs = timingCount > 0 ? timingSum / Double(timingCount) : 0
        report.durationErrorMs = lastEndMs - Double(plays) * playMs
        report.worstPSNR = worstPSNR
        report.worstPSNRFrame = worstPSNRFrame
        report.worstPSNRGifFrame = worstPSNRGifFrame
        if anyCompared, squaredError > 0 {
            report.meanPSNR = 10 * log10(255.0 * 255.0 / (squaredError / Double(max(1, samples))))
        }
        report.minPSNR = bound
        report.mismatchedFrames = failingPixels
        if ssimCount > 0 {
            report.meanSSIM = ssimSum / Double(ssimCount)
            report.delayWeightedSSIM = ssimWeight > 0 ? ssimWeightedSum / ssimWeight : report.meanSSIM
        }

        let (tolerance, mode) = settings.maxTimingErrorMs.map { ($0, "requested") } ?? knownTolerance ?? defaultTolerance()
        report.timingToleranceMs = tolerance
        report.timingMode = mode
        var failures: [String] = []
        if outputFrames == 0 { failures.append("no frames decoded") }
        if missing > 0 {
            failures.append("\(missing) GIF frame\(missing == 1 ? "" : "s") missing (first: \(missingIndices.map(String.init).joined(separator: ", ")))")
        }
        if extra > 0 { failures.append("\(extra) extra frame\(extra == 1 ? "" : "s") past the end of the schedule") }
        if repeated > 0 { failures.append("\(repeated) frame\(repeated == 1 ? "" : "s") shown again after a later one") }
        if let frame = worstTimingFrame, abs(worstTiming) > tolerance {
            failures.append(String(
                format: "timing: GIF frame %d shown %.1f ms %@ (tolerance %.1f ms, %@)", frame, abs(worstTiming),
                worstTiming > 0 ? "late" : "early", tolerance, mode))
        }
        if abs(report.durationErrorMs) > max(tolerance, shortestMs.isFinite ? 0 : 0) && outputFrames > 0 {
            failures.append(String(format: "duration: %+.1f ms against the schedule's %.1f ms", report.durationErrorMs,
                                   Double(plays) * playMs))
        }
        if failingPixels > 0, let first = firstFailing {
            if let bound {
                failures.append(String(
                    format: "pixels: %d frame%@ below %.1f dB, worst %.2f dB at output frame %d (GIF frame %d)",
                    failingPixels, failingPixels == 1 ? "" : "s", bound, worstPSNR ?? 0, worstPSNRFrame ?? first.output,
                    worstPSNRGifFrame ?? first.gif))
            } else {
                failures.append("pixels: \(failingPixels) frame\(failingPixels == 1 ? "" : "s") differ from the GIF (first: output frame \(first.output), GIF frame \(first.gif))")
            }
        }
        report.failures += failures
    }

    /// The tolerance of the output's own timing mode, from its frame durations: exact (VFR, or a constant rate
    /// whose period divides every delay) or one output frame (a resampled constant rate).
    private func defaultTolerance() -> (Double, String) {
        guard shortestMs.isFinite, longestMs - shortestMs <= 1.0 else {
            return (VerifyDefaults.exactTimingMs, "exact, variable rate")
        }
        let period = shortestMs
        let divides = timeline.frames.allSatisfy { frame in
            let ratio = timeline.milliseconds(frame.delay) / period
            return abs(ratio - ratio.rounded()) < 0.02
        }
        let fps = 1000 / period
        if divides { return (VerifyDefaults.exactTimingMs, String(format: "exact at %.3g fps", fps)) }
        return (period + VerifyDefaults.exactTimingMs, String(format: "one frame at %.3g fps", fps))
    }
}
