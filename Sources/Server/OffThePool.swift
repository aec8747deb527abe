import Foundation

/// Runs `body` on a thread of its own (reading a GIF's structure is blocking file I/O), not on Swift
/// concurrency's cooperative pool.
func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.stackSize = 8 << 20
        thread.start()
    }
}

/// `work`'s result, or `error` once `limit` has passed; then `work` is cancelled and awaited (a cancelled
/// conversion removes its temporaries before it returns), so nothing of it outlives the request.
func withDeadline<Result: Sendable>(
    _ limit: Duration, orThrow error: ServiceError, _ work: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    try await withThrowingTaskGroup(of: Result?.self) { group in
        group.addTask { try await work() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let result = first else { throw error }
        return result
    }
}
