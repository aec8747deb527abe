import Foundation
import GifxKit
import GifxServer

#if canImport(Glibc)
import Glibc
#endif

/// The environment variables that change how a run works (not what it writes), for benchmarks, tests and
/// debugging. Read here, once, and nowhere else: the library takes them as one `Diagnostics` value, which no
/// public type carries. Each has its row in docs/environment.md; a value that does
/// not parse, or is out of range, is ignored, as before.
struct DeveloperSwitches {
    /// `GIFX_SERIAL_SINKS=1`: feed the outputs one after another (the benchmark's baseline);
    /// `GIFX_PNG_THREADS=N` (1...256): threads deflating a sprite sheet page (1: libpng's single stream);
    /// `GIFX_MP4_FRAGMENT_ABOVE=N` (0 or more): fragment MP4s above N output frames (tests use 0);
    /// `GIFX_AV_LOG=1`: let libav print its own warnings and errors;
    /// `GIFX_REPEATS=encode`: encode every repeat again instead of writing repeat pictures (the old path);
    /// `GIFX_REPEATS=real` or `=dense`: repeat pictures, the encoder shown real or one-frame durations
    /// (`RepeatTimestamps`; docs/repeats.md).
    var diagnostics = Diagnostics()
#if DEBUG
    /// `GIFX_TEST_CRASH=SIGNAL@N` (tests only, debug builds only): die of SIGNAL once N GIF frames have been
    /// converted, as a library that crashes mid-encode does (`CrashSwitch`); `nil` when unset or unparsed.
    /// A release build has no such hook: nothing a user sets can make the shipped binary crash on purpose.
    var crash: CrashSwitch?
#endif
    /// `GIFX_BATCH_PROCESS_PER_INPUT=1`: `gifx batch` starts one process per input, as before its workers
    /// (the batch-scaling benchmark's baseline).
    var batchProcessPerInput = false

    /// Read with getenv(3) (`EnvironmentVariable`), not from `ProcessInfo.processInfo.environment`'s copy of
    /// the whole environment: every run reads these first thing.
    static let current = DeveloperSwitches(environment: EnvironmentVariable.value)

    init(environment: (String) -> String?) {
        diagnostics.serialSinks = environment("GIFX_SERIAL_SINKS") == "1"
        diagnostics.pngDeflateThreads = environment("GIFX_PNG_THREADS").flatMap(Int.init).flatMap {
            RunSettings.threadRange.contains($0) ? $0 : nil
        }
        diagnostics.fragmentedMP4Above = environment("GIFX_MP4_FRAGMENT_ABOVE").flatMap(Int.init).flatMap { $0 >= 0 ? $0 : nil }
        diagnostics.libavLogging = environment("GIFX_AV_LOG") == "1"
        diagnostics.encodeRepeats = environment("GIFX_REPEATS") == "encode"
        diagnostics.noReferenceRepeats = environment("GIFX_REPEATS") == "single-reference"
        diagnostics.x264StreamPath = environment("GIFX_DEBUG_X264_STREAM")
        diagnostics.repeatTimestamps = environment("GIFX_REPEATS").flatMap(RepeatTimestamps.init(rawValue:)) ?? .capped
#if DEBUG
        crash = environment("GIFX_TEST_CRASH").flatMap(CrashSwitch.init)
#endif
        batchProcessPerInput = environment("GIFX_BATCH_PROCESS_PER_INPUT") == "1"
    }

    func apply(to settings: inout RunSettings) {
        settings.diagnostics = diagnostics
    }

    /// Called on each progress report with the GIF frames converted so far: fires `GIFX_TEST_CRASH` in a
    /// debug build, does nothing in a release build.
    func progressed(done: Int) {
#if DEBUG
        crash?.fire(done: done)
#endif
    }
}

#if DEBUG
/// A crash on demand, for the tests of what survives one (`gifx batch` reports a child that died of a signal
/// as `signal`, removes its temporaries and goes on): `SIGSEGV@5` writes through a pointer into the unmapped
/// first page, as a library's bad pointer does; `SIGABRT@5` calls abort(3), as a failed C assertion does
/// (libaom's, issue 42); any other signal name is raised. `GROW@5` allocates and touches memory in 64 MiB blocks
/// without end, as a runaway allocation does, until an allocation is refused (a memory grant's RLIMIT_DATA: then
/// abort(3), as code that cannot go on without it does) or 2 GiB more than a grant's headroom are held (no grant:
/// exit 99, so that a test without one fails instead of taking the machine). It fires on the progress report of the N-th GIF
/// frame (default 1), so the outputs' hidden temporaries exist; GIFs with fewer frames are not affected.
/// Before dying it prints one line, as an assertion does, which the batch report quotes.
struct CrashSwitch: Sendable {
    let signal: Int32
    let name: String
    let afterFrames: Int

    init?(_ text: String) {
        let parts = text.split(separator: "@", maxSplits: 1).map(String.init)
        // SIGSTOP: the process stops where it is, as a conversion that hangs does (the service's timeout tests).
        let names: [String: Int32] = ["SIGSEGV": SIGSEGV, "SIGABRT": SIGABRT, "SIGBUS": SIGBUS, "SIGFPE": SIGFPE,
                                      "SIGILL": SIGILL, "SIGKILL": SIGKILL, "SIGSTOP": SIGSTOP]
        guard let first = parts.first, let signal = first.uppercased() == "GROW" ? 0 : names[first.uppercased()] else { return nil }
        let frames = parts.count > 1 ? Int(parts[1]) : 1
        guard let frames, frames >= 1 else { return nil }
        self.signal = signal
        self.name = first.uppercased()
        self.afterFrames = frames
    }

    /// Dies if `done` frames reach the switch's count.
    func fire(done: Int) {
        guard done >= afterFrames else { return }
        if name == "GROW" { grow(done: done) }
        let line = "gifx: GIFX_TEST_CRASH: dying of \(name) after \(done) frames\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
        switch signal {
        case SIGSEGV:
            // A store to address 8: the kernel's own SIGSEGV, not raise(3).
            if let pointer = UnsafeMutablePointer<Int>(bitPattern: 8) { pointer.pointee = 42 }
        case SIGABRT:
            abort()
        default:
            break
        }
        raise(signal)
        abort()  // the signal was blocked or ignored
    }

    /// `GROW`: 64 MiB blocks, each written, until one is refused (abort) or the cap is held (exit 99).
    private func grow(done: Int) -> Never {
        let block = 64 << 20, cap = MemoryGrant.headroom + (2 << 30)
        for held in 0..<(cap / block) {
            guard let memory = malloc(block) else {
                let line = "gifx: GIFX_TEST_CRASH: GROW: an allocation was refused with \(held * 64) MiB held after \(done) frames\n"
                _ = line.withCString { write(2, $0, strlen($0)) }
                abort()
            }
            memset(memory, 1, block)
        }
        let line = "gifx: GIFX_TEST_CRASH: GROW: \(cap >> 20) MiB held and nothing refused\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
        exit(99)
    }
}
#endif

/// One variable of this process's environment, read with getenv(3). The checks every `gifx` run makes first
/// thing (is this process a batch's child, a batch worker, a service worker?) read their variables so, not
/// through `ProcessInfo.processInfo.environment`, which copies the whole environment into a new dictionary on
/// every call: ≈ 0.35 M instructions each with 40 variables set (callgrind, docs/benchmarks.md).
enum EnvironmentVariable {
    static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
