import Foundation

/// What this process may use of the machine, read from the kernel in one place: its cgroup (v1 or v2), its
/// CPU affinity mask and /proc/meminfo. `AvailableCores` (the default thread count) and `AvailableMemory`
/// (the memory budget of a run given none) are both read through it, so the cgroup is parsed once, one way.
///
/// `procFolder` and `cgroupFolder` are the kernel's folders (/proc, /sys/fs/cgroup); tests give fake ones.
package struct SystemResources: Sendable {
    package var procFolder = "/proc"
    package var cgroupFolder = "/sys/fs/cgroup"

    package init(procFolder: String = "/proc", cgroupFolder: String = "/sys/fs/cgroup") {
        self.procFolder = procFolder
        self.cgroupFolder = cgroupFolder
    }

    /// One line of /proc/self/cgroup: `hierarchy-ID:controller-list:path` (v2: `0::path`).
    package struct CgroupLine: Sendable, Hashable {
        package var isUnified: Bool
        package var controllers: [String]
        package var path: String
    }

    /// This process's cgroups, in the kernel's order (empty when unreadable).
    package func cgroupLines() -> [CgroupLine] {
        let text = (try? String(contentsOfFile: "\(procFolder)/self/cgroup", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { return nil }
            return CgroupLine(
                isUnified: fields[0] == "0" && fields[1].isEmpty,
                controllers: fields[1].split(separator: ",").map(String.init), path: String(fields[2]))
        }
    }

    /// The folders to look in for a cgroup line's files: its own cgroup first, then the hierarchy's root (the
    /// view from inside a container's cgroup namespace). v1 tries each of the controller's mount names.
    package func folders(of line: CgroupLine, v1Mounts: [String] = []) -> [String] {
        if line.isUnified { return ["\(cgroupFolder)\(line.path)", cgroupFolder] }
        return v1Mounts.map { "\(cgroupFolder)/\($0)\(line.path)" } + v1Mounts.prefix(1).map { "\(cgroupFolder)/\($0)" }
    }

    /// The first line, in the kernel's order, for which `read` finds a figure; `read` returns `.none` to look
    /// further, `.some(nil)` to stop with no figure (an explicit "no limit").
    package func firstCgroupFigure<Figure>(_ read: (CgroupLine) -> Figure??) -> Figure? {
        for line in cgroupLines() {
            if let found = read(line) { return found }
        }
        return nil
    }

    /// The contents of a file holding one integer (`max` and unreadable files are `nil`).
    package func number(_ path: String) -> Int? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    // MARK: Cores

    /// CPUs in this process's affinity mask (`Cpus_allowed` in /proc/self/status), `nil` when unreadable.
    package func affinityCount() -> Int? {
        guard let mask = field("Cpus_allowed", in: "self/status")?.filter(\.isHexDigit) else { return nil }
        let count = mask.reduce(0) { $0 + (Int(String($1), radix: 16) ?? 0).nonzeroBitCount }
        return count > 0 ? count : nil
    }

    /// The cgroup CPU quota in whole cores (rounded up), `nil` when there is none.
    package func cgroupCPUQuota() -> (cores: Int, source: String)? {
        firstCgroupFigure { line -> (cores: Int, source: String)?? in
            if line.isUnified {
                for folder in folders(of: line) {
                    guard let text = try? String(contentsOfFile: "\(folder)/cpu.max", encoding: .utf8) else { continue }
                    let parts = text.split(whereSeparator: \.isWhitespace)
                    guard parts.count == 2, let quota = Double(parts[0]), let period = Double(parts[1]), period > 0
                    else { return .none }  // "max": no quota here; look at the next line
                    return .some((Swift.max(1, Int((quota / period).rounded(.up))), "cgroup v2 cpu.max"))
                }
            } else if line.controllers.contains("cpu") {
                for folder in folders(of: line, v1Mounts: ["cpu", "cpu,cpuacct"]) {
                    guard let quota = number("\(folder)/cpu.cfs_quota_us"), let period = number("\(folder)/cpu.cfs_period_us")
                    else { continue }
                    guard quota > 0, period > 0 else { return .none }  // -1: no quota
                    return .some((Swift.max(1, (quota + period - 1) / period), "cgroup v1 cpu quota"))
                }
            }
            return .none
        }
    }

    // MARK: Memory

    /// Limit minus usage of this process's memory cgroup, `nil` when unlimited or unreadable.
    package func cgroupMemoryRemaining() -> (bytes: Int, source: String)? {
        firstCgroupFigure { line -> (bytes: Int, source: String)?? in
            if line.isUnified {
                let folders = folders(of: line)
                guard let limit = folders.lazy.compactMap({ number("\($0)/memory.max") }).first else { return .none }
                let used = folders.lazy.compactMap { number("\($0)/memory.current") }.first ?? 0
                return .some((limit - used, "cgroup v2 limit"))
            } else if line.controllers.contains("memory") {
                for folder in folders(of: line, v1Mounts: ["memory"]) {
                    guard let limit = number("\(folder)/memory.limit_in_bytes") else { continue }
                    // v1 reports "no limit" as a huge page-aligned number.
                    guard limit < 1 << 60 else { return .some(nil) }
                    return .some((limit - (number("\(folder)/memory.usage_in_bytes") ?? 0), "cgroup v1 limit"))
                }
            }
            return .none
        }
    }

    /// `MemAvailable` in bytes.
    package func memAvailable() -> Int? { kilobytes("MemAvailable", in: "meminfo") }

    /// This process's data memory (`VmData` in /proc/self/status, bytes): private writable mappings, thread stacks
    /// included, what RLIMIT_DATA is checked against.
    package func dataBytes() -> Int? { kilobytes("VmData", in: "self/status") }

    /// The text after `name:` in a /proc file of `Name: value` lines (/proc/self/status, /proc/meminfo).
    private func field(_ name: String, in file: String) -> Substring? {
        guard let text = try? String(contentsOfFile: "\(procFolder)/\(file)", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            return line.dropFirst(name.count + 1)
        }
        return nil
    }

    /// A `name: N kB` figure of a /proc file, in bytes.
    private func kilobytes(_ name: String, in file: String) -> Int? {
        field(name, in: file)?.split(separator: " ").compactMap { Int($0) }.first.map { $0 * 1024 }
    }

    // MARK: The two figures

    /// The cores this process may use: the smaller of the affinity mask and the cgroup quota, else the
    /// machine's online cores.
    package func availableCores(online: Int = ProcessInfo.processInfo.activeProcessorCount) -> AvailableCores {
        var best = AvailableCores(count: online, source: "online cores")
        if let mask = affinityCount(), mask < best.count { best = AvailableCores(count: mask, source: "affinity mask") }
        if let (quota, source) = cgroupCPUQuota(), quota < best.count { best = AvailableCores(count: quota, source: source) }
        return best
    }

    /// The memory this process can still use: the smaller of what its cgroup leaves and MemAvailable.
    package func availableMemory() -> AvailableMemory {
        var best: (Int, String)?
        func consider(_ value: Int?, _ source: String) {
            guard let value, value > 0 else { return }
            if best == nil || value < best!.0 { best = (value, source) }
        }
        let cgroup = cgroupMemoryRemaining()
        consider(cgroup?.bytes, cgroup?.source ?? "")
        consider(memAvailable(), "MemAvailable")
        return AvailableMemory(bytes: best?.0, source: best?.1 ?? "unknown")
    }
}

/// The cores this process may use: the smaller of its CPU affinity mask (`taskset`, a Slurm or Kubernetes
/// cpuset) and its cgroup's CPU quota (v2 `cpu.max`, v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us`, rounded
/// up). Foundation's `activeProcessorCount` reports the machine's online cores on Linux, whatever the mask.
package struct AvailableCores: Sendable, Hashable {
    /// Cores, at least 1.
    package var count: Int
    /// Where the figure came from: `affinity mask`, `cgroup v2 cpu.max`, `cgroup v1 cpu quota`, or `online cores`.
    package var source: String

    package init(count: Int, source: String) {
        self.count = Swift.max(1, count)
        self.source = source
    }

    /// Read once per process (a system call and two small files).
    package static let current: AvailableCores = SystemResources().availableCores()
}

/// How much memory this process can still use, read from the system: the cgroup limit (v2 `memory.max`
/// minus `memory.current`, or v1 `memory.limit_in_bytes` minus `memory.usage_in_bytes`, for this process's
/// own cgroup) and `MemAvailable` from /proc/meminfo, whichever is smaller. It decides whether libx264's
/// low-memory settings are needed when no memory budget is given.
package struct AvailableMemory: Sendable, Hashable {
    /// Bytes available, `nil` when nothing could be read (then no low-memory settings are imposed).
    package var bytes: Int?
    /// Where the figure came from: `cgroup v2 limit`, `cgroup v1 limit`, `MemAvailable`, or `unknown`.
    package var source: String

    package init(bytes: Int?, source: String) {
        self.bytes = bytes
        self.source = source
    }

    /// Reads the figures of the running system (a few small files; about 0.1 ms).
    package static func current() -> AvailableMemory { SystemResources().availableMemory() }
}
