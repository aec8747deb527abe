/// SSIM on luma between two 8-bit RGBA frames of the same size: the figure `make bench-quality` reports
/// (Benchmarks/quality_bench.py), so `gifx verify` and the bench speak of one quality.
///
/// Both frames' R'G'B' go to Y' with the luma weights of the matrix the output declares (BT.601 where it declares
/// none, as libswscale assumes), in full 0-255 range; the SSIM of Wang et al. over every 8×8 window (stride 1)
/// with C1 = (0.01 · 255)² and C2 = (0.03 · 255)², averaged over the windows. Alpha is ignored (the output's pixels
/// as decoded, the reference's colour channels). The running sums are kept per column over the 8 rows of the
/// current band, so memory is a few rows whatever the frame, and the work O(pixels).
package enum LumaSSIM {
    /// The luma weights (Kr, Kb) of a matrix by FFmpeg's colour-space name.
    package static func weights(colorSpace: String?) -> (kr: Double, kb: Double) {
        switch colorSpace {
        case "bt709": (0.2126, 0.0722)
        case "bt2020nc", "bt2020c": (0.2627, 0.0593)
        default: (0.299, 0.114)
        }
    }

    /// Mean SSIM over the 8×8 windows; `nil` for a frame smaller than one window.
    package static func ssim(
        _ a: UnsafePointer<UInt8>, aStride: Int, _ b: UnsafePointer<UInt8>, bStride: Int, width: Int, height: Int,
        weights: (kr: Double, kb: Double)
    ) -> Double? {
        let window = 8
        guard width >= window, height >= window else { return nil }
        let kg = 1 - weights.kr - weights.kb
        func luma(_ p: UnsafePointer<UInt8>, _ stride: Int, _ y: Int, into row: inout [Double]) {
            let base = p + y * stride * 4
            for x in 0..<width {
                row[x] = weights.kr * Double(base[x * 4]) + kg * Double(base[x * 4 + 1]) + weights.kb * Double(base[x * 4 + 2])
            }
        }
        // Per column: sums over the band's rows of a, b, a², b², ab.
        var sa = [Double](repeating: 0, count: width), sb = sa, saa = sa, sbb = sa, sab = sa
        var ra = sa, rb = sa
        func addRow(_ y: Int, sign: Double) {
            luma(a, aStride, y, into: &ra)
            luma(b, bStride, y, into: &rb)
            for x in 0..<width {
                let va = ra[x], vb = rb[x]
                sa[x] += sign * va; sb[x] += sign * vb
                saa[x] += sign * va * va; sbb[x] += sign * vb * vb; sab[x] += sign * va * vb
            }
        }
        let c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255)
        let n = Double(window * window)
        var total = 0.0
        var windows = 0
        for y in 0..<window { addRow(y, sign: 1) }
        var top = 0
        while true {
            var wa = 0.0, wb = 0.0, waa = 0.0, wbb = 0.0, wab = 0.0
            for x in 0..<width {
                wa += sa[x]; wb += sb[x]; waa += saa[x]; wbb += sbb[x]; wab += sab[x]
                if x >= window {
                    let o = x - window
                    wa -= sa[o]; wb -= sb[o]; waa -= saa[o]; wbb -= sbb[o]; wab -= sab[o]
                }
                guard x >= window - 1 else { continue }
                let ma = wa / n, mb = wb / n
                let va = waa / n - ma * ma, vb = wbb / n - mb * mb, cov = wab / n - ma * mb
                total += ((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2))
                windows += 1
            }
            guard top + window < height else { break }
            addRow(top, sign: -1)
            addRow(top + window, sign: 1)
            top += 1
        }
        return total / Double(windows)
    }
}
