// swift-tools-version: 6.1
// A program that uses gifx as a library, the way a server or an app would: it depends on the gifx
// package by path and imports GifxKit. `make test` builds and runs it (Makefile, target library-usage).
import PackageDescription

let package = Package(
    name: "library-usage",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "gifx", path: "../..")],
    targets: [
        .executableTarget(name: "library-usage", dependencies: [.product(name: "GifxKit", package: "gifx")]),
        // The conformance matrix's GifxKit delivery path (Tests/ConformanceMatrix).
        .executableTarget(name: "gifxkit-convert", dependencies: [.product(name: "GifxKit", package: "gifx")]),
    ],
    swiftLanguageModes: [.v6]
)
