import CBuildInfo
import GifxKit

/// `gifx --version`: the version, the commit, and the libav libraries this machine's gifx actually loads.
/// ArgumentParser's own `--version` prints a fixed string, so `Gifx.main` answers a lone `--version` here;
/// libav is opened only for this (and by the conversions that need it), as everywhere else.
enum VersionText {
    static let version = "0.1.0"
    static var commit: String { String(cString: gifx_build_commit()) }
    /// The first line, also ArgumentParser's `version` (shown by `--help`).
    static var short: String { "gifx \(version) (commit \(commit))" }

    static var full: String {
        var lines = [short]
        do {
            let (libraries, ffmpeg) = try LibavVersions.load()
            for library in libraries {
                lines.append("\(library.name) \(library.version)" + (library.path.map { " (\($0))" } ?? ""))
            }
            lines.append("FFmpeg \(ffmpeg)")
        } catch {
            lines.append("libav: not loaded: \(error)")
        }
        return lines.joined(separator: "\n")
    }
}
