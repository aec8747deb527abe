import Foundation
import GifxFrames
import GifFixtures
import Testing
import GifxTimeline

/// `timeline --json`'s streaming writer gives byte-identical output to `JSONEncoder` (the encoder it
/// replaced, kept as the oracle) on the Timeline of every corpus GIF and of fixtures, under both policies.
@Suite struct TimelineJSONCorpusTests {
    static func oracle(_ timeline: Timeline) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(timeline))
    }

    static func streamed(_ timeline: Timeline) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try TimelineJSONWriter(timeline, chunkSize: 4096).write { bytes.append(contentsOf: $0) }
        return bytes
    }

    /// Compares both encodings of `path`'s Timeline; `false` when the file is refused (nothing to compare).
    static func compare(_ path: String, name: String) throws -> Bool {
        guard let metadata = try? readAnimationMetadata(path: path) else { return false }
        for policy in TimelinePolicy.allCases {
            let timeline = Timeline(metadata.timelineInput, policy: policy)
            #expect(try streamed(timeline) == oracle(timeline), "\(name) (\(policy))")
        }
        return true
    }

    @Test(.enabled(if: corpusDirectory("") != nil, "../shared/corpus is absent"), arguments: ["pygif", "peterdn", "fuzz"])
    func everyCorpusGIF(_ folder: String) throws {
        let directory = try #require(corpusDirectory(folder), "../shared/corpus/\(folder) is missing")
        let files = corpusGIFs(in: directory)
        #expect(!files.isEmpty)
        var compared = 0
        for file in files where try Self.compare(directory.appendingPathComponent(file).path, name: file) {
            compared += 1
        }
        // Most fuzz files are refused before any image (exit 65): only the others have a timeline.
        #expect(compared > (folder == "fuzz" ? 50 : files.count / 2), "only \(compared) of \(files.count) had a timeline")
    }

    /// A truncated file (its warning in the document), a file with every GCE field, and many frames.
    @Test func fixtures() throws {
        let mixed = FixtureGIF(
            width: 8, height: 6, loopCounts: [3],
            frames: [
                .solid(1, width: 8, height: 6, delay: 0),
                .solid(2, left: 2, top: 1, width: 3, height: 2, delay: nil),
                FixtureFrame(
                    left: 1, top: 1, width: 4, height: 4, indices: [UInt8](repeating: 3, count: 16), delay: 7,
                    disposal: 1, transparentIndex: 2, interlaced: true),
                .solid(5, width: 8, height: 6, delay: 65535, disposal: 3, transparentIndex: 0),
                .solid(6, left: 0, top: 3, width: 8, height: 3, delay: 5, disposal: 5),
            ])
        let data = try mixed.encode()
        #expect(try Self.compare(temporaryFile(data), name: "mixed"))
        #expect(try Self.compare(temporaryFile(data.prefix(data.count - 12)), name: "truncated"))
        let many = try FixtureGIF.repeatingFrame(
            width: 1, height: 1, frame: .solid(1, width: 1, height: 1, delay: 3), count: 20_000)
        #expect(try Self.compare(temporaryFile(many), name: "many"))
    }

    /// `AnimationMetadata.images` gives back every image it was given, GIF-like or not.
    @Test func imageListRoundTrips() {
        var images: [GifImageInfo] = (0..<40_000).map { i in
            GifImageInfo(
                descriptor: FrameDescriptor(rawDelay: i % 9, rect: PixelRect(x: i % 3, y: 0, width: 1, height: 1)),
                localPaletteSize: i % 4 == 0 ? nil : 1 << (1 + i % 8), byteOffset: 800 + 23 * i + (i > 30_000 ? 1 << 32 : 0))
        }
        images.append(GifImageInfo(descriptor: images[0].descriptor, localPaletteSize: 3, byteOffset: 17))
        images.append(GifImageInfo(descriptor: images[0].descriptor, localPaletteSize: 512, byteOffset: -1))
        images.append(GifImageInfo(descriptor: images[0].descriptor, localPaletteSize: 0, byteOffset: Int.max))
        let list = GifImageList(images)
        #expect(Array(list) == images)
        #expect(Array(list.descriptors) == images.map(\.descriptor))
    }
}
