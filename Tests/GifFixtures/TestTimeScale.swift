import Foundation

/// How much longer than usual a child may run before a test calls it hung: `GIFX_TEST_TIME_SCALE`
/// (`make asan` sets 5: AddressSanitizer makes gifx several times slower), else 1.
public let testTimeScale: Double = ProcessInfo.processInfo.environment["GIFX_TEST_TIME_SCALE"].flatMap(Double.init) ?? 1

/// Whether the code under test is an AddressSanitizer build (`make asan` sets GIFX_TEST_SANITIZER=address).
public let underAddressSanitizer = ProcessInfo.processInfo.environment["GIFX_TEST_SANITIZER"] == "address"

/// The `.timeLimit`, in minutes, of a test that only guards against a hang. It is one figure for every such
/// test, sized to the whole suite rather than to the test: under `make test` on CI's 2 cores every suite runs
/// at once beside the conversions' children, and a test that takes 10 s alone ran 408 s there, past the
/// 2-minute guard it used to have. A hang still ends well inside CI's 90 minutes, with the test's name.
/// Scaled like the children's timeouts (`make asan` runs several times slower).
public let hangGuardMinutes: Int = Int((30 * testTimeScale).rounded(.up))
