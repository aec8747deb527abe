// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "gifx",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "gifx", targets: ["gifx"]),
        // The schedule alone: pure Swift, no C library, no I/O (a player or editor that wants the timing).
        .library(name: "GifxTimeline", targets: ["GifxTimeline"]),
        // Conversion: GIF in, any outputs out, with progress, cancellation and typed errors (re-exports
        // GifxTimeline, GifxFrames and GifxEncoders, so one import does).
        .library(name: "GifxKit", targets: ["GifxKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        // C libraries, imported through module maps (Debian -dev packages, found with pkg-config).
        .systemLibrary(name: "CGif", pkgConfig: "libgif", providers: [.apt(["libgif-dev"])]),
        // prctl(2) for batch children (variadic in C, so Swift needs a wrapper); header only, libc.
        .systemLibrary(name: "CProcess"),
        // argc/argv kept by a constructor (glibc hands them to .init_array functions): the command line when the
        // statically linked Swift runtime finds no /proc/self/cmdline to read it from (Gifx.main).
        .target(name: "CArguments"),
        // The commit `gifx --version` prints (make dist passes it as a C define; header only).
        .systemLibrary(name: "CBuildInfo"),
        // libav headers (libavformat-dev, libavcodec-dev, libavutil-dev, libswscale-dev); the libraries are
        // opened with dlopen on first use, so the commands that need no libav do not load it (loader.c).
        .target(name: "CAV", linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread")]),
        // libwebp's animation encoder (libwebp-dev): animated WebP with exact frame durations and loop count.
        .systemLibrary(name: "CWebP", pkgConfig: "libwebpmux", providers: [.apt(["libwebp-dev"])]),
        // libpng's error path is setjmp/longjmp, which Swift cannot call: a small C target catches it.
        .target(name: "CPng", linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("z"), .linkedLibrary("pthread")]),

        // What swift-system lacks, written once: a unique file under the umask, link, rename, durable rename.
        .target(name: "GifxPOSIXFiles", dependencies: [.product(name: "SystemPackage", package: "swift-system")], path: "Sources/POSIXFiles"),
        // posix_spawn and wait4 written once, for batch's children and the tests' runs (docs/architecture.md).
        .target(name: "ChildProcesses", dependencies: [.product(name: "SystemPackage", package: "swift-system")]),
        // Pure schedule: no C, no I/O.
        .target(name: "GifxTimeline", path: "Sources/Timeline"),
        // Streaming GIF reader, compositor and bounded frame cache.
        .target(
            name: "GifxFrames",
            dependencies: ["CGif", "GifxPOSIXFiles", "GifxTimeline", .product(name: "SystemPackage", package: "swift-system")],
            path: "Sources/Frames"),
        // MP4 (libav), WebP (libwebp), sprite sheet (libpng + JSON) and poster writers.
        .target(name: "GifxEncoders", dependencies: [
            "CAV", "CPng", "CWebP", "GifxFrames", "GifxPOSIXFiles", "GifxTimeline",
            .product(name: "SystemPackage", package: "swift-system"),
        ], path: "Sources/Encoders"),
        // The library's front door: GifConverter (async, progress, cancellation) and GifInput (path, fd, bytes).
        .target(name: "GifxKit", dependencies: [
            "GifxEncoders", "GifxFrames", "GifxTimeline", "GifxPOSIXFiles",
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        .executableTarget(
            name: "gifx",
            dependencies: [
                "GifxKit", "GifxFrames", "GifxTimeline", "GifxEncoders", "GifxPOSIXFiles", "CProcess", "CBuildInfo", "CArguments", "ChildProcesses",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]),

        // Test support: writes exact fixture GIFs with giflib's encoder (EGif*).
        .target(name: "GifFixtures", dependencies: ["CGif", "CPng"], path: "Tests/GifFixtures"),
        // libFuzzer entry over GifxFrames and GifxTimeline (Fuzz/run.sh builds it with -sanitize=fuzzer,address);
        // a plain build makes it a replayer of saved inputs, so every build checks it still compiles.
        .target(name: "FuzzSupport", path: "Fuzz/FuzzSupport"),
        .executableTarget(
            name: "fuzz-decoder", dependencies: ["FuzzSupport", "GifxFrames", "GifxTimeline"], path: "Fuzz/FuzzDecoder"),
        // Writes the GIFs in Examples/ (`make examples`).
        .executableTarget(name: "make-examples", dependencies: ["GifFixtures"], path: "Examples/Generator"),
        .testTarget(name: "TimelineTests", dependencies: ["GifxTimeline"]),
        .testTarget(name: "FramesTests", dependencies: ["GifxFrames", "GifxTimeline", "GifFixtures", "CPng"]),
        .testTarget(name: "EncodersTests", dependencies: ["GifxEncoders", "GifxFrames", "GifxTimeline", "GifFixtures", "CAV", "CPng", "ChildProcesses"]),
        .testTarget(name: "CLITests", dependencies: [
            "gifx", "GifFixtures", "GifxTimeline", "ChildProcesses",
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        .testTarget(name: "GifxKitTests", dependencies: ["GifxKit", "GifFixtures"]),
        .testTarget(name: "POSIXFilesTests", dependencies: ["GifxPOSIXFiles", "ChildProcesses"]),
        // libFuzzer: gifx's LZW decoder against giflib (Fuzz/differential.sh); a plain build is a replayer.
        .executableTarget(name: "fuzz-differential", dependencies: ["FuzzSupport", "GifxFrames"], path: "Fuzz/FuzzDifferential"),
    ],
    swiftLanguageModes: [.v6]
)
