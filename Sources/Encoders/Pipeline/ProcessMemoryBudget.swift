import GifxFrames
import GifxSystem

/// The memory budget of a run that was given none: what the process may hold before the kernel, or the
/// machine, pushes back.
package enum ProcessMemoryBudget {
    /// Without a cgroup limit, the share of MemAvailable a run takes: half, leaving the rest to the page
    /// cache and to whatever else runs (`gifx batch` divides its own reading among its jobs instead).
    package static let availableShare = 2

    /// `given` when there is one; else the memory left under this process's cgroup limit; else
    /// 1/`availableShare` of MemAvailable; `nil` when nothing could be read. With the words `--stats` uses.
    /// `available` is read from the system (`AvailableMemory.current()`) only when needed.
    package static func resolve(given: Int?, available: AvailableMemory? = nil) -> (bytes: Int?, source: String) {
        if let given { return (given, "given") }
        let available = available ?? .current()
        guard let bytes = available.bytes else { return (nil, "none known") }
        if available.source.hasPrefix("cgroup") { return (bytes, available.source) }
        return (bytes / availableShare, "1/\(availableShare) of \(available.source)")
    }
}
