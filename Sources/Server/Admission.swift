import Foundation

/// Admission by the memory plan: one budget and a number of conversion slots for the whole service. A
/// request asks with its conversion's smallest budget (`ConversionDemand.smallestBudget(threads: 1)`, planned
/// once from the GIF's header); it runs when a slot and that much memory are free, else waits in a bounded FIFO queue until
/// its deadline. The queue full or the deadline passed: 503. More than the whole budget: 413.
///
/// A conversion is granted its smallest budget or, when more is free, up to a fair share
/// (budget / slots); that grant is the conversion's own `--memory-budget`, so no conversion ever plans
/// against the whole machine, and the grants never add up to more than the budget.
///
/// Threads are shared by demand: a conversion gets the service's threads divided by the requests in the
/// service when it is admitted (those running, those waiting, and itself), at most the threads still free
/// and at least one. A lone request gets every core (its latency); under load each conversion gets one
/// thread (one conversion per core is the most conversions a second: docs/serve.md, "Sizing").
actor Admission {
    struct Grant: Sendable {
        var bytes: Int
        /// The conversion's threads (`RunSettings.threads`), at least 1.
        var threads: Int
    }

    private struct Waiter {
        var id: UInt64
        var smallest: Int
        var continuation: CheckedContinuation<Grant, any Error>
    }

    let budget: Int
    let slots: Int
    let threads: Int
    let queueLength: Int
    let queueTimeout: Duration
    private(set) var free: Int
    private(set) var freeThreads: Int
    private(set) var running = 0
    private var waiters: [Waiter] = []
    private var nextID: UInt64 = 0
    private(set) var draining = false

    init(budget: Int, slots: Int, threads: Int, queueLength: Int, queueTimeout: Duration) {
        self.budget = budget; self.slots = slots; self.queueLength = queueLength; self.queueTimeout = queueTimeout
        self.threads = max(1, threads)
        free = budget
        freeThreads = self.threads
    }

    var waiting: Int { waiters.count }
    /// A new request would be refused with `queue_full` (with nobody waiting, only when no slot is free).
    var queueIsFull: Bool { waiters.count >= queueLength && (!waiters.isEmpty || !canAdmit(smallest: 1)) }

    private var retryAfter: Int { max(1, Int(queueTimeout.components.seconds)) }

    /// Waits for a grant of at least `smallest` bytes; throws `ServiceError` (413 over the budget, 503 queue
    /// full or deadline passed, 503 while draining) or `CancellationError`.
    func acquire(smallest: Int) async throws -> Grant {
        if smallest > budget { throw ServiceError.overBudget(smallest: smallest, budget: budget) }
        if draining { throw ServiceError.draining() }
        if waiters.isEmpty && canAdmit(smallest: smallest) { return admit(smallest: smallest) }
        if waiters.count >= queueLength { throw ServiceError.queueFull(retryAfter: retryAfter) }
        nextID += 1
        let id = nextID
        let timeout = queueTimeout
        let timer = Task { [weak self] in
            try await Task.sleep(for: timeout)
            await self?.expire(id)
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiters.append(Waiter(id: id, smallest: smallest, continuation: continuation))
            }
        } onCancel: {
            Task { await self.remove(id, with: CancellationError()) }
        }
    }

    /// Gives a grant back and admits whoever now fits, in order.
    func release(_ grant: Grant) {
        free += grant.bytes
        freeThreads += grant.threads
        running -= 1
        admitWaiting()
    }

    /// Graceful shutdown: nobody new is admitted; those waiting get 503.
    func drain() {
        draining = true
        let all = waiters
        waiters.removeAll()
        for waiter in all { waiter.continuation.resume(throwing: ServiceError.draining()) }
    }

    private func canAdmit(smallest: Int) -> Bool { running < slots && free >= smallest }

    private func admit(smallest: Int) -> Grant {
        let share = max(smallest, min(free, budget / slots))
        // The requests in the service now: those running, those still waiting, and this one.
        let demand = running + waiters.count + 1
        let threadShare = max(1, min(threads / demand, freeThreads))
        free -= share
        freeThreads -= threadShare
        running += 1
        return Grant(bytes: share, threads: threadShare)
    }

    private func admitWaiting() {
        while let first = waiters.first, canAdmit(smallest: first.smallest) {
            waiters.removeFirst()
            first.continuation.resume(returning: admit(smallest: first.smallest))
        }
    }

    private func expire(_ id: UInt64) {
        remove(id, with: ServiceError.queueTimeout(retryAfter: retryAfter))
    }

    private func remove(_ id: UInt64, with error: any Error) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        let waiter = waiters.remove(at: index)
        waiter.continuation.resume(throwing: error)
        // The head may have been blocking smaller requests behind it.
        admitWaiting()
    }
}
