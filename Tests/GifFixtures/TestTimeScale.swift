import Foundation

/// How much longer than usual a child may run before a test calls it hung: `GIFX_TEST_TIME_SCALE`
/// (`make asan` sets 5: AddressSanitizer makes gifx several times slower), else 1.
public let testTimeScale: Double = ProcessInfo.processInfo.environment["GIFX_TEST_TIME_SCALE"].flatMap(Double.init) ?? 1

/// Whether the code under test is an AddressSanitizer build (`make asan` sets GIFX_TEST_SANITIZER=address).
public let underAddressSanitizer = ProcessInfo.processInfo.environment["GIFX_TEST_SANITIZER"] == "address"

/// A `.timeLimit` in minutes that only guards against a hang, scaled like the children's timeouts: under
/// `make asan` every test runs at once in one instrumented process, several times slower, and a guard sized
/// for the plain build would fail tests that are merely slow there.
public func hangGuardMinutes(_ minutes: Int) -> Int { Int((Double(minutes) * testTimeScale).rounded(.up)) }
