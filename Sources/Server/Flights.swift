import Foundation

/// Identical requests in flight share one conversion (single flight). A flight is cancelled when every
/// request waiting on it has gone (cancelled at the end of the grace period, say). A detached flight (a
/// streamed conversion) is never cancelled by its waiters: it runs on into the cache when its client goes, until
/// `finishDetached` cancels it at the end of the grace period.
actor Flights {
    private struct Flight {
        var task: Task<CachedObject, any Error>
        var waiters: Int
        var detached: Bool
    }
    private var flights: [String: Flight] = [:]

    func run(
        _ key: String, cache: ObjectCache, onShared: @Sendable () -> Void,
        _ make: @escaping @Sendable () async throws -> CachedObject
    ) async throws -> CachedObject {
        let task: Task<CachedObject, any Error>
        if let flight = flights[key] {
            flights[key]!.waiters += 1
            task = flight.task
            onShared()
        } else if let hit = cache.lookup(key) {
            return hit
        } else {
            task = Task { try await make() }
            flights[key] = Flight(task: task, waiters: 1, detached: false)
        }
        defer { leave(key, task) }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            Task { await self.abandon(key, task) }
        }
    }

    /// Starts `make` as the detached flight for `key`; false (nothing started) when a flight for `key` runs
    /// already or the cache holds it: then `run` waits for that one, or serves the entry.
    func startDetached(_ key: String, cache: ObjectCache, _ make: @escaping @Sendable () async throws -> CachedObject) -> Bool {
        guard flights[key] == nil, !cache.contains(key) else { return false }
        let task = Task { try await make() }
        flights[key] = Flight(task: task, waiters: 0, detached: true)
        Task {
            _ = await task.result
            self.ended(key, task)
        }
        return true
    }

    /// Waits for every detached flight to end; cancelled (the grace period is over), cancels them first.
    func finishDetached() async {
        let tasks = flights.values.filter(\.detached).map(\.task)
        await withTaskCancellationHandler {
            for task in tasks { _ = await task.result }
        } onCancel: {
            for task in tasks { task.cancel() }
        }
    }

    private func ended(_ key: String, _ task: Task<CachedObject, any Error>) {
        guard let flight = flights[key], flight.task == task else { return }
        flights[key] = nil
    }

    private func leave(_ key: String, _ task: Task<CachedObject, any Error>) {
        guard let flight = flights[key], flight.task == task else { return }
        // A detached flight ends by itself (`ended`); a shared one with its last waiter.
        if !flight.detached && flight.waiters <= 1 { flights[key] = nil } else { flights[key]!.waiters -= 1 }
    }

    /// A waiter was cancelled: when nobody else waits, the conversion stops (never a detached one).
    private func abandon(_ key: String, _ task: Task<CachedObject, any Error>) {
        guard let flight = flights[key], flight.task == task else { task.cancel(); return }
        if !flight.detached && flight.waiters <= 1 { task.cancel() }
    }
}
