import Foundation
import GifxKit
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Installs, once, the SIGINT/SIGTERM handling that removes every temporary output in flight
/// (`TemporaryFiles`) and exits 130 / 143 (through `SignalRoute`), and ignores SIGXFSZ and SIGPIPE. Called at
/// start-up of the commands that write files; the library itself never installs signal handlers.
func installCleanupSignalHandlers() {
    // A file-size limit (`ulimit -f`) would kill the process with SIGXFSZ mid-write, leaving the
    // temporary file behind; ignored, the write fails with EFBIG and the run ends with 74 and cleanup.
    signal(SIGXFSZ, SIG_IGN)
    // A piped output's reader going away (`gifx ... -o - | head`) would kill the process with SIGPIPE
    // mid-write, leaving temporaries; ignored, the write fails with EPIPE and the run ends quietly with 141.
    signal(SIGPIPE, SIG_IGN)
    SignalRoute.install { signalNumber in
        let status = signalNumber == SIGINT ? ExitStatus.interrupted : ExitStatus.terminated
        TemporaryFiles.shared.removeAll()
        let name = signalNumber == SIGINT ? "interrupted" : "terminated"
        FileHandle.standardError.write(Data("gifx: \(name); removed partial output\n".utf8))
        // --progress json's last line. This runs on the route's own thread, not in signal context, so it may
        // lock and format.
        JSONProgress.active.withLock { $0 }?.end(
            exitCode: status, outputBytes: 0, signal: signalNumber == SIGINT ? "SIGINT" : "SIGTERM")
        _exit(status)
    }
}
