import CProcess
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM, routed to one thread of gifx's own: a sigaction handler (in the C shim) writes the signal's
/// number into a pipe, whichever thread the kernel picks, and this thread reads it and runs the handler installed
/// last. Dispatch signal sources were used before: on Linux they read a signalfd, which only sees a signal that every
/// thread blocks, while `signal(SIGINT, SIG_IGN)` made the kernel drop one delivered to any thread that did not:
/// `signalDuringEncodeRemovesTheTemporary` saw to-mp4 ignore SIGINT for 30 s in 2 of 4 full `make test` runs.
/// With the handler in place the signal always arrives; before `install`, the default actions apply.
enum SignalRoute {
    private static let handler = Mutex<(@Sendable (Int32) -> Void)?>(nil)
    private static let routed = Mutex(false)

    /// Routes SIGINT and SIGTERM to `handle` (replacing any earlier handler), run on the route's thread.
    static func install(_ handle: @escaping @Sendable (Int32) -> Void) {
        handler.withLock { $0 = handle }
        let first = routed.withLock { routed -> Bool in
            defer { routed = true }
            return !routed
        }
        guard first else { return }
        let signals: [Int32] = [SIGINT, SIGTERM]
        let fd = signals.withUnsafeBufferPointer { gifx_route_signals_to_pipe($0.baseAddress, Int32($0.count)) }
        // No pipe (out of descriptors at start-up): the default actions stay, as before any handler.
        guard fd >= 0 else { return }
        let thread = Thread {
            var byte: UInt8 = 0
            while true {
                let count = read(fd, &byte, 1)
                if count < 0 && errno == EINTR { continue }
                guard count == 1 else { return }
                handler.withLock { $0 }?(Int32(byte))
            }
        }
        thread.name = "gifx signals"
        thread.start()
    }
}
