import Foundation
import GifFixtures
import Testing

/// The fuzzer-found corpus and pygif's error cases through every subcommand the binary has
/// (timeline, to-mp4, to-sprite): never a crash or a hang, exit 0 or 65, one clear line naming the file
/// on failure, and no output or temporary file left after a failure (design.md "Bad input", issue 8).
@Suite struct ReliabilityCorpusTests {
    /// Every `.gif` under `directory`, sorted (a stable order makes the sample deterministic).
    static func gifs(in directory: URL) -> [String] {
        corpusGIFs(in: directory).map { directory.appendingPathComponent($0).path }
    }

    /// pygif cases whose `.conf` has an empty `frames =` (the case expects a decode error).
    static func pygifErrorCases(in directory: URL) -> [String] {
        let confs = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return confs.filter { $0.hasSuffix(".conf") }.sorted().compactMap { conf in
            guard let test = try? PygifConf(directory: directory, name: String(conf.dropLast(".conf".count))),
                test.expectsError
            else { return nil }
            return directory.appendingPathComponent(test.input).path
        }
    }

    /// Timeline reads every file (it is cheap). The encoders, each costing 0.2–5 s a file in a debug build,
    /// take a deterministic third each of the sorted list (index % 3 == 0 → to-mp4, == 1 → to-sprite),
    /// which keeps the test near 30 s on 2 cores; GIFX_RELIABILITY_FULL=1 runs every file through both.
    @Test(.enabled(if: corpusDirectory("fuzz") != nil, "../shared/corpus/fuzz is absent or cannot be read"), .timeLimit(.minutes(hangGuardMinutes)))
    func fuzzCorpusThroughEverySubcommand() throws {
        let directory = try #require(corpusDirectory("fuzz"))
        let files = Self.gifs(in: directory)
        #expect(files.count > 250)
        var cases: [BadInputCase] = []
        for (index, file) in files.enumerated() {
            let label = String(file.dropFirst(directory.path.count + 1))
            cases.append(BadInputCase(label: label, input: file, command: .timeline))
            for (command, slot) in [(Subcommand.toMP4, 0), (.toSprite, 1)]
            where (fullReliabilityRun || index % 3 == slot) {
                cases.append(BadInputCase(label: label, input: file, command: command))
            }
        }
        let started = Date()
        expectNoProblems(checkAll(cases))
        print("reliability: \(cases.count) runs over \(files.count) fuzz files in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
    }

    @Test(.enabled(if: corpusDirectory("pygif") != nil, "../shared/corpus/pygif is absent or cannot be read"))
    func pygifErrorCasesThroughEverySubcommand() throws {
        let directory = try #require(corpusDirectory("pygif"))
        let files = Self.pygifErrorCases(in: directory)
        #expect(files.count >= 9)  // invalid-code … zero-width in the pinned pygif commit
        let cases = files.flatMap { file in
            Subcommand.allCases.map {
                BadInputCase(label: URL(fileURLWithPath: file).lastPathComponent, input: file, command: $0)
            }
        }
        expectNoProblems(checkAll(cases))
    }
}
