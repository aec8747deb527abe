// libFuzzer target for the APNG reader (Sources/Frames/APNG: gifx's chunk reader with its acTL, fcTL and
// fdAT rules and sequence numbers, each frame through libpng, gifx's dispose and blend) and the APNG
// schedule under both policies. The input is the chunks after PNG's signature: the harness writes the
// signature and, for three inputs in four, recomputes every complete chunk's CRC (FuzzSupport's
// `pngFile`), so mutations reach the chunks' contents; the fourth keeps the fuzzer's CRCs.
// Fuzz/run.sh builds it with libFuzzer and ASan (`FUZZ_TARGET=fuzz-apng`); any other build makes it the
// replayer of Replay.swift.
import FuzzSupport

/// One scratch file per fuzzing process, rewritten for every input.
private let scratch = FuzzScratch(name: "gifx-fuzz-apng")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let chunks = UnsafeBufferPointer(start: data, count: size)
    scratch.write(pngFile(chunks: chunks, repairCRCs: size % 4 != 3))
    decodeEveryFrame(path: scratch.path, strict: false, expected: .apng)
    if size % 2 == 0 { decodeEveryFrame(path: scratch.path, strict: true, expected: .apng) }
    return 0
}
