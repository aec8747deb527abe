// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "gifx",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "gifx", targets: ["gifx"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
    ],
    targets: [
        // C libraries, imported through module maps (Debian -dev packages, found with pkg-config).
        .systemLibrary(name: "CGif", pkgConfig: "libgif", providers: [.apt(["libgif-dev"])]),
        // prctl(2) for batch children (variadic in C, so Swift needs a wrapper); header only, libc.
        .systemLibrary(name: "CProcess"),
        // libav headers (libavformat-dev, libavcodec-dev, libavutil-dev, libswscale-dev); the libraries are
        // opened with dlopen on first use, so the commands that need no libav do not load it (loader.c).
        .target(name: "CAV", linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread")]),
        // libwebp's animation encoder (libwebp-dev): animated WebP with exact frame durations and loop count.
        .systemLibrary(name: "CWebP", pkgConfig: "libwebpmux", providers: [.apt(["libwebp-dev"])]),
        // libpng's error path is setjmp/longjmp, which Swift cannot call: a small C target catches it.
        .target(name: "CPng", linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("z"), .linkedLibrary("pthread")]),

        // What swift-system lacks, written once: a unique file under the umask, link, rename, durable rename.
        .target(name: "POSIXFiles", dependencies: [.product(name: "SystemPackage", package: "swift-system")]),
        // posix_spawn and wait4 written once, for batch's children and the tests' runs (docs/architecture.md).
        .target(name: "ChildProcesses", dependencies: [.product(name: "SystemPackage", package: "swift-system")]),
        // Pure schedule: no C, no I/O.
        .target(name: "Timeline"),
        // Streaming GIF reader, compositor and bounded frame cache.
        .target(
            name: "Frames",
            dependencies: ["CGif", "POSIXFiles", "Timeline", .product(name: "SystemPackage", package: "swift-system")]),
        // MP4 (libav), WebP (libwebp), sprite sheet (libpng + JSON) and poster writers.
        .target(name: "Encoders", dependencies: [
            "CAV", "CPng", "CWebP", "Frames", "POSIXFiles", "Timeline",
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        .executableTarget(
            name: "gifx",
            dependencies: [
                "Frames", "Timeline", "Encoders", "POSIXFiles", "CProcess", "ChildProcesses",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]),

        // Test support: writes exact fixture GIFs with giflib's encoder (EGif*).
        .target(name: "GifFixtures", dependencies: ["CGif", "CPng"], path: "Tests/GifFixtures"),
        // Writes the GIFs in Examples/ (`make examples`).
        .executableTarget(name: "make-examples", dependencies: ["GifFixtures"], path: "Examples/Generator"),
        .testTarget(name: "TimelineTests", dependencies: ["Timeline"]),
        .testTarget(name: "FramesTests", dependencies: ["Frames", "Timeline", "GifFixtures", "CPng"]),
        .testTarget(name: "EncodersTests", dependencies: ["Encoders", "Frames", "Timeline", "GifFixtures", "CAV", "CPng", "ChildProcesses"]),
        .testTarget(name: "CLITests", dependencies: [
            "gifx", "GifFixtures", "Timeline", "ChildProcesses",
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        .testTarget(name: "POSIXFilesTests", dependencies: ["POSIXFiles", "ChildProcesses"]),
    ],
    swiftLanguageModes: [.v6]
)
