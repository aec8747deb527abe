import Foundation
import GifFixtures
import Testing

/// The corpus tests skip (reported as skipped) when `../shared/corpus` is absent. Present but unreadable
/// (a wrong mount, mode 000, a half-copied folder) must not look the same: this test then fails, so
/// `make test` and CI fail instead of passing with the corpus tests skipped.
@Suite struct CorpusAvailabilityTests {
    /// Each corpus folder and the fewest `.gif` files it holds in the pinned copy (fuzz 291, pygif 84,
    /// peterdn 13 on 2026-11-23).
    static let expected: [(folder: String, minimum: Int)] = [("fuzz", 250), ("pygif", 80), ("peterdn/gifs", 13)]

    @Test(.enabled(if: corpusDirectory("") != nil, "../shared/corpus is absent"))
    func presentCorpusIsReadableAndComplete() throws {
        let root = try #require(corpusDirectory(""))
        #expect(
            (try? FileManager.default.contentsOfDirectory(atPath: root.path)) != nil,
            "\(root.path) exists but cannot be listed")
        for (folder, minimum) in Self.expected {
            let directory = try #require(
                corpusDirectory(folder), "\(root.path)/\(folder) is missing or cannot be searched")
            let gifs = corpusGIFs(in: directory)
            #expect(gifs.count >= minimum, "\(directory.path): \(gifs.count) .gif files, expected at least \(minimum)")
            let unreadable = gifs.filter { name in
                guard let handle = FileHandle(forReadingAtPath: directory.appendingPathComponent(name).path) else {
                    return true
                }
                defer { try? handle.close() }
                return (try? handle.read(upToCount: 3)) == nil
            }
            #expect(unreadable.isEmpty, "\(directory.path): cannot read \(unreadable.prefix(5))")
        }
    }
}
