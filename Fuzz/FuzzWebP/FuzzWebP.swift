// libFuzzer target for the animated WebP reader (Sources/Frames/WebP: libwebp's demux, gifx's walk over the
// ANMF chunks, WebPDecode per frame, gifx's blend and dispose) and the WebP schedule under both policies.
// The input is the chunks after `RIFF size WEBP` (VP8X, ANIM, ANMF, ALPH, VP8, VP8L, ...): the harness
// writes the header with the right size (FuzzSupport's `webpFile`), so mutations reach the chunks.
// Fuzz/run.sh builds it with libFuzzer and ASan (`FUZZ_TARGET=fuzz-webp`); any other build makes it the
// replayer of Replay.swift.
import FuzzSupport

/// One scratch file per fuzzing process, rewritten for every input.
private let scratch = FuzzScratch(name: "gifx-fuzz-webp")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    scratch.write(webpFile(chunks: UnsafeBufferPointer(start: data, count: size)))
    decodeEveryFrame(path: scratch.path, strict: false, expected: .webp)
    // The strict pass covers the paths that turn damage into errors.
    if size % 2 == 0 { decodeEveryFrame(path: scratch.path, strict: true, expected: .webp) }
    return 0
}
