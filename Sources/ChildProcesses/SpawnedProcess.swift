import Foundation
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// Where a child's standard input, output or error goes.
package enum StandardStream: Sendable {
    /// /dev/null.
    case null
    /// A file: read for standard input; for output created if missing and truncated, with `fileMode`.
    case file(String)
    /// An open descriptor of this process, such as a pipe's end (dup2'd onto the stream).
    case descriptor(FileDescriptor)
    /// This process's own stream.
    case inherited
}

/// One child process, started with posix_spawn and reaped with wait4: the only copy of that plumbing,
/// used by `gifx batch` for its conversions and by the tests for every program they run.
///
/// Ours rather than swift-subprocess (1.0.2, evaluated for issue 28): its API is async only, while the
/// batch's scheduler and most tests are synchronous; it reaps each child itself (waitid, on its own
/// monitor thread), so neither the child's rusage (peak RSS, which the memory tests measure per process)
/// nor the batch's wait-for-any-child loop is available; and on Linux it has no pre-spawn hook. What it
/// does cover (signal reset, process groups, a teardown sequence on cancellation) is a few lines here.
package struct SpawnedProcess: Sendable, Hashable {
    /// The signals whose disposition a child gets back as default, with an empty signal mask: a parent
    /// that ignores SIGINT/SIGTERM (the batch forwards them itself) or SIGPIPE (the Swift runtime's
    /// Foundation) must not pass "ignore" on, or the child could not be stopped, or would not die on a
    /// closed pipe.
    package static let signalsReset: [Int32] = [SIGINT, SIGTERM, SIGPIPE, SIGHUP, SIGQUIT]

    package let pid: pid_t

    package init(pid: pid_t) { self.pid = pid }

    /// Starts `executable arguments…` (no PATH search) with `environment` (nil: this process's own),
    /// its three standard streams redirected as given (files created with `fileMode`), the signals of
    /// `signalsReset` at their default action and no signal blocked.
    package static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        stdin: StandardStream = .null, stdout: StandardStream = .null, stderr: StandardStream = .null,
        fileMode: mode_t = 0o644
    ) throws(Errno) -> SpawnedProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, stream) in [(Int32(0), stdin), (1, stdout), (2, stderr)] {
            switch stream {
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .file(let path):
                let flags = target == 0 ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC
                posix_spawn_file_actions_addopen(&actions, target, path, flags, fileMode)
            case .descriptor(let fd):
                posix_spawn_file_actions_adddup2(&actions, fd.rawValue, target)
            case .inherited:
                break
            }
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in signalsReset { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else { throw Errno(rawValue: result) }
        return SpawnedProcess(pid: pid)
    }

    /// Sends `signal`; false if it could not be sent (the child is already reaped).
    @discardableResult
    package func send(_ signal: Int32) -> Bool { kill(pid, signal) == 0 }

    /// Reaps the child once it has ended, or returns nil when `deadline` passes first (it runs on).
    /// Without a deadline it sleeps in wait4; with one it polls every millisecond. Throws wait4's errno
    /// (ECHILD: not a child of this process, or already reaped).
    package func wait(until deadline: Date? = nil) throws(Errno) -> ChildTermination? {
        var status: Int32 = 0
        var usage = rusage()
        while true {
            let reaped = wait4(pid, &status, deadline == nil ? 0 : WNOHANG, &usage)
            if reaped == pid { return ChildTermination(waitStatus: status, peakRSSBytes: usage.ru_maxrss * 1024) }
            if reaped < 0 {
                if errno == EINTR { continue }
                throw Errno(rawValue: errno)
            }
            if let deadline {
                if Date() >= deadline { return nil }
                usleep(1_000)
            }
        }
    }

    /// Waits until the child ends, killing it with SIGKILL once `deadline` passes; `timedOut` says so.
    package func waitKilling(after deadline: Date) throws(Errno) -> (termination: ChildTermination, timedOut: Bool) {
        if let ended = try wait(until: deadline) { return (ended, false) }
        send(SIGKILL)
        return (try wait()!, true)
    }
}

/// How a reaped child ended, from its wait status.
package struct ChildTermination: Sendable, Equatable {
    /// The raw wait status.
    package let waitStatus: Int32
    /// The child's peak resident set size (wait4's ru_maxrss), 0 when not measured.
    package let peakRSSBytes: Int

    package init(waitStatus: Int32, peakRSSBytes: Int = 0) {
        self.waitStatus = waitStatus
        self.peakRSSBytes = peakRSSBytes
    }

    /// The exit status (0...255) of a child that exited, nil if a signal killed it.
    package var exitStatus: Int32? { waitStatus & 0x7F == 0 ? (waitStatus >> 8) & 0xFF : nil }
    /// The signal that killed the child, nil if it exited.
    package var signal: Int32? { waitStatus & 0x7F == 0 ? nil : waitStatus & 0x7F }
    /// The shell's view: the exit status, or 128 + the signal.
    package var shellStatus: Int32 { exitStatus ?? 128 + (signal ?? 0) }

    /// The signal's conventional name (`SIGKILL`), or `SIG<n>` for one without a name here.
    package static func name(ofSignal number: Int32) -> String {
        let names: [Int32: String] = [
            SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP",
            SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGUSR1: "SIGUSR1",
            SIGSEGV: "SIGSEGV", SIGUSR2: "SIGUSR2", SIGPIPE: "SIGPIPE", SIGALRM: "SIGALRM", SIGTERM: "SIGTERM",
            SIGCHLD: "SIGCHLD", SIGCONT: "SIGCONT", SIGSTOP: "SIGSTOP", SIGTSTP: "SIGTSTP", SIGTTIN: "SIGTTIN",
            SIGTTOU: "SIGTTOU", SIGURG: "SIGURG", SIGXCPU: "SIGXCPU", SIGXFSZ: "SIGXFSZ", SIGVTALRM: "SIGVTALRM",
            SIGPROF: "SIGPROF", SIGWINCH: "SIGWINCH", SIGIO: "SIGIO", SIGSYS: "SIGSYS",
        ]
        return names[number] ?? "SIG\(number)"
    }
}
