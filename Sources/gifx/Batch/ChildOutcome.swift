import ChildProcesses
import Foundation
import GifxFrames

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

/// The words an allocation failure leaves on a child's stderr under `--max-memory`: the Swift runtime's
/// own fatal message ("Could not allocate memory"), strerror(ENOMEM) from libav/libc ("Cannot allocate
/// memory"), x264's log ("malloc of size 736579520 failed", seen on a 12000x12000 canvas under 512M),
/// the dynamic loader's ("failed to map segment from shared object", when libav cannot even be loaded),
/// giflib's D_GIF_ERR_NOT_ENOUGH_MEM ("Failed to allocate required memory") and gifx's own "out of memory".
enum AllocationFailure {
    static let phrases = [
        "could not allocate memory", "cannot allocate memory", "failed to allocate", "out of memory",
        "not enough memory", "malloc of size", "failed to map segment",
    ]

    static func isMentioned(in text: String) -> Bool {
        let lowered = text.lowercased()
        return phrases.contains { lowered.contains($0) }
    }
}
