// libFuzzer target for the AVIF reader (Sources/Frames/AVIF: libavif's container parser and dav1d, gifx's
// `ftyp` probe and edit-list walk, the RGBA conversion) and the AVIF schedule under both policies. The input is a
// whole file: seed it with AVIFs (Fuzz/run.sh makes a few with avifenc when the corpus is empty), so mutations
// reach the boxes and the AV1 data. A mutation that turns the file into another format is read as that format.
// Fuzz/run.sh builds it with libFuzzer and ASan (`FUZZ_TARGET=fuzz-avif`); any other build makes it the
// replayer of Replay.swift.
import FuzzSupport

/// One scratch file per fuzzing process, rewritten for every input.
private let scratch = FuzzScratch(name: "gifx-fuzz-avif")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    scratch.write(data, size)
    decodeEveryFrame(path: scratch.path, strict: false)
    return 0
}
