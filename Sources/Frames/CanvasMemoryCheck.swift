#if canImport(Glibc)
import Glibc
#endif

/// The memory for a canvas could not be had (a memory limit such as an rlimit on the process, or a machine out
/// of memory): an environment failure reported as one line (`internalError`), where Swift's own allocator would
/// abort the process.
package struct CanvasMemoryError: GifxError {
    package let bytes: Int
    package var description: String {
        "out of memory: cannot allocate \(bytes >> 20) MiB for the decoder's canvases (Cannot allocate memory)"
    }
    package var failureClass: FailureClass { .internalError }
}

enum CanvasMemoryCheck {
    /// Throws `CanvasMemoryError` unless `bytes` can be allocated now: asked of malloc and given back before
    /// the decoder allocates the same amount (the compositor's screen and the first cache slot) with
    /// Swift's allocator, which cannot fail softly. Touches nothing, so it costs no resident memory.
    static func ensure(bytes: Int) throws {
        guard bytes > 0 else { return }
        guard let probe = malloc(bytes) else { throw CanvasMemoryError(bytes: bytes) }
        free(probe)
    }
}
