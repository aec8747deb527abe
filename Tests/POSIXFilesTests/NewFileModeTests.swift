import Foundation
import GifxPOSIXFiles
import Synchronization
import SystemPackage
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// This process's umask as Linux reports it in /proc/self/status (since 4.7): read without calling
/// umask(2), which can only read the mask by setting it.
func currentUmask() throws -> mode_t {
    let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
    let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("Umask:") })
    return try #require(mode_t(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8))
}

func permissions(of fd: FileDescriptor) -> mode_t {
    var info = stat()
    fstat(fd.rawValue, &info)
    return info.st_mode & 0o7777
}

@Suite("New files: the kernel applies the umask, nobody toggles it")
struct NewFileModeTests {
    let folder: String = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gifx-posixfiles-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }()

    @Test func outputTemporaryGetsTheModeOfANewFile() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let mask = try currentUmask()
        let file = try POSIXFiles.makeHiddenTemporary(beside: folder + "/out.mp4").get()
        defer { try? file.fd.close() }
        #expect(file.path.hasPrefix(folder + "/.out.mp4.gifx-") && file.path.count == (folder + "/.out.mp4.gifx-").count + 6)
        #expect(permissions(of: file.fd) == 0o666 & ~mask)
    }

    @Test func scratchFileIsTheOwnersAlone() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let mask = try currentUmask()
        let file = try POSIXFiles.makeUniqueFile(prefix: folder + "/spool-", access: .ownerOnly).get()
        defer { try? file.fd.close() }
        #expect(permissions(of: file.fd) == 0o600 & ~mask)
    }

    /// Files made one after another while another thread watches the umask in /proc: the old
    /// `umask(0); umask(mask)` showed 0 to every thread for a moment on each file, which a watcher
    /// reading thousands of times catches.
    @Test func umaskNeverChangesWhileFilesAreMade() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let mask = try currentUmask()
        let done = Atomic<Bool>(false)
        let seen = Mutex<(reads: Int, others: Set<mode_t>)>((0, []))
        let watcher = Thread {
            while !done.load(ordering: .acquiring) {
                guard let value = try? currentUmask() else { continue }
                seen.withLock { $0.reads += 1; if value != mask { $0.others.insert(value) } }
            }
        }
        watcher.start()
        while seen.withLock({ $0.reads }) == 0 { usleep(100) }
        for index in 0..<3000 {
            let file = try POSIXFiles.makeHiddenTemporary(beside: "\(folder)/out\(index % 10).png").get()
            try file.fd.close()
            unlink(file.path)
        }
        done.store(true, ordering: .releasing)
        while !watcher.isFinished { usleep(100) }
        let (reads, others) = seen.withLock { $0 }
        #expect(reads > 100)
        #expect(others.isEmpty, "the umask was \(others.map { String($0, radix: 8) }) instead of \(String(mask, radix: 8))")
    }

    @Test func linkRefusesAnExistingTargetAndRenameReplacesIt() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let a = folder + "/a", b = folder + "/b"
        try Data("new".utf8).write(to: URL(fileURLWithPath: a))
        try Data("old".utf8).write(to: URL(fileURLWithPath: b))
        #expect(throws: Errno.fileExists) { try POSIXFiles.link(a, to: b) }
        try POSIXFiles.durableRename(a, to: b)
        #expect(try String(contentsOfFile: b, encoding: .utf8) == "new")
        #expect(!FileManager.default.fileExists(atPath: a))
        #expect(throws: Errno.noSuchFileOrDirectory) { try POSIXFiles.rename(a, to: b) }
    }
}
