import CProcess
import Foundation
import GifxFrames

#if canImport(Glibc)
import Glibc
#endif

/// What a batch tells each child through its environment, applied by the child first thing in `main`,
/// before any allocation of note (posix_spawn cannot set limits on the process it starts, and doing it
/// from the parent with prlimit(2) after the spawn would race the child's start-up).
enum BatchChildSetup {
    /// The batch's pid: the child asks to get SIGTERM when it ends (prctl PR_SET_PDEATHSIG), so a batch
    /// killed with SIGKILL does not leave orphans converting (or hanging) on; SIGTERM, not SIGKILL, so
    /// the child still removes its temporary output on the way out.
    static let parentVariable = "GIFX_BATCH_PARENT"
    /// `--max-memory` in bytes, applied as RLIMIT_DATA (`DataMemoryLimit`).
    static let maxMemoryVariable = "GIFX_BATCH_MAX_MEMORY"

    /// The environment of a child of this batch process.
    static func environment(maxMemory: Int?) -> [String: String] {
        var variables = [parentVariable: String(getpid())]
        if let maxMemory { variables[maxMemoryVariable] = String(maxMemory) }
        return variables
    }

    /// Applies what the batch asked for; a plain `gifx` run (no such variables) is untouched.
    static func applyFromEnvironment() {
        if let text = EnvironmentVariable.value(parentVariable), let parent = pid_t(text) {
            _ = gifx_set_parent_death_signal(SIGTERM)
            // The batch may have died between the spawn and the prctl: nobody waits for this child then,
            // and it exits as if terminated (a rerun converts its input).
            if getppid() != parent { _exit(ExitStatus.terminated) }
        }
        if let text = EnvironmentVariable.value(maxMemoryVariable), let bytes = rlim_t(text) {
            _ = DataMemoryLimit.lower(to: bytes)
        }
    }
}
