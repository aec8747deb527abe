import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Prints a `--stats` summary as one JSON object on stdout (sorted keys, so scripts can diff it).
func printStats(_ stats: some Encodable) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    if let data = try? encoder.encode(stats) {
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }
}

/// This process's peak resident set size in bytes (getrusage), for `--stats`.
func peakResidentBytes() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_maxrss * 1024
}
