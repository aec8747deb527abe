import ChildProcesses
import Foundation
import GifFixtures
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Operating-system faults through the binary (issue 8): missing or unreadable input (66), missing or
/// read-only output folder (73), disk full and file-size limit mid-write (74), SIGINT/SIGTERM/SIGKILL
/// during an encode, `-o` naming the input, an existing output without --overwrite. After every failure
/// the target path is untouched and no hidden temporary file is left.
@Suite(.serialized) struct ReliabilityFaultTests {
    static let isRoot = getuid() == 0

    /// A small animation of noise (so outputs do not compress away): 24 frames of 96×64, 1 cs apart
    /// (100 fps); `--loops N` makes long encodes.
    static func animation(in folder: URL) throws -> String {
        var rng = SplitMix64(seed: 8)
        let frames = (0..<24).map { _ in
            FixtureFrame(width: 96, height: 64, indices: (0..<(96 * 64)).map { _ in UInt8(rng.next() & 7) }, delay: 1)
        }
        return try writeGIF(FixtureGIF(width: 96, height: 64, frames: frames), to: folder)
    }

    static func contents(_ folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    /// Output arguments for `command` writing into `folder`.
    static func outputs(_ command: Subcommand, _ folder: URL, name: String = "out") -> [String] {
        switch command {
        case .timeline: return []
        case .toMP4: return ["-o", folder.appendingPathComponent("\(name).mp4").path]
        case .toSprite:
            return ["-o", folder.appendingPathComponent("\(name).png").path,
                    "--json", folder.appendingPathComponent("\(name).json").path]
        }
    }

    static let encoders: [Subcommand] = [.toMP4, .toSprite]

    /// Whether this process may mount a tmpfs (root with CAP_SYS_ADMIN, e.g. a privileged container).
    static let canMountTmpfs: Bool = {
        guard let probe = try? temporaryFolder("mount-probe") else { return false }
        defer { try? FileManager.default.removeItem(at: probe) }
        guard shell("mount -t tmpfs -o size=4k gifx-probe \(quoted(probe.path)) 2>/dev/null") == 0 else { return false }
        shell("umount \(quoted(probe.path))")
        return true
    }()

    /// Runs `/bin/sh -c script` (mount, ulimit) and returns its exit status.
    @discardableResult
    static func shell(_ script: String) -> Int32 {
        guard let child = try? SpawnedProcess.spawn(
            "/bin/sh", ["-c", script], stdin: .inherited, stdout: .inherited, stderr: .inherited),
            let ended = try? child.wait() else { return -1 }
        return ended.shellStatus
    }

    static func quoted(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    // MARK: input

    @Test func missingInputExits66() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("absent.gif").path
        for command in Subcommand.allCases {
            let run = try runGifx([command.rawValue, input] + Self.outputs(command, folder))
            #expect(run.status == 66, "\(command): \(run.stderr)")
            #expect(run.stderrLines == ["gifx: \(input): cannot open: No such file or directory"], "\(command)")
            #expect(Self.contents(folder).isEmpty)
        }
    }

    /// A folder given as input is unreadable as a GIF for everyone, root included (EISDIR).
    @Test func folderAsInputExits66() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let directory = folder.appendingPathComponent("a-folder.gif")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        try Self.expectCannotOpen(directory.path, reason: "Is a directory")
    }

    /// Root reads any file whatever its mode, so a mode-000 file is unreadable only to others.
    @Test(.disabled(if: isRoot, "running as root: mode 000 does not stop root's reads"))
    func unreadableInputExits66() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let locked = try writeGIF(.solidFrames(width: 2, height: 2, colorIndices: [1], delays: [5]), to: folder, name: "locked.gif")
        chmod(locked, 0)
        try Self.expectCannotOpen(locked, reason: "Permission denied")
    }

    /// Every subcommand refuses `input` with exit 66 and one line, writing nothing.
    static func expectCannotOpen(_ input: String, reason: String) throws {
        let out = try temporaryFolder("unreadable-out")
        defer { try? FileManager.default.removeItem(at: out) }
        for command in Subcommand.allCases {
            let run = try runGifx([command.rawValue, input] + Self.outputs(command, out))
            #expect(run.status == 66, "\(command) \(input): \(run.stderr)")
            #expect(run.stderrLines == ["gifx: \(input): cannot open: \(reason)"], "\(command)")
            #expect(Self.contents(out).isEmpty)
        }
    }

    // MARK: output

    @Test func missingOutputFolderExits73() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.animation(in: folder)
        let missing = folder.appendingPathComponent("no/such/folder")
        for command in Self.encoders {
            let run = try runGifx([command.rawValue, input] + Self.outputs(command, missing))
            #expect(run.status == 73, "\(command): \(run.stderr)")
            #expect(run.stderrLines.count == 1, "\(command): \(run.stderr)")
            #expect(run.stderr.contains("no/such/folder/out.") && run.stderr.contains("No such file or directory"))
        }
        #expect(Self.contents(folder) == ["in.gif"])
    }

    /// A read-only folder that also stops root: a read-only tmpfs mounted for the test (root in a container
    /// with CAP_SYS_ADMIN); without mount rights, a 0555 folder when not root, else sysfs (which refuses
    /// new files even to root).
    @Test func readOnlyOutputFolderExits73() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.animation(in: folder)
        let readOnly = folder.appendingPathComponent("read-only")
        try FileManager.default.createDirectory(at: readOnly, withIntermediateDirectories: false)
        var target = readOnly
        var mounted = false
        if Self.shell("mount -t tmpfs -o ro,size=64k gifx-ro \(Self.quoted(readOnly.path)) 2>/dev/null") == 0 {
            mounted = true
        } else if !Self.isRoot {
            chmod(readOnly.path, 0o555)
        } else {
            target = URL(fileURLWithPath: "/sys/kernel")
        }
        defer { if mounted { Self.shell("umount \(Self.quoted(readOnly.path))") } }
        print("readOnlyOutputFolderExits73: \(mounted ? "read-only tmpfs" : target.path)")
        for command in Self.encoders {
            let run = try runGifx([command.rawValue, input] + Self.outputs(command, target, name: "gifx-test-out"))
            #expect(run.status == 73, "\(command): \(run.stderr)")
            #expect(run.stderrLines.count == 1 && run.stderr.contains("cannot create output"), "\(command): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: target.appendingPathComponent("gifx-test-out.mp4").path))
        }
        #expect(Self.contents(target).filter { $0.contains("gifx") }.isEmpty)
    }

    /// A 32 KiB tmpfs fills up during the write: 74, the temporary removed, nothing at the target.
    @Test(.enabled(if: canMountTmpfs, "cannot mount a small tmpfs here (needs root with CAP_SYS_ADMIN)"))
    func diskFullMidWriteExits74() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.animation(in: folder)
        let small = folder.appendingPathComponent("small")
        try FileManager.default.createDirectory(at: small, withIntermediateDirectories: false)
        try #require(Self.shell("mount -t tmpfs -o size=32k gifx-full \(Self.quoted(small.path)) 2>/dev/null") == 0)
        defer { Self.shell("umount \(Self.quoted(small.path))") }
        for command in Self.encoders {
            let loops = command == .toMP4 ? ["--loops", "40"] : []
            let run = try runGifx([command.rawValue, input] + loops + Self.outputs(command, small))
            #expect(run.status == 74, "\(command): \(run.stderr)")
            #expect(run.stderrLines.count == 1 && run.stderr.contains("No space left on device"), "\(command): \(run.stderr)")
            #expect(Self.contents(small).isEmpty, "\(command): \(Self.contents(small))")
        }
    }

    /// `ulimit -f` (16 KiB): without handling, SIGXFSZ kills gifx mid-write (exit 153) and leaves the
    /// temporary file; gifx ignores SIGXFSZ so the write fails with EFBIG: exit 74, temporary removed.
    @Test func fileSizeLimitMidWriteExits74() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.animation(in: folder)
        let out = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: false)
        let executable = gifxExecutable().path
        for command in Self.encoders {
            let errors = folder.appendingPathComponent("stderr-\(command.rawValue)").path
            let loops = command == .toMP4 ? ["--loops", "40"] : []
            let arguments = ([command.rawValue, input] + loops + Self.outputs(command, out)).map(Self.quoted)
            let status = Self.shell(
                "ulimit -f 32; exec \(Self.quoted(executable)) \(arguments.joined(separator: " ")) 2>\(Self.quoted(errors))")
            let stderr = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            #expect(status == 74, "\(command): \(stderr)")
            #expect(stderr.contains("File too large"), "\(command): \(stderr)")
            // The message names the output the user asked for, not the hidden temporary file.
            #expect(stderr.hasPrefix("gifx: \(out.path)/"), "\(command): \(stderr)")
            #expect(!stderr.contains(".gifx-"), "\(command): \(stderr)")
            #expect(stderr.split(separator: "\n").count == 1, "\(command): \(stderr)")
            #expect(Self.contents(out).isEmpty, "\(command): \(Self.contents(out))")
        }
    }

    // MARK: signals

    /// Starts a long `to-mp4` (the animation written 5000 times), waits until its temporary file has data,
    /// then sends `signal`; returns the exit status and what is left in the output folder.
    static func interruptedEncode(_ signal: Int32, in folder: URL) throws -> (status: Int32, left: [String], stderr: String) {
        let input = try animation(in: folder)
        let out = folder.appendingPathComponent("out-\(signal)")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: false)
        let errors = folder.appendingPathComponent("stderr-\(signal)").path
        let target: String = out.appendingPathComponent("out.mp4").path
        let child = try SpawnedProcess.spawn(
            gifxExecutable().path, ["to-mp4", input, "--loops", "5000", "-o", target], stderr: .file(errors))
        // Wait (up to 30 s) until the hidden temporary file exists and holds data: writing has started.
        let deadline = Date().addingTimeInterval(30)
        var started = false
        while Date() < deadline {
            if try child.wait(until: Date()) != nil {
                let stderr = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
                Issue.record("to-mp4 ended before it was signalled: \(stderr)")
                return (-1, contents(out), stderr)
            }
            if let temp = contents(out).first(where: { $0.hasPrefix(".out.mp4.gifx-") }),
               let size = try? FileManager.default.attributesOfItem(atPath: out.appendingPathComponent(temp).path)[.size] as? Int,
               size > 0 {
                started = true
                break
            }
            usleep(5_000)
        }
        #expect(started, "the temporary output never got data")
        child.send(signal)
        let (ended, timedOut) = try child.waitKilling(after: Date().addingTimeInterval(30))
        if timedOut { Issue.record("no exit after signal") }
        return (ended.shellStatus, contents(out), (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")
    }

    @Test(arguments: [(SIGINT, Int32(130), "interrupted"), (SIGTERM, Int32(143), "terminated")])
    func signalDuringEncodeRemovesTheTemporary(signal: Int32, expected: Int32, word: String) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (status, left, stderr) = try Self.interruptedEncode(signal, in: folder)
        #expect(status == expected, "\(stderr)")
        #expect(left.isEmpty, "left behind: \(left)")
        #expect(stderr == "gifx: \(word); removed partial output\n")
    }

    /// `kill -9` cannot be caught: only the hidden temporary may remain, never a file at the target path.
    @Test func killDuringEncodeNeverLeavesATruncatedTarget() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (status, left, _) = try Self.interruptedEncode(SIGKILL, in: folder)
        #expect(status == 128 + SIGKILL)
        #expect(!left.contains("out.mp4"))
        #expect(left.allSatisfy { $0.hasPrefix(".out.mp4.gifx-") }, "\(left)")
    }

    // MARK: inputs and existing outputs are never touched

    @Test func outputNamingTheInputIsRefused() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.animation(in: folder)
        let original = try Data(contentsOf: URL(fileURLWithPath: input))
        let link = folder.appendingPathComponent("link.gif").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: input)
        let spellings = [input, folder.path + "/./in.gif", link]
        for command in Self.encoders {
            for spelling in spellings {
                for overwrite in [[], ["--overwrite"]] {
                    let arguments: [String] = command == .toMP4
                        ? ["to-mp4", input, "-o", spelling]
                        : ["to-sprite", input, "-o", spelling, "--json", folder.appendingPathComponent("s.json").path]
                    let run = try runGifx(arguments + overwrite)
                    #expect(run.status == 64, "\(command) -o \(spelling) \(overwrite): \(run.stderr)")
                    #expect(run.stderrLines == ["gifx: \(spelling): is the input file; choose another output"])
                }
            }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == original)
        #expect(Self.contents(folder) == ["in.gif", "link.gif"])
    }

    @Test func existingOutputIsKeptWithoutOverwrite() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.animation(in: folder)
        for command in Self.encoders {
            let outputs = Self.outputs(command, folder)
            let target = outputs[1]
            let sentinel = Data("keep me\n".utf8)
            try sentinel.write(to: URL(fileURLWithPath: target))
            let run = try runGifx([command.rawValue, input] + outputs)
            #expect(run.status == 73, "\(command): \(run.stderr)")
            #expect(run.stderrLines == ["gifx: \(target): already exists (use --overwrite to replace it)"])
            #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == sentinel)
            #expect(!Self.contents(folder).contains { $0.contains(".gifx-") })
            try FileManager.default.removeItem(atPath: target)
        }
    }
}
