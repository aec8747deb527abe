import ChildProcesses
import Foundation
import Testing

/// `make facade-check` (issue 58, item 5): the command line and the service import the conversion through GifxKit
/// alone. A planted `import GifxEncoders` in Sources/gifx, or `GifxPipeline` named among the `gifx` target's
/// dependencies in Package.swift, fails it; the same tree without them, and the repository as it is, pass.
@Suite struct FacadeCheckTests {
    static let script = PackagingScript("facade_check.py")

    func check(root: URL) throws -> CapturedRun { try Self.script.run(root: root) }

    @Test func aPlantedImportBelowTheFacadeFails() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        try plant("import ArgumentParser\nimport GifxKit\nimport GifxTimeline\n", "Sources/gifx/Clean.swift", in: root)
        try plant("import GifxKit\nimport Hummingbird\n", "Sources/Server/Clean.swift", in: root)
        let clean = try check(root: root)
        #expect(clean.status == 0, "\(clean.stdoutText)")

        try plant("import Foundation\nimport GifxEncoders\n// import GifxFrames is a comment\n", "Sources/gifx/Planted.swift", in: root)
        try plant("@preconcurrency import GifxFrames\n", "Sources/Server/Embed/Planted.swift", in: root)
        try plant("""
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
        let run = try Self.script.run()
        #expect(run.status == 0, "\(run.stdoutText)")
    }
}
