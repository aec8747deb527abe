// What both fuzz targets (fuzz-decoder, fuzz-differential) share: the per-process scratch file every input
// is written to (the decoders read files by path, as the CLI does), and the replayer each target becomes
// when built without libFuzzer.
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One scratch file per fuzzing process (`GIFX_FUZZ_SCRATCH`, else /tmp), rewritten for every input.
public struct FuzzScratch: Sendable {
    public let path: String

    public init(name: String) {
        let folder = getenv("GIFX_FUZZ_SCRATCH").map { String(cString: $0) } ?? "/tmp"
        path = "\(folder)/\(name)-\(getpid()).gif"
    }

    /// Replaces the file's contents with the `size` bytes at `data`; a failure here is the harness's, fatal.
    public func write(_ data: UnsafePointer<UInt8>, _ size: Int) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { fatalError("cannot write \(path): \(String(cString: strerror(errno)))") }
        var done = 0
        while done < size {
            let n = Glibc.write(fd, data + done, size - done)
            guard n > 0 else { fatalError("short write to \(path)") }
            done += n
        }
        close(fd)
    }
}

/// Without libFuzzer (`swift build`, `make test`) a fuzz target is a plain program that feeds each file
/// named on its command line to its entry point: every build compiles the target, so an API change breaks
/// the build at once, and a saved finding reproduces under a debugger (`swift run TARGET FILE`).
public func replayFuzzInputs(
    target: String, script: String, verdict: String, _ entry: (UnsafePointer<UInt8>, Int) -> Int32
) {
    let paths = CommandLine.arguments.dropFirst()
    if paths.isEmpty {
        FileHandle.standardError.write(Data("usage: \(target) FILE... (bash \(script) fuzzes)\n".utf8))
        exit(64)
    }
    for path in paths {
        guard let data = FileManager.default.contents(atPath: path) else {
            FileHandle.standardError.write(Data("\(target): cannot read \(path)\n".utf8))
            exit(66)
        }
        // The entry point takes a non-null pointer even for an empty input, as libFuzzer passes one.
        let bytes = [UInt8](data) + [0]
        _ = bytes.withUnsafeBufferPointer { entry($0.baseAddress!, data.count) }
        print("\(path): \(verdict)")
    }
}
