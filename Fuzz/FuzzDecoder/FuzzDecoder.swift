// libFuzzer target for the GIF reader, the metadata pass, the pixel decoder and the compositor
// (Sources/Frames), plus the schedule (Sources/Timeline) the CLI builds from the metadata; inputs that
// start as WebP or PNG go through the WebP and APNG readers and compositors (Sources/Frames/WebP, APNG),
// which fuzz-webp and fuzz-apng fuzz on their own, their containers made valid by the harness.
// The package's `fuzz-decoder` target: Fuzz/run.sh builds it through SwiftPM with libFuzzer and ASan
// (and GIFX_LIBFUZZER defined, so libFuzzer's `main` drives it); any other build makes it the replayer
// of Replay.swift.
//
// Frames reads files by path (a 64 KiB buffered descriptor, exactly as the CLI does), so every input
// is written to one scratch file first and decoded from there.
import FuzzSupport

#if canImport(Glibc)
import Glibc
#endif

/// One scratch file per fuzzing process, rewritten for every input.
private let scratch = FuzzScratch(name: "gifx-fuzz")
private var scratchPath: String { scratch.path }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    scratch.write(data, size)
    decodeEveryFrame(path: scratchPath, strict: false)
    // The strict pass costs little more and covers the paths that turn damage into errors.
    if size % 2 == 0 { decodeEveryFrame(path: scratchPath, strict: true) }
    return 0
}
