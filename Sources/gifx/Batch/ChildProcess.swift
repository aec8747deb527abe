import CArguments
import Foundation
import ChildProcesses
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// What the batch's children run and what a conversion left. Each conversion's stdout and stderr go to
/// files (its worker points them there, `BatchWorker`), so nothing has to be drained while it runs and a
/// chatty conversion cannot fill memory; its standard input is /dev/null.
enum ChildProcess {
    /// This very binary: the children run the same code as the batch, whatever the PATH says. On Linux
    /// /proc/self/exe (the running file even if it was replaced since); without /proc (a chroot, a sandbox,
    /// issue 38) the path the kernel executed, from the auxiliary vector (`AT_EXECFN`, no /proc needed),
    /// made absolute, since a relative one would not survive a child's other working folder.
    static let currentExecutable: String = {
        #if os(Linux)
        if access("/proc/self/exe", X_OK) == 0 { return "/proc/self/exe" }
        if let name = gifx_executed_path() {
            if let resolved = realpath(name, nil) {
                defer { free(resolved) }
                return String(cString: resolved)
            }
            return String(cString: name)
        }
        return ProcessArguments.all?.first ?? "gifx"
        #else
        return Bundle.main.executablePath ?? CommandLine.arguments[0]
        #endif
    }()

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
