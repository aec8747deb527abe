// swift-tools-version: 6.1
// Swift micro-benchmarks for gifx, kept out of the main build. `Sources/Timeline` is a symlink to
// the main package's target, so this measures exactly the code gifx ships.
// (ordo-one/package-benchmark 1.38.1 needs ordo-one/swift-runtime-interposer on Linux with Swift 6.3,
// which is not available here, so this is a plain executable with ContinuousClock.)
import PackageDescription

let package = Package(
    name: "GifxMicro",
    targets: [
        .target(name: "Timeline"),
        .executableTarget(name: "TimelineMicro", dependencies: ["Timeline"]),
    ],
    swiftLanguageModes: [.v6]
)
