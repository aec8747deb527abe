import Dispatch
import Foundation
import Frames
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The temporary outputs in flight, removed when SIGINT or SIGTERM stops the process
/// so an interrupted run leaves nothing behind (exit 130 / 143).
public final class TemporaryFiles: Sendable {
    public static let shared = TemporaryFiles()

    private let paths = Mutex<Set<String>>([])
    private let handlers = Mutex<[any DispatchSourceSignal]>([])

    /// Adds a file to remove if the process is interrupted.
    public func register(_ path: String) { paths.withLock { _ = $0.insert(path) } }
    /// Forgets a file that was committed or removed.
    public func unregister(_ path: String) { paths.withLock { _ = $0.remove(path) } }

    /// Installs the SIGINT/SIGTERM handlers (and ignores SIGXFSZ) once; call at start-up of commands that
    /// write files.
    public func installSignalHandlers() {
        handlers.withLock { installed in
            guard installed.isEmpty else { return }
            // A file-size limit (`ulimit -f`) would kill the process with SIGXFSZ mid-write, leaving the
            // temporary file behind; ignored, the write fails with EFBIG and the run ends with 74 and cleanup.
            signal(SIGXFSZ, SIG_IGN)
            for (signalNumber, status) in [(SIGINT, ExitStatus.interrupted), (SIGTERM, ExitStatus.terminated)] {
                signal(signalNumber, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
                source.setEventHandler { [self] in
                    removeAll()
                    let name = signalNumber == SIGINT ? "interrupted" : "terminated"
                    FileHandle.standardError.write(Data("gifx: \(name); removed partial output\n".utf8))
                    _exit(status)
                }
                source.resume()
                installed.append(source)
            }
        }
    }

    /// Unlinks every registered temporary file.
    public func removeAll() {
        let all = paths.withLock { paths in
            defer { paths.removeAll() }
            return paths
        }
        for path in all { unlink(path) }
    }
}
