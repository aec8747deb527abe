#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One mutex and any number of condition variables that wait on it: the frame ring wakes its consumer on
/// one and the parallel decoder's threads on another, so a frame handed to the consumer wakes no worker and
/// a band drawn wakes no consumer, while every state they share stays under the one lock (`NSCondition`
/// ties each condition to its own mutex).
/// `@unchecked Sendable`: the pthread objects are made for use from many threads, and live as long as this.
final class Monitor: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init() { pthread_mutex_init(mutex, nil) }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    /// A condition variable of this monitor's mutex.
    final class Condition: @unchecked Sendable {
        private let monitor: Monitor
        private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

        init(_ monitor: Monitor) {
            self.monitor = monitor
            pthread_cond_init(condition, nil)
        }

        deinit {
            pthread_cond_destroy(condition)
            condition.deallocate()
        }

        /// Waits for a signal (call holding the monitor's lock; it is held again on return).
        func wait() { pthread_cond_wait(condition, monitor.mutex) }
        func signal() { pthread_cond_signal(condition) }
        func broadcast() { pthread_cond_broadcast(condition) }
    }
}
