import ChildProcesses
import Foundation

/// A check of packaging/ that `make test` runs (`make lint`, `facade-check`, `docs-check`, `check-units`), run as
/// its tests run it: over a tree they plant (`--root`), or over the repository as it is.
struct PackagingScript {
    /// The repository: three folders above this file.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    let path: String

    /// packaging/`name`.
    init(_ name: String) { path = Self.repository.appendingPathComponent("packaging/\(name)").path }

    /// python3 runs the script over `root` (the repository when `nil`), with `arguments` after.
    func run(root: URL? = nil, _ arguments: [String] = []) throws -> CapturedRun {
        try CapturedRun.run("/usr/bin/env", ["python3", path] + (root.map { ["--root", $0.path] } ?? []) + arguments)
    }
}

/// Writes `text` at `path` in a planted tree under `root`, making its folders.
func plant(_ text: String, _ path: String, in root: URL) throws {
    let file = root.appendingPathComponent(path)
    try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    try text.write(to: file, atomically: true, encoding: .utf8)
}
