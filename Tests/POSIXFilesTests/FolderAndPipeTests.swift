import Foundation
import GifxPOSIXFiles
import SystemPackage
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Private folders and close-on-exec pipes (batch's and the service's scratch folders and worker pipes)")
struct FolderAndPipeTests {
    @Test func aUniqueFolderIsNewEmptyAndPrivate() throws {
        let prefix = FileManager.default.temporaryDirectory.path + "/gifx-folder-test-"
        let first = try POSIXFiles.makeUniqueFolder(prefix: prefix).get()
        let second = try POSIXFiles.makeUniqueFolder(prefix: prefix).get()
        defer {
            rmdir(first)
            rmdir(second)
        }
        #expect(first != second)
        #expect(first.hasPrefix(prefix) && first.count == prefix.count + 6)
        var info = stat()
        #expect(stat(first, &info) == 0)
        #expect(info.st_mode & S_IFMT == S_IFDIR)
        #expect(info.st_mode & 0o777 == 0o700)
        #expect(try FileManager.default.contentsOfDirectory(atPath: first).isEmpty)
    }

    @Test func aFolderInAMissingParentFailsWithItsErrno() {
        #expect(throws: Errno.noSuchFileOrDirectory) {
            try POSIXFiles.makeUniqueFolder(prefix: "/nonexistent-gifx-\(UUID().uuidString)/job-").get()
        }
    }

    @Test func bothEndsOfThePipeCloseOnExecAndCarryBytes() throws {
        let ends = try POSIXFiles.closeOnExecPipe().get()
        defer {
            close(ends.read)
            close(ends.write)
        }
        #expect(fcntl(ends.read, F_GETFD) & FD_CLOEXEC != 0)
        #expect(fcntl(ends.write, F_GETFD) & FD_CLOEXEC != 0)
        try POSIXFiles.writeAll(FileDescriptor(rawValue: ends.write), Array("job\n".utf8))
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = read(ends.read, &buffer, buffer.count)
        #expect(count == 4 && Array(buffer[0..<4]) == Array("job\n".utf8))
    }
}
