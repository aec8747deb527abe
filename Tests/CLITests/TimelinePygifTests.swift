import Foundation
import GifFixtures
import Testing

extension PygifConf {
    /// Expected delay per displayed frame in cs; pygif writes no `delay` for 0 (e.g. animation-zero-delays).
    var delays: [Int] { frames.map { Int($0["delay"] ?? "0") ?? -1 } }
}

/// What `gifx timeline --json` gives for a pygif case whose expectation differs from our policy: the policy's
/// own values, written from timeline.md and the file's GCEs (docs/conformance.md, "Timeline" section).
struct TimelineDeviation {
    var status: Int32 = 0
    var delays: [Int] = []
    var rules: [String] = []

    /// One image without GCE: the 10 cs default.
    static let stillDefault = TimelineDeviation(delays: [10], rules: ["default"])
    /// One image whose GCE says 0 cs: rounded up to 10 cs.
    static let stillRoundedUp = TimelineDeviation(delays: [10], rules: ["rounded-up"])
    /// `n` images without GCE: 10 cs default, then carried over.
    static func noGCE(_ n: Int) -> TimelineDeviation {
        TimelineDeviation(delays: Array(repeating: 10, count: n), rules: ["default"] + Array(repeating: "carried", count: n - 1))
    }
    static let malformed = TimelineDeviation(status: 65)
}

let stillDefaultCases = [
    "depth1", "depth2", "depth3", "depth4", "depth5", "depth6", "depth7", "depth8", "four-colors",
    "local-color-table", "no-global-color-table", "image-zero-width", "image-zero-height", "image-zero-size",
    "invalid-background", "all-reds", "all-greens", "all-blues", "interlace", "image-inside-bg",
    "image-overlap-bg", "image-outside-bg", "missing-pixels", "extra-pixels", "extra-data", "no-clear", "no-eoi",
    "no-clear-and-eoi", "many-clears", "double-clears", "4095-codes-clear", "4095-codes", "255-codes",
    "large-codes", "unset-transparent", "loop-infinite", "loop-once", "loop-max", "loop-buffer",
    "loop-buffer_max", "loop-animexts", "comment", "large-comment", "nul-comment", "invalid-ascii-comment",
    "invalid-utf8-comment", "xmp-data", "xmp-data-empty", "icc-color-profile", "icc-color-profile-empty",
    "unknown-extension", "unknown-application-extension", "nul-application-extension", "gif87a",
]

/// pygif cases where `gifx timeline` (policy flanimated) differs from pygif, with the policy's values.
/// Every other case must match pygif exactly; each of these must still differ. The names must equal the
/// ones listed in docs/conformance.md's timeline section.
let pygifTimelineDeviations: [String: TimelineDeviation] = {
    var table: [String: TimelineDeviation] = [:]
    for name in stillDefaultCases { table[name] = .stillDefault }
    for name in ["transparent", "invalid-transparent", "disabled-transparent"] { table[name] = .stillRoundedUp }
    // Animations whose delays are all 0 or absent: pygif 0 cs each.
    table["animation-zero-delays"] = TimelineDeviation(delays: [10, 10, 10, 10], rules: Array(repeating: "rounded-up", count: 4))
    table["animation-no-delays"] = .noGCE(4)
    table["gif87a-animation"] = .noGCE(4)
    // pygif merges images without a delay into one displayed frame; every image is a frame here.
    table["images-combine"] = .noGCE(4)
    table["images-overlap"] = .noGCE(2)
    table["high-color"] = .noGCE(4)
    table["dispose-restore-previous"] = TimelineDeviation(
        delays: [10, 50, 50, 50, 50], rules: ["default", "raw", "raw", "raw", "raw"])
    table["animation-multi-image"] = TimelineDeviation(
        delays: Array(repeating: 50, count: 7), rules: ["raw", "carried", "raw", "carried", "raw", "carried", "raw"])
    table["animation-multi-image-explicit-zero-delay"] = TimelineDeviation(
        delays: [50, 10, 50, 10, 50, 10, 50],
        rules: ["raw", "rounded-up", "raw", "rounded-up", "raw", "rounded-up", "raw"])
    // pygif expects an error; the timeline reads metadata only and never sees damaged pixel data.
    for name in ["invalid-code", "invalid-colors"] { table[name] = .stillDefault }
    // pygif expects an error; the plain-text extension is skipped as browsers do.
    table["plain-text"] = .stillDefault
    // Refused here, shown by pygif.
    table["no-data"] = .malformed
    table["max-width"] = .malformed
    table["max-height"] = .malformed
    table["max-codes"] = .malformed
    return table
}()

@Suite struct TimelinePygifTests {
    @Test(.enabled(if: corpusDirectory("pygif") != nil, "../shared/corpus/pygif is absent or cannot be read"))
    func pygifCasesMatchExceptDocumentedDeviations() throws {
        let directory = try #require(corpusDirectory("pygif"))
        let names = try PygifConf.caseNames(in: directory)
        #expect(names.count > 80)
        #expect(Set(pygifTimelineDeviations.keys).isSubset(of: Set(names)))
        var matched = 0
        var deviating: Set<String> = []
        for name in names {
            let test = try PygifConf(directory: directory, name: name)
            let path = directory.appendingPathComponent(test.input).path
            let run = try runGifx(["timeline", path, "--json"], timeout: 10)
            #expect(!run.timedOut, "\(name)")
            var json: TimelineJSON?
            if run.status == 0 {
                json = try TimelineJSON(run)
                #expect(run.stderr.isEmpty, "\(name): \(run.stderr)")  // --json keeps warnings in the JSON
            } else {
                #expect(run.stderrLines.count == 1, "\(name): \(run.stderr)")
                #expect(run.stderrLines.first?.hasPrefix("gifx: ") == true, "\(name): \(run.stderr)")
                #expect(run.stdout.isEmpty, "\(name)")
            }
            let matchesPygif: Bool
            if test.expectsError {
                matchesPygif = run.status == 65
            } else if let json {
                matchesPygif = json.canvas == [test.width, test.height]
                    && test.expectedLoopCounts.contains(json.loopCountIsNull ? nil : json.loopCount)
                    && json.delays == test.delays.map { Optional($0) }
            } else {
                matchesPygif = false
            }
            guard let deviation = pygifTimelineDeviations[name] else {
                #expect(matchesPygif, "\(name): status \(run.status), \(json?.delays ?? []) vs pygif \(test.delays)")
                if matchesPygif { matched += 1 }
                continue
            }
            deviating.insert(name)
            #expect(!matchesPygif, "\(name) is listed as a deviation but now matches pygif")
            #expect(run.status == deviation.status, "\(name): \(run.stderr)")
            guard let json else { continue }
            // The policy's values, and everything pygif does agree on.
            #expect(json.delays == deviation.delays.map { Optional($0) }, "\(name)")
            #expect(json.rules == deviation.rules.map { Optional($0) }, "\(name)")
            if !test.expectsError {
                #expect(json.canvas == [test.width, test.height], "\(name)")
                let count: Int? = json.loopCountIsNull ? nil : json.loopCount
                #expect(test.expectedLoopCounts.contains(count), "\(name): loop count \(String(describing: count))")
            }
        }
        #expect(deviating == Set(pygifTimelineDeviations.keys))
        print("pygif timeline: \(matched)/\(names.count) match, \(deviating.count) documented deviations")
    }

    /// docs/conformance.md lists exactly the deviating cases of the table above (no drift between the two).
    @Test func documentedDeviationsEqualTheTestTable() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/conformance.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        guard let start = text.range(of: "## Timeline against pygif") else {
            Issue.record("docs/conformance.md has no \"## Timeline against pygif\" section")
            return
        }
        let section = text[start.upperBound...]
        let end = section.range(of: "\n## ")?.lowerBound ?? section.endIndex
        // Case names are the backticked words in the first column of the section's deviation table.
        var listed: Set<String> = []
        for line in section[..<end].split(separator: "\n") where line.hasPrefix("| `") {
            let firstColumn = line.dropFirst().prefix { $0 != "|" }
            for piece in firstColumn.split(separator: "`", omittingEmptySubsequences: false).enumerated() where piece.offset % 2 == 1 {
                listed.insert(String(piece.element))
            }
        }
        #expect(listed == Set(pygifTimelineDeviations.keys),
                "only in docs: \(listed.subtracting(pygifTimelineDeviations.keys).sorted()); only in test: \(Set(pygifTimelineDeviations.keys).subtracting(listed).sorted())")
    }
}
