#if canImport(Glibc)
import Glibc
#endif

/// This process's soft RLIMIT_DATA, the one memory limit gifx sets on itself: `gifx batch --max-memory` for each
/// conversion's process (`BatchChildSetup`) and the service's memory grant for each job of a worker (`MemoryGrant`).
///
/// RLIMIT_DATA rather than RLIMIT_AS: since Linux 4.7 it counts the private writable mappings (heap, anonymous
/// mmap, thread stacks), i.e. what the conversion really uses, while RLIMIT_AS also counts glibc's per-thread
/// malloc arenas (64 MiB of PROT_NONE reserve each) and the libraries' mapped code, which x264's threads multiply
/// without using (measured in docs/reliability.md).
enum DataMemoryLimit {
    static let resource = __rlimit_resource_t(RLIMIT_DATA.rawValue)

    /// Sets the soft limit to `bytes` (at most the hard limit); returns the limit it replaced, nil when the kernel
    /// refused either call.
    static func lower(to bytes: rlim_t) -> rlimit? {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return nil }
        var lowered = limit
        lowered.rlim_cur = min(bytes, limit.rlim_max)
        return setrlimit(resource, &lowered) == 0 ? limit : nil
    }

    /// Puts back a limit `lower(to:)` returned.
    static func restore(_ previous: rlimit) {
        var limit = previous
        setrlimit(resource, &limit)
    }
}
