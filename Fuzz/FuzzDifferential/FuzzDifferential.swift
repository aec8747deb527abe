// libFuzzer target: gifx's own LZW decoder against giflib, the oracle (Sources/Frames/LZW). Every input
// is decoded by both, lenient and strict; a canvas that is not byte-identical, a different error or
// different warnings is a finding (a trap, so libFuzzer saves the input), as is any crash, sanitizer report,
// leak or hang. Built by Fuzz/differential.sh with `-sanitize=fuzzer,address`; a plain `swift build` makes
// it a replayer of saved inputs (Replay.swift).
import FuzzSupport
import GifxFrames

#if canImport(Glibc)
import Glibc
#endif

/// One scratch file per fuzzing process, rewritten for every input.
private let scratch = FuzzScratch(name: "gifx-fuzz-differential")
private var scratchPath: String { scratch.path }

/// What one decoder made of the file: a digest of every canvas in order, how it ended, its warnings.
private struct Outcome: Equatable {
    var canvases: [UInt64] = []
    var error: String?
    var warnings: [String] = []
}

/// FNV-1a over a canvas: equal canvases give equal digests; a difference shows up as a digest mismatch.
private func digest(_ bytes: UnsafeRawPointer, _ count: Int) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for index in 0..<count { hash = (hash ^ UInt64(bytes.load(fromByteOffset: index, as: UInt8.self))) &* 0x100_0000_01b3 }
    return hash
}

private func decode(_ metadata: AnimationMetadata, _ limits: DecodeLimits) -> Outcome {
    var outcome = Outcome()
    let canvas = UnsafeMutableRawPointer.allocate(byteCount: max(1, metadata.canvasBytes), alignment: 16)
    defer { canvas.deallocate() }
    var decoder: GifFrameDecoder?
    do {
        let opened = try GifFrameDecoder(path: scratchPath, metadata: metadata, limits: limits)
        decoder = opened
        while try opened.advance() {
            opened.copyCanvas(to: canvas)
            outcome.canvases.append(digest(canvas, metadata.canvasBytes))
        }
    } catch {
        outcome.error = "\(error)"
    }
    outcome.warnings = decoder?.warnings ?? []
    return outcome
}

private func compare(strict: Bool) {
    // Canvases up to 8 MiB keep each input in milliseconds; larger ones are refused the same way by both.
    let limits = DecodeLimits(maxDimension: 16384, maxCanvasBytes: 8 << 20, strict: strict, decoder: .giflib)
    guard let metadata = try? readAnimationMetadata(path: scratchPath, limits: limits) else { return }
    var ours = limits
    ours.decoder = .gifx
    let expected = decode(metadata, limits)
    let actual = decode(metadata, ours)
    if expected != actual {
        let frame = zip(expected.canvases, actual.canvases).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        fatalError(
            "decoders differ (strict \(strict)): first differing canvas \(frame.map(String.init) ?? "none"), "
                + "canvases \(expected.canvases.count) vs \(actual.canvases.count), "
                + "error giflib \(expected.error ?? "none") / gifx \(actual.error ?? "none"), "
                + "warnings giflib \(expected.warnings) / gifx \(actual.warnings)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDifferentialOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    scratch.write(data, size)
    compare(strict: false)
    compare(strict: true)
    return 0
}
