/// An exact rate or time, `num / den`, always reduced with a positive denominator.
public struct Rational: Codable, Hashable, Sendable, CustomStringConvertible {
    public let num: Int
    public let den: Int

    public init(_ num: Int, _ den: Int = 1) {
        precondition(den != 0, "zero denominator")
        let divisor = Swift.max(1, gcd(num, den))
        let sign = den < 0 ? -1 : 1
        self.num = sign * num / divisor
        self.den = sign * den / divisor
    }

    public var doubleValue: Double { Double(num) / Double(den) }

    public var description: String { den == 1 ? "\(num)" : "\(num)/\(den)" }
}

/// Greatest common divisor of two integers (non-negative; gcd(0, 0) = 0).
package func gcd(_ a: Int, _ b: Int) -> Int {
    var (x, y) = (a.magnitude, b.magnitude)
    while y != 0 { (x, y) = (y, x % y) }
    return Int(x)
}
