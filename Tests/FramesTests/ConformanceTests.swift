import Foundation
import GifxFrames
import GifFixtures
import Testing
import GifxTimeline

/// pygif cases whose expectation differs from our documented policy (docs/conformance.md). Every other
/// case must pass pixel-exact, and each of these must still differ (so the table stays true).
let pygifDeviations: [String: String] = [
    "no-data": "a file without any image is malformed here (exit 65); pygif shows one transparent frame",
    "plain-text": "the plain-text extension is skipped and the image shown, as browsers do; pygif expects an error",
    "max-width": "canvas 65535×1 is over the 16384 limit (design.md): refused before allocating",
    "max-height": "canvas 1×65535 is over the 16384 limit (design.md): refused before allocating",
    "max-codes": "LZW minimum code size 11: giflib 5.2.1 refuses code sizes over 8 (malformed, exit 65)",
]

extension PygifConf {
    /// Each expected frame's pixel file (`.rgba` or `.png`).
    var pixelFiles: [String] { frames.map { $0["pixels"] ?? $0["image"] ?? "" } }
}

/// Runs one pygif case; returns `nil` when it passes, else why not. `note` says how a pass was judged
/// when our policy differs in form (errors only in strict mode, merged images).
func runPygifCase(_ test: PygifConf, directory: URL, note: inout String) -> String? {
    let path = directory.appendingPathComponent(test.input).path
    if test.expectsError {
        // An error is expected: strict decoding must refuse; lenient decoding must refuse or warn.
        let strict = Result { try decodeAllCanvases(path, limits: DecodeLimits(strict: true)) }
        if case .success = strict { return "strict decoding succeeded where pygif expects an error" }
        switch Result(catching: { try decodeAllCanvases(path) }) {
        case .success(let lenient):
            if lenient.warnings.isEmpty { return "lenient decoding gave no warning" }
            note = "error with --strict; by default the \(lenient.canvases.count) frame(s) that decode are kept, with a warning"
        case .failure(let error):
            note = "error: \(error)"
        }
        return nil
    }
    let metadata: AnimationMetadata
    let canvases: [[UInt8]]
    do {
        metadata = try readAnimationMetadata(path: path)
        canvases = try decodeAllCanvases(path).canvases
    } catch {
        return "error: \(error)"
    }
    if metadata.canvas != CanvasSize(width: test.width, height: test.height) {
        return "canvas \(metadata.canvas.width)×\(metadata.canvas.height)"
    }
    if !test.expectedLoopCounts.contains(metadata.loopCount) { return "loop count \(String(describing: metadata.loopCount))" }
    // pygif merges images into one displayed frame until one has a delay (unless force-animation); we show
    // every image, so pygif's frame is compared with our canvas after the last image of its group.
    var groupEnds: [Int] = []
    for (index, frame) in metadata.frames.enumerated()
    where test.forceAnimation || (frame.rawDelay ?? 0) > 0 || index == metadata.frames.count - 1 {
        groupEnds.append(index)
    }
    if groupEnds.count < metadata.frames.count {
        note = "pygif merges \(metadata.frames.count) images into \(groupEnds.count) frame(s); compared after each group's last image"
    }
    if groupEnds.count != test.pixelFiles.count { return "\(groupEnds.count) displayed frames, expected \(test.pixelFiles.count)" }
    for (number, (end, file)) in zip(groupEnds, test.pixelFiles).enumerated() {
        let url = directory.appendingPathComponent(file)
        let expected: [UInt8]
        do {
            expected = file.hasSuffix(".png") ? try readPNGAsRGBA(url.path).pixels : [UInt8](try Data(contentsOf: url))
        } catch {
            return "cannot read \(file): \(error)"
        }
        if canvases[end] != expected { return "frame \(number) (canvas \(end)) differs from \(file)" }
    }
    return nil
}

@Suite struct ConformanceTests {
    @Test(.enabled(if: corpusDirectory("pygif") != nil, "../shared/corpus/pygif is absent or cannot be read"))
    func pygifCasesMatchExceptDocumentedDeviations() throws {
        let directory = try #require(corpusDirectory("pygif"))
        let names = try PygifConf.caseNames(in: directory)
        #expect(names.count > 80)
        var passed = 0
        let printTable = ProcessInfo.processInfo.environment["GIFX_CONFORMANCE_TABLE"] != nil
        for name in names {
            var note = ""
            let outcome = runPygifCase(try PygifConf(directory: directory, name: name), directory: directory, note: &note)
            if printTable {
                let reason = pygifDeviations[name].map { "deviation: \($0)" } ?? note
                print("| \(name) | \(outcome == nil ? "pass" : "fail") | \(reason) |")
            }
            if let reason = pygifDeviations[name] {
                #expect(outcome != nil, "\(name) is listed as a deviation (\(reason)) but now passes")
            } else {
                #expect(outcome == nil, "\(name): \(outcome ?? "")")
                if outcome == nil { passed += 1 }
            }
        }
        print("pygif: \(passed)/\(names.count) pass, \(pygifDeviations.count) documented deviations")
    }

    @Test(.enabled(if: corpusDirectory("peterdn/gifs") != nil, "../shared/corpus/peterdn is absent or cannot be read"))
    func peterdnFramesMatch() throws {
        let directory = try #require(corpusDirectory("peterdn/gifs"))
        let gifs = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".gif") }.sorted()
        #expect(gifs.count == 13)
        for gif in gifs {
            let name = String(gif.dropLast(4))
            let (canvases, _) = try decodeAllCanvases(directory.appendingPathComponent(gif).path)
            let expectedCount = (try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("frames").path))
                .filter { $0.hasPrefix("\(name)-") && $0.dropFirst(name.count + 1).dropLast(4).allSatisfy(\.isNumber) }.count
            // Animations have NAME-N.png per frame; still images a single NAME.png.
            let files = expectedCount > 0 ? (0..<expectedCount).map { "\(name)-\($0).png" } : ["\(name).png"]
            #expect(canvases.count == files.count, "\(name): \(canvases.count) canvases, \(files.count) expected")
            for (canvas, file) in zip(canvases, files) {
                let index = file
                let expected = try readPNGAsRGBA(directory.appendingPathComponent("frames/\(file)").path)
                #expect(expected.pixels.count == canvas.count, "\(name)-\(index): size")
                guard expected.pixels.count == canvas.count else { continue }
                var differing = 0
                for pixel in stride(from: 0, to: canvas.count, by: 4) {
                    let alpha = expected.pixels[pixel + 3]
                    if canvas[pixel + 3] != alpha
                        || (alpha > 0 && canvas[pixel..<(pixel + 3)] != expected.pixels[pixel..<(pixel + 3)])
                    {
                        differing += 1
                    }
                }
                #expect(differing == 0, "\(name)-\(index): \(differing) pixels differ")
            }
        }
    }
}
