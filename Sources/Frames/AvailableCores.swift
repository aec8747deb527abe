import Foundation

/// The cores this process may use: the smaller of its CPU affinity mask (`taskset`, a Slurm or Kubernetes
/// cpuset) and its cgroup's CPU quota (v2 `cpu.max`, v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us`, rounded
/// up). Foundation's `activeProcessorCount` reports the machine's online cores on Linux, whatever the mask.
public struct AvailableCores: Sendable, Hashable {
    /// Cores, at least 1.
    public var count: Int
    /// Where the figure came from: `affinity mask`, `cgroup v2 cpu.max`, `cgroup v1 cpu quota`, or `online cores`.
    public var source: String

    public init(count: Int, source: String) {
        self.count = Swift.max(1, count)
        self.source = source
    }

    /// Read once per process (a system call and two small files).
    public static let current: AvailableCores = read()

    static func read() -> AvailableCores {
        var best = AvailableCores(count: ProcessInfo.processInfo.activeProcessorCount, source: "online cores")
        if let mask = affinityCount(), mask < best.count { best = AvailableCores(count: mask, source: "affinity mask") }
        if let (quota, source) = cgroupQuota(), quota < best.count { best = AvailableCores(count: quota, source: source) }
        return best
    }

    /// CPUs in this process's affinity mask (`Cpus_allowed` in /proc/self/status), `nil` when unreadable.
    static func affinityCount() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("Cpus_allowed:") {
            let mask = line.dropFirst("Cpus_allowed:".count).filter(\.isHexDigit)
            let count = mask.reduce(0) { $0 + (Int(String($1), radix: 16) ?? 0).nonzeroBitCount }
            return count > 0 ? count : nil
        }
        return nil
    }

    /// The cgroup CPU quota in whole cores (rounded up), `nil` when there is none.
    static func cgroupQuota() -> (Int, String)? {
        let membership = (try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8)) ?? ""
        for line in membership.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let path = String(fields[2])
            if fields[0] == "0" && fields[1].isEmpty {
                for base in ["/sys/fs/cgroup\(path)", "/sys/fs/cgroup"] {
                    guard let text = try? String(contentsOfFile: "\(base)/cpu.max", encoding: .utf8) else { continue }
                    let parts = text.split(whereSeparator: \.isWhitespace)
                    guard parts.count == 2, let quota = Double(parts[0]), let period = Double(parts[1]), period > 0
                    else { break }  // "max": no quota
                    return (Swift.max(1, Int((quota / period).rounded(.up))), "cgroup v2 cpu.max")
                }
            } else if fields[1].split(separator: ",").contains("cpu") {
                for base in ["/sys/fs/cgroup/cpu\(path)", "/sys/fs/cgroup/cpu,cpuacct\(path)", "/sys/fs/cgroup/cpu"] {
                    guard let quota = number("\(base)/cpu.cfs_quota_us"), let period = number("\(base)/cpu.cfs_period_us")
                    else { continue }
                    guard quota > 0, period > 0 else { break }  // -1: no quota
                    return (Swift.max(1, (quota + period - 1) / period), "cgroup v1 cpu quota")
                }
            }
        }
        return nil
    }

    private static func number(_ path: String) -> Int? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
