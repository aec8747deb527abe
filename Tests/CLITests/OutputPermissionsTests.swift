import ChildProcesses
import Foundation
import GifFixtures
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Outputs get the permissions of any new file under the user's umask: the hidden temporary is created
/// with mode 0666 and the kernel applies the umask (POSIXFiles.makeUniqueFile), then renamed or linked.
@Suite("Output permissions follow the umask")
struct OutputPermissionsTests {
    /// The permission bits of the file at `path`.
    static func mode(_ path: String) throws -> mode_t {
        var info = stat()
        try #require(stat(path, &info) == 0, "\(path) is missing")
        return info.st_mode & 0o7777
    }

    /// gifx runs under `umask 027` in its own shell, so this test process's umask is left alone; every
    /// output is 0640, whether linked into place (new targets) or renamed over an existing 0600 file
    /// (`--overwrite`).
    @Test(arguments: [false, true])
    func outputsAre0666MinusTheUmask(overwrite: Bool) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let gif = FixtureGIF.solidFrames(width: 8, height: 6, colorIndices: [1, 2], delays: [5, 10])
        let input = try writeGIF(gif, to: folder)
        let names = ["t.timeline.json", "p.png", "a.webp"]
        if overwrite {
            for name in names {
                #expect(FileManager.default.createFile(
                    atPath: folder.appendingPathComponent(name).path, contents: Data(), attributes: [.posixPermissions: 0o600]))
            }
        }
        let command = [gifxExecutable().path, "convert", input, "--quiet"]
            + names.flatMap { ["-o", folder.appendingPathComponent($0).path] } + (overwrite ? ["--overwrite"] : [])
        let run = try CapturedRun.run("/bin/sh", ["-c", "umask 027; exec \"$@\"", "sh"] + command)
        try #require(run.status == 0, "\(run.stderrText)")
        for name in names {
            #expect(try Self.mode(folder.appendingPathComponent(name).path) == 0o640, "\(name)")
        }
    }
}
