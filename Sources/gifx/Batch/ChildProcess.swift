import Foundation
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// Starts one child conversion with posix_spawn (Foundation's `Process` has had slow and unsafe
/// behaviour on Linux). Standard input is /dev/null; stdout and stderr go to files, so nothing has
/// to be drained while the child runs and a chatty child cannot fill memory.
enum ChildProcess {
    /// This very binary: the children run the same code as the batch, whatever the PATH says.
    static var currentExecutable: String {
        #if os(Linux)
        return "/proc/self/exe"
        #else
        return Bundle.main.executablePath ?? CommandLine.arguments[0]
        #endif
    }

    /// Spawns `executable arguments…` and returns its pid. SIGINT and SIGTERM are reset to their
    /// default action and the signal mask is cleared in the child: the batch ignores those signals
    /// (it handles them on a dispatch source), and a child that inherited "ignore" could not be stopped.
    /// `environment` is added to (and overrides) this process's own environment.
    static func spawn(
        executable: String, arguments: [String], stdoutPath: String, stderrPath: String,
        environment: [String: String] = [:]
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGPIPE, SIGHUP, SIGQUIT] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var inherited = ProcessInfo.processInfo.environment
        inherited.merge(environment) { _, new in new }
        let envp = inherited.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO) }
        return pid
    }

    /// The last 8 KiB of a file as text (where a child's fatal error message is).
    static func tail(ofFile path: String) -> String {
        guard let fd = try? FileDescriptor.open(FilePath(path), .readOnly, options: .closeOnExec) else { return "" }
        defer { try? fd.close() }
        guard let size = try? fd.seek(offset: 0, from: .end), size > 0 else { return "" }
        let length = Int(min(size, 8192))
        var buffer = [UInt8](repeating: 0, count: length)
        let count = (try? buffer.withUnsafeMutableBytes { try fd.read(fromAbsoluteOffset: size - Int64(length), into: $0) }) ?? 0
        return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : ""
    }

    /// The last non-empty line of a file, read from its last 8 KiB (a child's error message).
    static func lastLine(ofFile path: String) -> String? {
        tail(ofFile: path).split(whereSeparator: \.isNewline).last.map {
            $0.trimmingCharacters(in: .whitespaces)
        }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// At most `limit` bytes of a file (a `--stats` summary is a few hundred bytes).
    static func contents(ofFile path: String, limit: Int = 1 << 20) -> Data {
        guard let fd = try? FileDescriptor.open(FilePath(path), .readOnly, options: .closeOnExec) else { return Data() }
        defer { try? fd.close() }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while data.count < limit {
            let count = (try? buffer.withUnsafeMutableBytes { try fd.read(into: $0) }) ?? 0
            guard count > 0 else { break }
            data.append(contentsOf: buffer[0..<count])
        }
        return data
    }
}
