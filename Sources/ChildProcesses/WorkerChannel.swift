import CProcess
import Foundation
import GifxPOSIXFiles
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// A worker's side of its pool: jobs come in as lines on one pipe, answers go out as lines on the other.
package struct WorkerChannel {
    private var jobs: LineReader
    private let answers: FileDescriptor

    /// In a process a `WorkerPool` started as a worker of `role`: sets the process up and returns its channel; in
    /// any other process nil, at once (one getenv). The setup, in this order:
    /// - the role's variables leave the environment, so nothing a job starts takes itself for a worker;
    /// - the parent-death signal (`WorkerRole.parentDeathSignal`), and an exit as if it had come when the pool has
    ///   already ended;
    /// - the role's memory limit (`DataMemoryLimit`), before any allocation of note;
    /// - the two pipes move off descriptors 0 and 1 (close-on-exec, so nothing a job starts holds them open, and
    ///   the pool's read of the answers ends exactly when this process does); standard input becomes /dev/null and
    ///   standard output goes where standard error goes (what the pool gave it: /dev/null for batch, the
    ///   service's for serve). A job may point standard output and error elsewhere for its run.
    package static func adopt(_ role: WorkerRole) -> WorkerChannel? {
        guard value(role.variable) == "1" else { return nil }
        let parent = value(role.parentVariable).flatMap { pid_t($0) }
        let memoryLimit = role.memoryLimitVariable.flatMap(value).flatMap { rlim_t($0) }
        for variable in role.variables { unsetenv(variable) }
        if let parent {
            _ = gifx_set_parent_death_signal(role.parentDeathSignal)
            // The pool may have ended between the spawn and the prctl: nobody waits for this worker then.
            if getppid() != parent { _exit(128 + role.parentDeathSignal) }
        }
        if let memoryLimit { _ = DataMemoryLimit.lower(to: memoryLimit) }
        let jobs = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3)
        let answers = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3)
        // EX_SOFTWARE, gifx's internal error: the pool reports the job it sends from this exit status.
        guard jobs >= 0, answers >= 0 else { exit(70) }
        let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
        if null >= 0 {
            dup2(null, STDIN_FILENO)
            close(null)
        }
        dup2(STDERR_FILENO, STDOUT_FILENO)
        return WorkerChannel(jobs: LineReader(fd: jobs), answers: FileDescriptor(rawValue: answers))
    }

    /// The next job's line, without its newline; nil when the pool has closed its end (the worker then exits 0).
    package mutating func nextJob() -> Data? { jobs.next() }

    /// Sends one answer (`line` and a newline); false when the pool is gone.
    package func answer(_ line: Data) -> Bool {
        var bytes = line
        bytes.append(UInt8(ascii: "\n"))
        return (try? POSIXFiles.writeAll(answers, bytes)) != nil
    }

    /// One variable of this process's environment, read with getenv(3), not through
    /// `ProcessInfo.processInfo.environment`, which copies the whole environment on every call (every `gifx` run
    /// makes these checks first thing).
    private static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}

/// Newline-separated lines from a descriptor, read in blocks (a pipe may deliver part of a line, or several): the
/// pool's line protocol, read by the workers (jobs) and by the pool (answers).
package struct LineReader {
    package let fd: Int32
    private var buffer: [UInt8] = []
    private var ended = false

    package init(fd: Int32) { self.fd = fd }

    /// The next line without its newline; nil at end of input (a last line without a newline is returned first).
    package mutating func next() -> Data? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Data(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return line
            }
            if ended {
                guard !buffer.isEmpty else { return nil }
                defer { buffer.removeAll() }
                return Data(buffer)
            }
            if !fill() { ended = true }
        }
    }

    /// Lines already buffered or readable now without blocking, for a descriptor `poll` said is readable;
    /// `ended` says whether the writer has closed its end.
    package mutating func drain() -> (lines: [Data], ended: Bool) {
        _ = fill()
        var lines: [Data] = []
        while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(Data(buffer[..<newline]))
            buffer.removeSubrange(...newline)
        }
        return (lines, ended)
    }

    /// One read(2); false at end of input or on an error other than EINTR.
    private mutating func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                buffer.append(contentsOf: chunk[..<count])
                return true
            }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN { return true }
            ended = true
            return false
        }
    }
}

/// This process's soft RLIMIT_DATA, the one memory limit gifx sets on itself: `gifx batch --max-memory` for each
/// worker's whole process (`WorkerRole.batch`) and the service's memory grant for each job of a worker
/// (`MemoryGrant`).
///
/// RLIMIT_DATA rather than RLIMIT_AS: since Linux 4.7 it counts the private writable mappings (heap, anonymous
/// mmap, thread stacks), i.e. what the conversion really uses, while RLIMIT_AS also counts glibc's per-thread
/// malloc arenas (64 MiB of PROT_NONE reserve each) and the libraries' mapped code, which x264's threads multiply
/// without using (measured in docs/reliability.md).
package enum DataMemoryLimit {
    static let resource = __rlimit_resource_t(RLIMIT_DATA.rawValue)

    /// Sets the soft limit to `bytes` (at most the hard limit); returns the limit it replaced, nil when the kernel
    /// refused either call.
    package static func lower(to bytes: rlim_t) -> rlimit? {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return nil }
        var lowered = limit
        lowered.rlim_cur = min(bytes, limit.rlim_max)
        return setrlimit(resource, &lowered) == 0 ? limit : nil
    }

    /// Puts back a limit `lower(to:)` returned.
    package static func restore(_ previous: rlimit) {
        var limit = previous
        setrlimit(resource, &limit)
    }
}

/// The words an allocation failure leaves on a worker's stderr or in a job's error under a memory limit: the Swift
/// runtime's own fatal message ("Could not allocate memory"), strerror(ENOMEM) from libav/libc ("Cannot allocate
/// memory"), x264's log ("malloc of size 736579520 failed", seen on a 12000x12000 canvas under 512M), the dynamic
/// loader's ("failed to map segment from shared object", when libav cannot even be loaded), giflib's
/// D_GIF_ERR_NOT_ENOUGH_MEM ("Failed to allocate required memory") and gifx's own "out of memory".
package enum AllocationFailure {
    static let phrases = [
        "could not allocate memory", "cannot allocate memory", "failed to allocate", "out of memory",
        "not enough memory", "malloc of size", "failed to map segment",
    ]

    package static func isMentioned(in text: String) -> Bool {
        let lowered = text.lowercased()
        return phrases.contains { lowered.contains($0) }
    }
}
