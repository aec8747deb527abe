@testable import GifxChecks
import Testing

/// `LumaSSIM` (issue 56: `gifx verify` reports the bench's SSIM). Expected values from the SSIM formula worked
/// here by hand: identical frames 1; two flat frames of luma μa and μb (no variance, no covariance) give
/// (2μaμb + C1) / (μa² + μb² + C1), with C1 = (0.01 · 255)², whatever the window count.
@Suite struct LumaSSIMTests {
    static func frame(width: Int, height: Int, _ pixel: (Int, Int) -> (UInt8, UInt8, UInt8)) -> [UInt8] {
        var out = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let (r, g, b) = pixel(x, y)
                out[(y * width + x) * 4] = r; out[(y * width + x) * 4 + 1] = g; out[(y * width + x) * 4 + 2] = b
            }
        }
        return out
    }

    func ssim(_ a: [UInt8], _ b: [UInt8], width: Int, height: Int, space: String? = nil) -> Double? {
        a.withUnsafeBufferPointer { pa in
            b.withUnsafeBufferPointer { pb in
                LumaSSIM.ssim(pa.baseAddress!, aStride: width, pb.baseAddress!, bStride: width, width: width,
                              height: height, weights: LumaSSIM.weights(colorSpace: space))
            }
        }
    }

    @Test func identicalFramesAreOne() throws {
        let a = Self.frame(width: 37, height: 21) { x, y in (UInt8(x * 7 % 256), UInt8(y * 11 % 256), UInt8((x ^ y) % 256)) }
        let value = try #require(ssim(a, a, width: 37, height: 21))
        #expect(abs(value - 1) < 1e-9)
    }

    @Test(arguments: [nil, "bt709"] as [String?])
    func flatFramesFollowTheFormula(_ space: String?) throws {
        let a = Self.frame(width: 16, height: 12) { _, _ in (100, 100, 100) }  // luma 100 in any matrix
        let b = Self.frame(width: 16, height: 12) { _, _ in (110, 110, 110) }  // luma 110
        let c1 = (0.01 * 255) * (0.01 * 255)
        let expected = (2 * 100.0 * 110 + c1) / (100.0 * 100 + 110 * 110 + c1)
        let value = try #require(ssim(a, b, width: 16, height: 12, space: space))
        #expect(abs(value - expected) < 1e-9, "\(value) against \(expected)")
    }

    @Test func structureCountsAndSmallFramesHaveNone() throws {
        // A checkerboard against its inverse: the same means and variances, covariance −σ²: far below 1.
        let a = Self.frame(width: 16, height: 16) { x, y in (x + y) % 2 == 0 ? (0, 0, 0) : (255, 255, 255) }
        let b = Self.frame(width: 16, height: 16) { x, y in (x + y) % 2 == 1 ? (0, 0, 0) : (255, 255, 255) }
        #expect(try #require(ssim(a, b, width: 16, height: 16)) < 0)
        #expect(ssim(Array(a.prefix(7 * 7 * 4)), Array(b.prefix(7 * 7 * 4)), width: 7, height: 7) == nil)
    }
}
