import ChildProcesses
import Foundation
import Testing

/// `make facade-check` (issue 58, item 5): the command line and the service import the conversion through GifxKit
/// alone. A planted `import GifxEncoders` in Sources/gifx, or `GifxPipeline` named among the `gifx` target's
/// dependencies in Package.swift, fails it; the same tree without them, and the repository as it is, pass.
@Suite struct FacadeCheckTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let script = repository.appendingPathComponent("packaging/facade_check.py").path

    func check(root: URL) throws -> CapturedRun {
        try CapturedRun.run("/usr/bin/env", ["python3", Self.script, "--root", root.path])
    }

    func write(_ text: String, _ path: String, in root: URL) throws {
        let file = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: file, atomically: true, encoding: .utf8)
    }

    @Test func aPlantedImportBelowTheFacadeFails() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        try write("import ArgumentParser\nimport GifxKit\nimport GifxTimeline\n", "Sources/gifx/Clean.swift", in: root)
        try write("import GifxKit\nimport Hummingbird\n", "Sources/Server/Clean.swift", in: root)
        let clean = try check(root: root)
        #expect(clean.status == 0, "\(clean.stdoutText)")

        try write("import Foundation\nimport GifxEncoders\n// import GifxFrames is a comment\n", "Sources/gifx/Planted.swift", in: root)
        try write("@preconcurrency import GifxFrames\n", "Sources/Server/Embed/Planted.swift", in: root)
        try write("""
            let package = Package(name: "x", targets: [
                .target(name: "GifxKit", dependencies: ["GifxEncoders"]),
                .executableTarget(
                    name: "gifx",
                    dependencies: ["GifxKit", "GifxPipeline"]),
                .testTarget(name: "CLITests", dependencies: ["gifx", "GifxFrames"]),
            ])
            """, "Package.swift", in: root)
        let planted = try check(root: root)
        #expect(planted.status == 1)
        let lines = planted.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(planted.stdoutText)")
        #expect(lines.contains { $0.hasPrefix("facade-check: Sources/gifx/Planted.swift:2: imports GifxEncoders") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("facade-check: Sources/Server/Embed/Planted.swift:1: imports GifxFrames") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("facade-check: Package.swift:5: the gifx target depends on GifxPipeline") }, "\(lines)")
    }

    @Test func theRepositoryPasses() throws {
        let run = try CapturedRun.run("/usr/bin/env", ["python3", Self.script])
        #expect(run.status == 0, "\(run.stdoutText)")
    }
}
