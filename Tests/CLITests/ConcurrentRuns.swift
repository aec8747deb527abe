import Foundation

extension Array where Element: Sendable {
    /// `map` with every element on a thread of its own, all started at once (`concurrentPerform` runs
    /// only as many as there are cores): for runs of gifx that must compete for the CPUs. Rethrows the
    /// first error, after every thread has ended.
    func concurrentMap<T: Sendable>(_ transform: @escaping @Sendable (Element) throws -> T) throws -> [T] {
        let results = LockedResults<T>(count: count)
        let group = DispatchGroup()
        for (index, element) in enumerated() {
            group.enter()
            Thread.detachNewThread {
                results.set(index, Result { try transform(element) })
                group.leave()
            }
        }
        group.wait()
        return try results.values().map { try $0.get() }
    }
}

private final class LockedResults<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [Result<T, any Error>?]
    init(count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ index: Int, _ result: Result<T, any Error>) { lock.withLock { slots[index] = result } }
    func values() -> [Result<T, any Error>] { lock.withLock { slots.map { $0! } } }
}

/// Threads that spin until `stop()`, keeping cores busy so the processes under test wait for them.
final class BusyThreads: @unchecked Sendable {
    private let lock = NSLock()
    private var running = true
    private let group = DispatchGroup()

    init(count: Int) {
        for _ in 0..<count {
            group.enter()
            Thread.detachNewThread { [self] in
                var sink = 0
                while isRunning {
                    for step in 0..<100_000 { sink = sink &* 31 &+ step }
                }
                blackHole(sink)
                group.leave()
            }
        }
    }

    private var isRunning: Bool { lock.withLock { running } }

    func stop() {
        lock.withLock { running = false }
        group.wait()
    }
}

@inline(never) private func blackHole(_ value: Int) { withExtendedLifetime(value) {} }

/// A file's size in bytes, 0 when it is missing.
func fileSize(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
}

/// How many entries the top-level `frames` array of a JSON file has (a sprite sheet's or a
/// timeline's), nil when the file is missing or is not such JSON.
func jsonFrameCount(_ path: String) -> Int? {
    guard let data = FileManager.default.contents(atPath: path),
          let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
    return (object["frames"] as? [Any])?.count
}
