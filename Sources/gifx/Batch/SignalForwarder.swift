import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// SIGINT/SIGTERM for a batch: the signal is passed on to every running child (each removes its
/// own temporary output and exits 130/143), no new child starts, and the batch ends once they are gone.
/// Starting a child and forwarding a signal hold the same lock, so no child can start unsignalled.
final class SignalForwarder: Sendable {
    private struct State {
        var stopping: Int32?
        var children: Set<pid_t> = []
    }

    private let state = Mutex(State())

    /// The signal that stopped the batch, if one did.
    var stoppingSignal: Int32? { state.withLock { $0.stopping } }

    func install() {
        SignalRoute.install { [self] number in forward(number) }
    }

    private func forward(_ number: Int32) {
        state.withLock { state in
            if state.stopping == nil { state.stopping = number }
            for pid in state.children { kill(pid, number) }
        }
    }

    /// Runs `start` (a posix_spawn) unless the batch is stopping; nil when it is.
    func startChild(_ start: () throws -> pid_t) -> Result<pid_t, any Error>? {
        state.withLock { state in
            guard state.stopping == nil else { return nil }
            let result = Result { try start() }
            if case .success(let pid) = result { state.children.insert(pid) }
            return result
        }
    }

    /// Sends `number` to one running child (a `--timeout`); false if it has already been reaped.
    @discardableResult
    func signalChild(_ pid: pid_t, _ number: Int32) -> Bool {
        state.withLock { state in
            guard state.children.contains(pid) else { return false }
            return kill(pid, number) == 0
        }
    }

    /// Reaps `pid`, a child whose end the caller has seen (its pipe's end-of-file), waiting for it to
    /// finish exiting; its wait status. Under the lock, so a signal is never sent to a reaped (possibly
    /// reused) pid.
    func reap(_ pid: pid_t) -> Int32 {
        state.withLock { state in
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            state.children.remove(pid)
            return status
        }
    }
}
