// Without libFuzzer (`swift build`, `make test`) the target is a plain program that feeds each file named
// on its command line to the fuzz entry point, so every build compiles it and a saved finding reproduces
// under a debugger (`swift run fuzz-differential .build-fuzz-differential/crashes/crash-…`).
#if !GIFX_LIBFUZZER
import Foundation

@main
enum Replay {
    static func main() {
        let paths = CommandLine.arguments.dropFirst()
        if paths.isEmpty {
            FileHandle.standardError.write(Data("usage: fuzz-differential FILE... (bash Fuzz/differential.sh fuzzes)\n".utf8))
            exit(64)
        }
        for path in paths {
            guard let data = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("fuzz-differential: cannot read \(path)\n".utf8))
                exit(66)
            }
            let bytes = [UInt8](data) + [0]  // a non-null pointer even for an empty input, as libFuzzer gives
            _ = bytes.withUnsafeBufferPointer { fuzzDifferentialOneInput($0.baseAddress!, data.count) }
            print("\(path): same canvases, errors and warnings")
        }
    }
}
#endif
