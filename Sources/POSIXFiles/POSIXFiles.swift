import Foundation
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few file idioms gifx needs, written once on top of swift-system's `FileDescriptor` (which retries
/// EINTR and writes everything): a unique new file, a hidden temporary beside its target, and a durable
/// rename. Failures come back as swift-system's `Errno`, so each caller words them in its own terms (a GIF
/// read error, an output error, a batch line).
package enum POSIXFiles {
    /// Who may read a file made by `makeUniqueFile`.
    package enum NewFileAccess: Sendable {
        /// 0600 (what mkstemp gives): a scratch file of this process, such as the stdin spool.
        case ownerOnly
        /// 0666 as the creation mode, so the kernel applies the process's umask as it does to any new
        /// file: an output that becomes the user's file.
        case asNewFile

        var permissions: FilePermissions { self == .ownerOnly ? [.ownerReadWrite] : [.ownerReadWrite, .groupReadWrite, .otherReadWrite] }
    }

    /// Writes all of `bytes` to `fd`: swift-system's `writeAll` (short writes continued, EINTR retried),
    /// with its error typed, since it only ever throws `Errno`.
    package static func writeAll<Bytes: Sequence<UInt8>>(_ fd: FileDescriptor, _ bytes: Bytes) throws(Errno) {
        do {
            try fd.writeAll(bytes)
        } catch let error as Errno {
            throw error
        } catch {
            throw Errno.ioError
        }
    }

    /// Creates a new empty file named `prefix` + six random letters and digits, open for reading and
    /// writing (close-on-exec). O_CREAT|O_EXCL makes the name ours alone (a taken name is retried with
    /// another suffix); the creation mode comes from `access` and the kernel applies the umask to it, so
    /// the process-wide umask is never read or changed (mkstemp plus `umask(0); umask(mask)` raced with
    /// every other thread creating a file).
    package static func makeUniqueFile(
        prefix: String, access: NewFileAccess = .ownerOnly
    ) -> Result<(fd: FileDescriptor, path: String), Errno> {
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<100 {
            let suffix = String((0..<6).map { _ in letters[Int(generator.next(upperBound: UInt(letters.count)))] })
            let path = prefix + suffix
            do {
                let fd = try FileDescriptor.open(
                    FilePath(path), .readWrite, options: [.create, .exclusiveCreate, .closeOnExec],
                    permissions: access.permissions)
                return .success((fd, path))
            } catch let error as Errno where error == .fileExists {
                continue
            } catch let error as Errno {
                return .failure(error)
            } catch {
                return .failure(.ioError)
            }
        }
        return .failure(.fileExists)
    }

    /// A new, empty, private folder (mkdtemp(3), mode 0700): `prefix` followed by six random characters.
    package static func makeUniqueFolder(prefix: String) -> Result<String, Errno> {
        var template = Array((prefix + "XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            return .failure(Errno(rawValue: errno))
        }
        return .success(String(cString: made))
    }

    /// A pipe whose two ends are close-on-exec (pipe(2), then FD_CLOEXEC on each: Glibc's module has no pipe2,
    /// so a caller that spawns children from several threads must spawn from one, or serialise the two).
    package static func closeOnExecPipe() -> Result<(read: Int32, write: Int32), Errno> {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return .failure(Errno(rawValue: errno)) }
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return .success((ends[0], ends[1]))
    }

    /// A hidden temporary file beside `target` (`.NAME.gifx-XXXXXX` in the same folder, so renaming it
    /// over the target is atomic), open for writing, with the permissions a new file gets under the umask.
    package static func makeHiddenTemporary(beside target: String) -> Result<(fd: FileDescriptor, path: String), Errno> {
        let url = URL(fileURLWithPath: target)
        return makeUniqueFile(
            prefix: "\(url.deletingLastPathComponent().path)/.\(url.lastPathComponent).gifx-", access: .asNewFile)
    }

    /// The size in bytes of the file at `path` (stat(2), following links), `nil` when it cannot be read: the
    /// one way every part of gifx reads a file's size (outputs in flight, committed outputs, cache entries).
    package static func fileSize(_ path: String) -> Int? {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : nil
    }

    /// The size in bytes of the open file `fd` (fstat(2)), `nil` when it cannot be read: a file that may have
    /// been renamed or is still being written (a cache entry being sent, a streamed output).
    package static func fileSize(_ fd: FileDescriptor) -> Int? {
        var info = stat()
        return fstat(fd.rawValue, &info) == 0 ? Int(info.st_size) : nil
    }

    /// Puts a file's data on disk (fsync, EINTR retried) before any name points at it, so a crash never
    /// shows a truncated target; `fd` stays open. swift-system has no fsync.
    package static func sync(_ fd: FileDescriptor) {
        while fsync(fd.rawValue) != 0 && errno == EINTR {}
    }

    /// Flushes the file at `temporary` to disk and renames it over `target`; throws rename's errno.
    package static func durableRename(_ temporary: String, to target: String) throws(Errno) {
        if let fd = try? FileDescriptor.open(FilePath(temporary), .readOnly, options: .closeOnExec) {
            sync(fd)
            try? fd.close()
        }
        try rename(temporary, to: target)
    }

    /// rename(2), which swift-system (1.8) does not wrap: replaces `target` atomically.
    package static func rename(_ source: String, to target: String) throws(Errno) {
        guard renameCall(source, target) == 0 else { throw Errno(rawValue: errno) }
    }

    /// link(2), which swift-system (1.8) does not wrap: fails with EEXIST when `target` exists, so a
    /// file that appeared meanwhile is never replaced.
    package static func link(_ source: String, to target: String) throws(Errno) {
        guard linkCall(source, target) == 0 else { throw Errno(rawValue: errno) }
    }
}

// The C calls themselves, outside the enum whose own `rename`/`link` would shadow them.
private func renameCall(_ source: String, _ target: String) -> Int32 { rename(source, target) }
private func linkCall(_ source: String, _ target: String) -> Int32 { link(source, target) }
