import ChildProcesses
import Foundation
import Testing

/// `make docs`' docs check (issue 58, packaging/docs_check.py): a path, a make target or a doc section that a doc
/// names must exist, and every environment variable Sources reads must have one row in docs/environment.md. A
/// planted tree with one of each wrong fails it, line by line; marked foreign, fixed or documented, it passes.
@Suite struct DocsCheckTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let script = repository.appendingPathComponent("packaging/docs_check.py").path

    func write(_ text: String, to path: String, in root: URL) throws {
        let file = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: file, atomically: true, encoding: .utf8)
    }

    func check(_ root: URL) throws -> CapturedRun {
        try CapturedRun.run("/usr/bin/env", ["python3", Self.script, "--root", root.path])
    }

    @Test func aMissingPathFailsAndAMarkedOnePasses() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        try write("all: build\nbuild:\n\tswift build\ndocs: build\n", to: "Makefile", in: root)
        try write("let switchOn = getenv(\"GIFX_PLANTED\") != nil\n", to: "Sources/gifx/Planted.swift", in: root)
        try write("# Topic\n\n## Present\n\nText.\n", to: "docs/topic.md", in: root)
        try write(
            """
            # Environment variables

            | variable | read by | effect |
            |---|---|---|
            | `GIFX_PLANTED=1` | gifx | a planted switch |
            """, to: "docs/environment.md", in: root)
        let guide = """
            # Guide

            The reader is Sources/gifx/Planted.swift; the lost one Sources/Frames/LZW/Gone.swift.
            Run `make docs`, then `make all-the-things`. See docs/topic.md, "Absent" and docs/topic.md, "Present".
            """
        try write(guide, to: "docs/guide.md", in: root)
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
        try write(
            guide.replacingOccurrences(of: "Gone.swift.", with: "Gone.swift. <!-- docs-check: foreign Pillow -->")
                .replacingOccurrences(of: "all-the-things", with: "build").replacingOccurrences(of: "\"Absent\"", with: "\"Topic\""),
            to: "docs/guide.md", in: root)
        let passing = try check(root)
        #expect(passing.status == 0, "\(passing.stdoutText)")
        #expect(passing.stdoutText.contains("docs-check: ok"), "\(passing.stdoutText)")

        // A variable Sources reads that has no row fails; a second row for one fails too.
        try write("let a = getenv(\"GIFX_PLANTED\")\nlet b = getenv(\"TMPDIR\")\n", to: "Sources/gifx/Planted.swift", in: root)
        try write(
            """
            | variable | read by | effect |
            |---|---|---|
            | `GIFX_PLANTED=1` | gifx | a planted switch |
            | `GIFX_PLANTED` | gifx | again |
            """, to: "docs/environment.md", in: root)
        let undocumented = try check(root)
        #expect(undocumented.status == 1)
        #expect(undocumented.stdoutText.contains("reads the environment variable TMPDIR, which docs/environment.md has no row for"),
                "\(undocumented.stdoutText)")
        #expect(undocumented.stdoutText.contains("GIFX_PLANTED has 2 rows"), "\(undocumented.stdoutText)")
    }

    @Test func theRepositoryPasses() throws {
        let run = try CapturedRun.run("/usr/bin/env", ["python3", Self.script])
        #expect(run.status == 0, "\(run.stdoutText)")
    }
}
