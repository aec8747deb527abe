// swift-tools-version: 6.1
//===----------------------------------------------------------------------===//
//
// This source file is part of the gifx open source project
//
// Copyright (c) 2026 the gifx authors
// Licensed under Apache License v2.0 (see LICENSE)
//
//===----------------------------------------------------------------------===//
import PackageDescription

let package = Package(
    name: "gifx",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "gifx", targets: ["gifx"]),
        // The schedule alone: pure Swift, no C library, no I/O (a player or editor that wants the timing).
        .library(name: "GifxTimeline", targets: ["GifxTimeline"]),
        // Conversion: GIF in, any outputs out, with progress, cancellation and typed errors (its settings,
        // results and errors named in GifxKit by typealias: one import, 47 curated names; no @_exported).
        .library(name: "GifxKit", targets: ["GifxKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
        // gifx serve (Sources/Server): HTTP on swift-nio, graceful shutdown, logs, metrics, cache keys.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // The signed form's source fetch (Sources/Server/SourceFetch.swift); the server's tests talk to it over HTTP.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        // C libraries, imported through module maps (Debian -dev packages, found with pkg-config).
        .systemLibrary(name: "CGif", pkgConfig: "libgif", providers: [.apt(["libgif-dev"])]),
        // prctl(2) for the pool's workers (variadic in C, so Swift needs a wrapper), and the signal route; header only, libc.
        .systemLibrary(name: "CProcess"),
        // mallopt(3) constants live in malloc.h, which Glibc's Swift module leaves out (header only, libc).
        .systemLibrary(name: "CMalloc"),
        // argc/argv kept by a constructor (glibc hands them to .init_array functions): the command line when the
        // statically linked Swift runtime finds no /proc/self/cmdline to read it from (Gifx.main).
        .target(name: "CArguments"),
        // The commit `gifx --version` prints (make dist passes it as a C define; header only).
        .systemLibrary(name: "CBuildInfo"),
        // libav headers (libavformat-dev, libavcodec-dev, libavutil-dev, libswscale-dev); the libraries are
        // opened with dlopen on first use, so the commands that need no libav do not load it (loader.c).
        .target(name: "CAV", linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread")]),
        // libx264 driven directly for H.264 with repeat pictures (B references: docs/repeats.md), opened with
        // dlopen on first use as libav is.
        .target(name: "CX264", linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread")]),
        // libwebp's animation encoder (libwebp-dev): animated WebP with exact frame durations and loop count.
        .systemLibrary(name: "CWebP", pkgConfig: "libwebpmux", providers: [.apt(["libwebp-dev"])]),
        // libavif (libavif-dev): the AVIF input reader (Sources/Frames/AVIF), decoding AV1 with dav1d. A C target, not
        // a system library: it also holds the wrapper that keeps dav1d from printing its errors on stderr (libavif
        // 0.11 sets no dav1d logger; libdav1d-dev for its settings' layout). No pkg-config: libavif's only flag
        // (-DAVIF_DLL, for Windows' dllimport) is one SwiftPM refuses with a warning on every build.
        .target(name: "CAvif", linkerSettings: [.linkedLibrary("avif"), .linkedLibrary("dav1d"), .linkedLibrary("dl")]),
        // libpng's error path is setjmp/longjmp, which Swift cannot call: a small C target catches it.
        .target(name: "CPng", linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("z"), .linkedLibrary("pthread")]),

        // What swift-system lacks, written once: a unique file under the umask, link, rename, durable rename.
        .target(name: "GifxPOSIXFiles", dependencies: [.product(name: "SystemPackage", package: "swift-system")], path: "Sources/POSIXFiles"),
        // posix_spawn and wait4 written once, for the tests' runs and the one worker pool of batch and serve
        // (WorkerPool: spawning, pipes, the line protocol, reaping, the parent-death signal; docs/architecture.md).
        .target(name: "ChildProcesses", dependencies: [
            "CProcess", "GifxPOSIXFiles", .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // Pure schedule: no C, no I/O.
        .target(name: "GifxTimeline", path: "Sources/Timeline"),
        // What this process may use of the machine (cgroup, affinity, /proc/meminfo) and every thread count
        // decided from it (`ThreadCounts`): below the decoder, read by every layer above.
        .target(name: "GifxSystem", path: "Sources/System"),
        // Streaming GIF reader, compositor and bounded frame cache.
        .target(
            name: "GifxFrames",
            // CWebP, CPng: the WebP and APNG readers (Sources/Frames/WebP, Sources/Frames/APNG; issue 35); CAvif:
            // the AVIF reader (Sources/Frames/AVIF; issue 59).
            dependencies: [
                "CGif", "CWebP", "CPng", "CAvif", "GifxPOSIXFiles", "GifxSystem", "GifxTimeline",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            path: "Sources/Frames"),
        // The output side in three modules, each knowing only those below it (docs/architecture.md, "The output side
        // in three modules"): from the bottom, GifxPipeline, GifxChecks, GifxEncoders.
        // The run, knowing no kind: Conversion and its steps, the sink protocol (`ConversionSink`), run settings,
        // memory plan, the output transaction, and the verifying wrapper that knows outputs only by `OutputCheck`.
        .target(name: "GifxPipeline", dependencies: [
            "CMalloc", "GifxFrames", "GifxPOSIXFiles", "GifxSystem", "GifxTimeline",
            .product(name: "SystemPackage", package: "swift-system"),
        ], path: "Sources/Encoders/Pipeline"),
        // What reading an output back is built from, knowing no kind: frame readers (WebP), PNG decoding, pixel
        // digests and comparison, the timed matching of shown frames, sheet descriptions.
        .target(name: "GifxChecks", dependencies: [
            "CAV", "CPng", "CWebP", "GifxFrames", "GifxPipeline", "GifxTimeline",
        ], path: "Sources/Encoders/Checks"),
        // The output kinds, one folder each (MP4/WebM/AVIF through libav, WebP, APNG, posters, sprite sheets, the
        // timeline JSON), their registry (Registry/OutputKinds.swift) and the stand-alone `Verifier` that reads any
        // kind back (Verify/).
        .target(name: "GifxEncoders", dependencies: [
            "CAV", "CMalloc", "CPng", "CWebP", "CX264", "GifxChecks", "GifxFrames", "GifxPipeline", "GifxPOSIXFiles", "GifxSystem",
            "GifxTimeline",
            .product(name: "SystemPackage", package: "swift-system"),
        ], path: "Sources/Encoders", exclude: ["Pipeline", "Checks"]),
        // The library's front door: GifConverter (async, progress, cancellation) and GifInput (path, fd, bytes).
        .target(name: "GifxKit", dependencies: [
            "GifxEncoders", "GifxPipeline", "GifxFrames", "GifxTimeline", "GifxPOSIXFiles",
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // gifx serve: the conversion as an HTTP service (docs/serve.md); not in the design card. It reaches the
        // conversion through GifxKit alone (its public names and its `package` face, Sources/GifxKit/PackageFace.swift),
        // beside the schedule's public product.
        .target(name: "GifxServer", dependencies: [
            "GifxKit", "GifxTimeline", "GifxSystem", "GifxPOSIXFiles", "ChildProcesses",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "CoreMetrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "SystemPackage", package: "swift-system"),
        ], path: "Sources/Server"),
        // The command line: the conversion through GifxKit alone (its public names and its `package` face), as the
        // service reaches it; the modules below the facade are linked through GifxKit (packaging/facade_check.py).
        .executableTarget(
            name: "gifx",
            dependencies: [
                "GifxKit", "GifxServer", "GifxSystem", "GifxTimeline", "GifxPOSIXFiles", "CProcess", "CBuildInfo", "CArguments", "ChildProcesses",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]),

        // Test support: writes exact fixture GIFs with giflib's encoder (EGif*).
        .target(name: "GifFixtures", dependencies: ["CGif", "CPng"], path: "Tests/GifFixtures"),
        // libFuzzer entry over GifxFrames and GifxTimeline (Fuzz/run.sh builds it with -sanitize=fuzzer,address);
        // a plain build makes it a replayer of saved inputs, so every build checks it still compiles.
        .target(name: "FuzzSupport", dependencies: ["GifxFrames", "GifxTimeline", "CPng"], path: "Fuzz/FuzzSupport"),
        .executableTarget(name: "fuzz-decoder", dependencies: ["FuzzSupport"], path: "Fuzz/FuzzDecoder"),
        // The same for the WebP and the APNG reader alone, the container made valid around the fuzzed chunks.
        .executableTarget(name: "fuzz-webp", dependencies: ["FuzzSupport"], path: "Fuzz/FuzzWebP"),
        .executableTarget(name: "fuzz-apng", dependencies: ["FuzzSupport"], path: "Fuzz/FuzzAPNG"),
        // The AVIF reader alone (libavif's parser and dav1d, gifx's edit-list walk), on fuzzed whole files.
        .executableTarget(name: "fuzz-avif", dependencies: ["FuzzSupport"], path: "Fuzz/FuzzAVIF"),
        // Writes the GIFs in Examples/ (`make examples`).
        .executableTarget(name: "make-examples", dependencies: ["GifFixtures"], path: "Examples/Generator"),
        .testTarget(name: "TimelineTests", dependencies: ["GifxTimeline"]),
        .testTarget(name: "FramesTests", dependencies: ["GifxFrames", "GifxSystem", "GifxTimeline", "GifFixtures", "CPng", "CWebP", "ChildProcesses"]),
        .testTarget(name: "EncodersTests", dependencies: ["GifxEncoders", "GifxChecks", "GifxPipeline", "GifxFrames", "GifxSystem", "GifxTimeline", "GifFixtures", "CAV", "CMalloc", "CPng", "ChildProcesses"]),
        .testTarget(name: "CLITests", dependencies: [
            "gifx", "GifFixtures", "GifxSystem", "GifxTimeline", "ChildProcesses",
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        .testTarget(name: "GifxKitTests", dependencies: ["GifxKit", "GifFixtures"]),
        .testTarget(name: "ServerTests", dependencies: [
            "GifxServer", "GifxKit", "GifxTimeline", "GifFixtures", "ChildProcesses",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            // The tests' local origin for the signed form (signatures are made by openssl).
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        .testTarget(name: "POSIXFilesTests", dependencies: ["GifxPOSIXFiles", "ChildProcesses"]),
        // The worker pool on its own, with /bin/sh and cat as workers (batch's and serve's run in CLITests, ServerTests).
        .testTarget(name: "ChildProcessesTests", dependencies: ["ChildProcesses"]),
        // libFuzzer: gifx's LZW decoder against giflib (Fuzz/differential.sh); a plain build is a replayer.
        .executableTarget(name: "fuzz-differential", dependencies: ["FuzzSupport", "GifxFrames"], path: "Fuzz/FuzzDifferential"),
    ],
    swiftLanguageModes: [.v6]
)
