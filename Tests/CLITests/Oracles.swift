import Foundation

/// The tests' independent oracles (ffprobe and ffmpeg from Debian's ffmpeg, webpmux from webp, script from
/// bsdutils), found on PATH as a shell would find them. `make test` installs them; a test that needs one
/// says so with `.enabled(if: oracleAvailable(…), "reason")`, so a machine without it reports the skip and
/// its reason instead of passing without checking.
enum Oracle {
    /// The tool's path on PATH, or nil.
    static func find(_ name: String) -> String? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return folders.lazy.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The tool's path for a run: where it is missing, the plain name, so the run fails loudly (a test that
    /// gets here without its oracle was not guarded by `oracleAvailable`).
    static func tool(_ name: String) -> String { find(name) ?? name }
}

/// Whether every named oracle is on PATH.
func oracleAvailable(_ names: String...) -> Bool { names.allSatisfy { Oracle.find($0) != nil } }

func ffprobeAvailable() -> Bool { oracleAvailable("ffprobe", "ffmpeg") }
