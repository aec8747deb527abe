import Foundation
import GifxFrames
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The temporary outputs in flight, so that whoever handles SIGINT/SIGTERM (the CLI, see
/// `installCleanupSignalHandlers`) can remove them and an interrupted run leaves nothing behind.
package final class TemporaryFiles: Sendable {
    package static let shared = TemporaryFiles()

    /// The scratch folder when the run names none (`RunSettings.scratchFolder`): `TMPDIR`, else /tmp.
    package static var environmentFolder: String {
        // getenv(3), not `ProcessInfo.processInfo.environment`, which copies the whole environment on each call.
        getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    }

    private let paths = Mutex<Set<String>>([])

    /// Adds a file to remove if the process is interrupted.
    package func register(_ path: String) { paths.withLock { _ = $0.insert(path) } }
    /// Forgets a file that was committed or removed.
    package func unregister(_ path: String) { paths.withLock { _ = $0.remove(path) } }

    /// The files registered now (the CLI's JSON progress sums their sizes as the bytes written so far).
    package var registeredPaths: [String] { paths.withLock { Array($0) } }

    /// Unlinks every registered temporary file.
    package func removeAll() {
        let all = paths.withLock { paths in
            defer { paths.removeAll() }
            return paths
        }
        for path in all { unlink(path) }
    }
}
