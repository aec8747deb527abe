// Without libFuzzer (`swift build`, `make test`), the target is a plain program that feeds each file
// named on its command line to the fuzz entry point: every build of the package compiles the target, so
// a change to the API it uses breaks the build at once instead of the next fuzzing run, and a saved crash
// input reproduces under a debugger (`swift run fuzz-decoder .build-fuzz/crashes/crash-…`).
#if !GIFX_LIBFUZZER
import Foundation

@main
enum Replay {
    static func main() {
        let paths = CommandLine.arguments.dropFirst()
        if paths.isEmpty {
            FileHandle.standardError.write(Data("usage: fuzz-decoder FILE... (bash Fuzz/run.sh fuzzes)\n".utf8))
            exit(64)
        }
        for path in paths {
            guard let data = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("fuzz-decoder: cannot read \(path)\n".utf8))
                exit(66)
            }
            // The entry point takes a non-null pointer even for an empty input, as libFuzzer passes one.
            let bytes = [UInt8](data) + [0]
            _ = bytes.withUnsafeBufferPointer { fuzzTestOneInput($0.baseAddress!, data.count) }
            print("\(path): ok")
        }
    }
}
#endif
