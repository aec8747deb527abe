import ChildProcesses
import Foundation
import Testing

/// `make check-units` (issue 57): the script finds a time literal in arithmetic that its allowlist does not name,
/// and passes the repository as it is. A planted `× 10_000` (the centiseconds-to-µs bug of ec802e3's streamed
/// header) fails it; the same line allowed, or arithmetic with another constant, passes.
@Suite struct CheckUnitsTests {
    static let script = PackagingScript("check_units.py")

    func check(root: URL, allowlist: String) throws -> CapturedRun {
        let list = root.appendingPathComponent("allow.txt")
        try allowlist.write(to: list, atomically: true, encoding: .utf8)
        return try Self.script.run(root: root, ["--allowlist", list.path])
    }

    @Test func aPlantedCentisecondConversionFails() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let sources = root.appendingPathComponent("Sources/Encoders")
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        try """
            /// Microseconds of the video: cs × 10,000 (a comment is not code).
            let microseconds = plan.duration.num * 10_000 * loops / plan.duration.den
            let frames = count * 3
            """.write(to: sources.appendingPathComponent("Planted.swift"), atomically: true, encoding: .utf8)
        let planted = try check(root: root, allowlist: "")
        #expect(planted.status == 1)
        #expect(planted.stdoutText.contains("Sources/Encoders/Planted.swift:2: a time literal in arithmetic"), "\(planted.stdoutText)")
        #expect(!planted.stdoutText.contains("Planted.swift:1:") && !planted.stdoutText.contains("Planted.swift:3:"))

        let allowed = try check(root: root, allowlist: "Sources/Encoders/Planted.swift | num * 10_000 | a test\n")
        #expect(allowed.status == 0, "\(allowed.stdoutText)")
        // An entry that matches nothing fails too: the list stays true.
        let stale = try check(root: root, allowlist: "Sources/Encoders/Planted.swift | num * 10_000 | a test\nSources/Gone.swift | x * 100 | gone\n")
        #expect(stale.status == 1 && stale.stdoutText.contains("which no line has"), "\(stale.stdoutText)")
    }

    @Test func theRepositoryPasses() throws {
        let run = try Self.script.run()
        #expect(run.status == 0, "\(run.stdoutText)")
    }
}
