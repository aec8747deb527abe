import Foundation

/// How one output frame compares with one reference, both 8-bit RGBA of the same size: the mean squared
/// error over R, G, B and A (colour weighted by coverage, so the colour under a transparent pixel, which a
/// lossless WebP or a bleeding VP9 encoder may change, does not count) and how many pixels differ at all.
package struct PixelComparison {
    package var squaredError: Double
    package var samples: Int
    package var differingPixels: Int

    /// The outcome of a digest comparison: identical, or every pixel counted as differing (no PSNR then:
    /// the squared error is unknown, reported as NaN).
    package static func same(_ same: Bool, pixels: Int) -> PixelComparison {
        PixelComparison(squaredError: same ? 0 : .nan, samples: pixels * 4, differingPixels: same ? 0 : pixels)
    }

    /// PSNR in dB; `nil` when identical (infinite).
    package var psnr: Double? {
        guard squaredError > 0, samples > 0, !squaredError.isNaN else { return nil }
        return 10 * log10(255.0 * 255.0 / (squaredError / Double(samples)))
    }

    /// Passes `bound` (dB), or, exact, differs nowhere.
    package func passes(minPSNR bound: Double?) -> Bool {
        guard let bound, !squaredError.isNaN else { return differingPixels == 0 }
        return (psnr ?? .infinity) >= bound
    }

    /// Compares the overlapping `width` × `height` region of `a` (stride `aStride` pixels) and `b`; `rowStep`
    /// > 1 samples every n-th row (the identification search ranks candidates that way, then compares fully).
    package static func compare(
        _ a: UnsafePointer<UInt8>, aStride: Int, _ b: UnsafePointer<UInt8>, bStride: Int, width: Int, height: Int,
        rowStep: Int = 1
    ) -> PixelComparison {
        var total: UInt64 = 0
        var differing = 0
        var rows = 0
        var y = 0
        while y < height {
            let pa = a + y * aStride * 4, pb = b + y * bStride * 4
            var rowError: UInt64 = 0
            for x in 0..<width {
                let o = x * 4
                let alphaA = Int(pa[o + 3]), alphaB = Int(pb[o + 3])
                if alphaA == 0 && alphaB == 0 { continue }
                var pixelError = 0
                if alphaA == 255 && alphaB == 255 {
                    let dr = Int(pa[o]) - Int(pb[o]), dg = Int(pa[o + 1]) - Int(pb[o + 1])
                    let db = Int(pa[o + 2]) - Int(pb[o + 2])
                    pixelError = dr * dr + dg * dg + db * db
                } else {
                    // Premultiplied: what the pixel contributes over any background.
                    for c in 0..<3 {
                        let d = (Int(pa[o + c]) * alphaA - Int(pb[o + c]) * alphaB) / 255
                        pixelError += d * d
                    }
                    let da = alphaA - alphaB
                    pixelError += da * da
                }
                if pixelError != 0 { differing += 1 }
                rowError &+= UInt64(pixelError)
            }
            total &+= rowError
            rows += 1
            y += rowStep
        }
        return PixelComparison(squaredError: Double(total), samples: rows * width * 4, differingPixels: differing)
    }
}
