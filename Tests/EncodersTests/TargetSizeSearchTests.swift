import Foundation
import GifxEncoders
import Testing

/// The pure plan of `--target-size` (issue 26): which CRF to try next given the encodes made, against a
/// model encoder whose size is known for every CRF, so each expectation is computed here, not by the search.
@Suite struct TargetSizeSearchTests {
    /// A model encoder: `bytes(crf) = base · 2^(-(crf - 23) / halving)`, the rate-control rule the search assumes
    /// when `halving` is 6, and a different slope when not (the search must measure it).
    static func model(base: Double, halving: Double) -> (Double) -> Int {
        { crf in Int(base * pow(2, -(crf - 23) / halving)) }
    }

    static func run(target: Int, start: Double = 23, halving: Double, base: Double, whole: Bool = false)
        -> TargetSizeSearch
    {
        let encoder = model(base: base, halving: halving)
        var search = TargetSizeSearch(target: target, range: 18...51, halvingStep: 6, wholeSteps: whole)
        search.record(.init(factor: start, bytes: encoder(start)))
        while let next = search.next { search.record(.init(factor: next, bytes: encoder(next))) }
        return search
    }

    @Test func theAssumedSlopeLandsInTheWindowWithTheSecondEncode() throws {
        // 1,000,000 bytes at CRF 23; cap 300,000: aim 285,000 -> 23 + 6·log2(1e6/285e3) = 33.87 -> 33.9.
        let search = Self.run(target: 300_000, halving: 6, base: 1_000_000)
        #expect(search.attempts.count == 2)
        #expect(search.attempts[1].factor == 33.9)
        let best = try #require(search.best)
        #expect(best.bytes <= 300_000 && best.bytes >= 270_000)
    }

    @Test(arguments: [4.0, 5.0, 8.0, 10.0])
    func anotherSlopeIsMeasuredAndFitsWithinThreeEncodes(_ halving: Double) throws {
        for target in [150_000, 400_000, 700_000] {
            let search = Self.run(target: target, halving: halving, base: 1_000_000)
            #expect(search.attempts.count <= 3)
            let best = try #require(search.best, "halving \(halving), target \(target): \(search.attempts)")
            #expect(best.bytes <= target)
            #expect(Double(best.bytes) >= 0.9 * Double(target), "halving \(halving) target \(target): \(search.attempts)")
        }
    }

    @Test func wholeStepsAreWhole() {
        let search = Self.run(target: 300_000, halving: 8, base: 1_000_000, whole: true)
        #expect(search.attempts.allSatisfy { $0.factor == $0.factor.rounded() })
        #expect(search.best != nil)
    }

    @Test func whenTheBestQualityFitsBelowTheWindowItStopsThere() throws {
        // CRF 18 gives 1,781,797 bytes; a 10 MB cap is far above it.
        let search = Self.run(target: 10_000_000, halving: 6, base: 1_000_000)
        let best = try #require(search.best)
        #expect(best.factor == 18)
        #expect(search.attempts.count == 2)
        #expect(!search.isWithinWindow(best))
    }

    @Test func whenTheWorstQualityDoesNotFitNothingIsKept() {
        // CRF 51 gives 39,372 bytes: a 10,000-byte cap cannot be met.
        let search = Self.run(target: 10_000, halving: 6, base: 1_000_000)
        #expect(search.best == nil)
        #expect(search.attempts.contains { $0.factor == 51 })
        #expect(search.attempts.count <= 3)
    }

    @Test func theFirstEncodeInTheWindowEndsTheSearch() {
        var search = TargetSizeSearch(target: 100, range: 18...51, halvingStep: 6, wholeSteps: false)
        search.record(.init(factor: 23, bytes: 95))
        #expect(search.next == nil)
        #expect(search.best?.bytes == 95)
    }

    @Test func aNextFactorStaysBetweenTheKnownOverflowingAndFittingOnes() throws {
        var search = TargetSizeSearch(target: 1000, range: 18...51, halvingStep: 6, wholeSteps: false)
        search.record(.init(factor: 23, bytes: 2000))  // too big
        search.record(.init(factor: 30, bytes: 500))  // fits, far below
        let next = try #require(search.next)
        #expect(next > 23 && next < 30)
    }
}
