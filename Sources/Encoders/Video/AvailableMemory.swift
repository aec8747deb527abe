import Foundation

/// How much memory this process can still use, read from the system: the cgroup limit (v2 `memory.max`
/// minus `memory.current`, or v1 `memory.limit_in_bytes` minus `memory.usage_in_bytes`, for this process's
/// own cgroup) and `MemAvailable` from /proc/meminfo, whichever is smaller. It decides whether libx264's
/// low-memory settings are needed when no memory budget is given.
public struct AvailableMemory: Sendable, Hashable {
    /// Bytes available, `nil` when nothing could be read (then no low-memory settings are imposed).
    public var bytes: Int?
    /// Where the figure came from: `cgroup v2 limit`, `cgroup v1 limit`, `MemAvailable`, or `unknown`.
    public var source: String

    public init(bytes: Int?, source: String) {
        self.bytes = bytes
        self.source = source
    }

    /// Reads the figures of the running system (a few small files; about 0.1 ms).
    public static func current() -> AvailableMemory {
        var best: (Int, String)?
        func consider(_ value: Int?, _ source: String) {
            guard let value, value > 0 else { return }
            if best == nil || value < best!.0 { best = (value, source) }
        }
        let cgroup = cgroupRemaining()
        consider(cgroup?.bytes, cgroup?.source ?? "")
        consider(memAvailable(), "MemAvailable")
        return AvailableMemory(bytes: best?.0, source: best?.1 ?? "unknown")
    }

    /// Limit minus usage of this process's memory cgroup, `nil` when unlimited or unreadable.
    static func cgroupRemaining() -> (bytes: Int, source: String)? {
        let membership = (try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8)) ?? ""
        for line in membership.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let path = String(fields[2])
            if fields[0] == "0" && fields[1].isEmpty {  // v2 unified
                if let limit = number("/sys/fs/cgroup\(path)/memory.max") ?? number("/sys/fs/cgroup/memory.max") {
                    let used = number("/sys/fs/cgroup\(path)/memory.current") ?? number("/sys/fs/cgroup/memory.current") ?? 0
                    return (limit - used, "cgroup v2 limit")
                }
            } else if fields[1].split(separator: ",").contains("memory") {  // v1
                for base in ["/sys/fs/cgroup/memory\(path)", "/sys/fs/cgroup/memory"] {
                    guard let limit = number("\(base)/memory.limit_in_bytes") else { continue }
                    // v1 reports "no limit" as a huge page-aligned number.
                    guard limit < 1 << 60 else { return nil }
                    return (limit - (number("\(base)/memory.usage_in_bytes") ?? 0), "cgroup v1 limit")
                }
            }
        }
        return nil
    }

    /// `MemAvailable` in bytes.
    static func memAvailable() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("MemAvailable:") {
            let kilobytes = line.split(separator: " ").compactMap { Int($0) }.first
            return kilobytes.map { $0 * 1024 }
        }
        return nil
    }

    /// A file holding one integer (`max` and unreadable files are `nil`).
    private static func number(_ path: String) -> Int? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
