import Dispatch
import GifxEncoders
import Foundation
import GifxFrames
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

private let installedHandlers = Mutex<[any DispatchSourceSignal]>([])

/// The queue SIGINT and SIGTERM are handled on: a serial queue of its own, which libdispatch serves from its
/// overcommitting pool, so a signal is handled at once even while the global queue's threads (one per core) are
/// all busy with the run's own work. On `.global()` the handler could wait for one of them to finish:
/// `signalDuringEncodeRemovesTheTemporary` once saw SIGINT unanswered for 30 s on a loaded 2-core machine.
let signalQueue = DispatchQueue(label: "gifx.signals", qos: .userInteractive)

/// Installs, once, the SIGINT/SIGTERM handlers that remove every temporary output in flight
/// (`TemporaryFiles`) and exit 130 / 143, and ignores SIGXFSZ. Called at start-up of the commands that
/// write files; the library itself never installs signal handlers.
func installCleanupSignalHandlers() {
    installedHandlers.withLock { installed in
        guard installed.isEmpty else { return }
        // A file-size limit (`ulimit -f`) would kill the process with SIGXFSZ mid-write, leaving the
        // temporary file behind; ignored, the write fails with EFBIG and the run ends with 74 and cleanup.
        signal(SIGXFSZ, SIG_IGN)
        // A piped output's reader going away (`gifx ... -o - | head`) would kill the process with SIGPIPE
        // mid-write, leaving temporaries; ignored, the write fails with EPIPE and the run ends quietly with 141.
        signal(SIGPIPE, SIG_IGN)
        for (signalNumber, status) in [(SIGINT, ExitStatus.interrupted), (SIGTERM, ExitStatus.terminated)] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: signalQueue)
            source.setEventHandler {
                TemporaryFiles.shared.removeAll()
                let name = signalNumber == SIGINT ? "interrupted" : "terminated"
                FileHandle.standardError.write(Data("gifx: \(name); removed partial output\n".utf8))
                // --progress json's last line. This handler runs on a dispatch queue (the signal itself is
                // ignored and seen through the dispatch source), not in signal context, so it may lock and format.
                JSONProgress.active.withLock { $0 }?.end(
                    exitCode: status, outputBytes: 0, signal: signalNumber == SIGINT ? "SIGINT" : "SIGTERM")
                _exit(status)
            }
            source.resume()
            installed.append(source)
        }
    }
}
