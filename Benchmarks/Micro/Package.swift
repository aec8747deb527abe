// swift-tools-version: 6.1
// Swift micro-benchmarks for gifx, kept out of the main build. It depends on the gifx package by path
// (the GifxTimeline library product), so this measures exactly the code gifx ships.
// (ordo-one/package-benchmark 1.38.1 needs ordo-one/swift-runtime-interposer on Linux with Swift 6.3,
// which is not available here, so this is a plain executable with ContinuousClock.)
import PackageDescription

let package = Package(
    name: "GifxMicro",
    dependencies: [.package(name: "gifx", path: "../..")],
    targets: [
        .executableTarget(
            name: "TimelineMicro", dependencies: [.product(name: "GifxTimeline", package: "gifx")]),
    ],
    swiftLanguageModes: [.v6]
)
