import Foundation
import GifFixtures
import GifxFrames
import Testing

/// Every fuzzer-found file decodes to the end (canvases or a classified error) without crashing or hanging.
/// Canvases are capped at 64 MiB here to keep the run light; the 1 GiB default is tested in MetadataTests.
@Suite struct FuzzCorpusTests {
    @Test(.enabled(if: corpusDirectory("fuzz") != nil, "../shared/corpus/fuzz is absent or cannot be read"), .timeLimit(.minutes(hangGuardMinutes)))
    func everyFuzzFileDecodesOrFailsCleanly() throws {
        let directory = try #require(corpusDirectory("fuzz"))
        let files = corpusGIFs(in: directory)
        #expect(files.count > 250)
        let limits = DecodeLimits(maxCanvasBytes: 64 << 20)
        var decoded = 0, refused = 0
        for file in files {
            let path = directory.appendingPathComponent(file).path
            do {
                let stream = try FrameStream(path: path, limits: limits)
                var count = 0
                while try stream.nextCanvas({ $0.pixels.count }) != nil { count += 1 }
                #expect(count == stream.metadata.images.count, "\(file)")
                decoded += 1
            } catch let error as GifDecodeError {
                #expect(error.failureClass == .malformedData, "\(file): \(error)")
                #expect(!error.description.contains("\n"))
                refused += 1
            }
        }
        print("fuzz: \(decoded) decoded, \(refused) refused with exit 65, of \(files.count)")
    }
}
