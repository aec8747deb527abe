import ChildProcesses
import Foundation
import Testing

/// `make docs`' docs check (issue 58, packaging/docs_check.py): a path, a make target or a doc section that a doc
/// names must exist, and every environment variable Sources reads must have one row in docs/environment.md. A
/// planted tree with one of each wrong fails it, line by line; marked foreign, fixed or documented, it passes.
@Suite struct DocsCheckTests {
    static let script = PackagingScript("docs_check.py")

    func check(_ root: URL) throws -> CapturedRun { try Self.script.run(root: root) }

    @Test func aMissingPathFailsAndAMarkedOnePasses() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        try plant("all: build\nbuild:\n\tswift build\ndocs: build\n", "Makefile", in: root)
        try plant("let switchOn = getenv(\"GIFX_PLANTED\") != nil\n", "Sources/gifx/Planted.swift", in: root)
        try plant("# Topic\n\n## Present\n\nText.\n", "docs/topic.md", in: root)
        try plant(
            """
            # Environment variables

            | variable | read by | effect |
            |---|---|---|
            | `GIFX_PLANTED=1` | gifx | a planted switch |
            """, "docs/environment.md", in: root)
        let guide = """
            # Guide

            The reader is Sources/gifx/Planted.swift; the lost one Sources/Frames/LZW/Gone.swift.
            Run `make docs`, then `make all-the-things`. See docs/topic.md, "Absent" and docs/topic.md, "Present".
            """
        try plant(guide, "docs/guide.md", in: root)
        let failing = try check(root)
        #expect(failing.status == 1)
        #expect(failing.stdoutText.contains("docs/guide.md:3: names Sources/Frames/LZW/Gone.swift, which does not exist"),
                "\(failing.stdoutText)")
        #expect(!failing.stdoutText.contains("Planted.swift, which"), "an existing path passes: \(failing.stdoutText)")
        #expect(failing.stdoutText.contains("docs/guide.md:4: names `make all-the-things`"), "\(failing.stdoutText)")
        #expect(!failing.stdoutText.contains("`make docs`"), "\(failing.stdoutText)")
        #expect(failing.stdoutText.contains("names the section \"Absent\" of docs/topic.md"), "\(failing.stdoutText)")
        #expect(!failing.stdoutText.contains("\"Present\""), "\(failing.stdoutText)")
        #expect(!failing.stdoutText.contains("GIFX_PLANTED"), "a documented variable passes: \(failing.stdoutText)")

        // Another project's path, marked foreign; the make target and the section fixed: it passes.
        try plant(
            guide.replacingOccurrences(of: "Gone.swift.", with: "Gone.swift. <!-- docs-check: foreign Pillow -->")
                .replacingOccurrences(of: "all-the-things", with: "build").replacingOccurrences(of: "\"Absent\"", with: "\"Topic\""),
            "docs/guide.md", in: root)
        let passing = try check(root)
        #expect(passing.status == 0, "\(passing.stdoutText)")
        #expect(passing.stdoutText.contains("docs-check: ok"), "\(passing.stdoutText)")

        // A variable Sources reads that has no row fails; a second row for one fails too.
        try plant("let a = getenv(\"GIFX_PLANTED\")\nlet b = getenv(\"TMPDIR\")\n", "Sources/gifx/Planted.swift", in: root)
        try plant(
            """
            | variable | read by | effect |
            |---|---|---|
            | `GIFX_PLANTED=1` | gifx | a planted switch |
            | `GIFX_PLANTED` | gifx | again |
            """, "docs/environment.md", in: root)
        let undocumented = try check(root)
        #expect(undocumented.status == 1)
        #expect(undocumented.stdoutText.contains("reads the environment variable TMPDIR, which docs/environment.md has no row for"),
                "\(undocumented.stdoutText)")
        #expect(undocumented.stdoutText.contains("GIFX_PLANTED has 2 rows"), "\(undocumented.stdoutText)")
    }

    @Test func theRepositoryPasses() throws {
        let run = try Self.script.run()
        #expect(run.status == 0, "\(run.stdoutText)")
    }
}
