import ChildProcesses
import Foundation
import GifxKit

#if canImport(Glibc)
import Glibc
#endif

/// How a finished child ended, read from its wait status, in the terms the report uses.
struct ChildOutcome: Equatable {
    /// The exit status (0...255) of a child that exited, nil if a signal killed it.
    let exitStatus: Int32?
    /// The signal that killed the child, nil if it exited.
    let signal: Int32?

    init(waitStatus status: Int32) {
        let termination = ChildTermination(waitStatus: status)
        exitStatus = termination.exitStatus
        signal = termination.signal
    }

    /// The shell's view: the exit status, or 128 + the signal (what the report's `exitCode` has always said).
    var shellCode: Int32 { exitStatus ?? 128 + (signal ?? 0) }

    /// `SIGKILL`, `SIGSEGV`… for a child killed by a signal.
    var signalName: String? { signal.map(ChildTermination.name(ofSignal:)) }

    /// The sysexits class of an exit status, so a retry can pick e.g. only I/O failures:
    /// `usage` 64, `malformed` 65, `cannot-open` 66, `internal` 70, `cannot-create` 73, `io` 74,
    /// `interrupted` 130/143, `verification-failed` 1 (`-- --verify`), `budget-too-small` 78 (the child's
    /// memory share cannot hold its leanest settings: retrying with the same share would fail again),
    /// `output-closed` 141 (a piped output's reader went away), `other` for anything else.
    static func exitClass(_ status: Int32) -> String {
        switch status {
        case ExitStatus.usage: "usage"
        case ExitStatus.dataError: "malformed"
        case ExitStatus.noInput: "cannot-open"
        case ExitStatus.software: "internal"
        case ExitStatus.cannotCreate: "cannot-create"
        case ExitStatus.ioError: "io"
        case ExitStatus.interrupted, ExitStatus.terminated: "interrupted"
        case ExitStatus.verificationFailed: "verification-failed"
        case ExitStatus.budgetTooSmall: "budget-too-small"
        case ExitStatus.outputClosed: "output-closed"
        default: "other"
        }
    }
}
