import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A one-line progress bar (done / total, rate, ETA) on stderr, drawn only when stderr is a terminal
/// and at most ten times a second, so logs and pipelines stay clean.
final class ProgressBar {
    private let total: Int
    private let label: String
    private let enabled: Bool
    private let started = Date()
    private var lastDrawn = Date.distantPast

    init(total: Int, label: String, quiet: Bool) {
        self.total = max(total, 1)
        self.label = label
        enabled = !quiet && isatty(STDERR_FILENO) == 1
    }

    /// Reports `done` units finished; `extra` is appended (e.g. "2 failed").
    func update(_ done: Int, extra: String = "") {
        guard enabled else { return }
        let now = Date()
        guard done >= total || now.timeIntervalSince(lastDrawn) >= 0.1 else { return }
        lastDrawn = now
        let fraction = min(1, Double(done) / Double(total))
        let width = 24
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let elapsed = now.timeIntervalSince(started)
        let eta = done > 0 ? elapsed * Double(total - done) / Double(done) : 0
        let line = String(format: "\r%@ [%@] %d/%d %3.0f%% ETA %@%@", label, bar, done, total,
                          fraction * 100, Self.clock(eta), extra.isEmpty ? "" : "  " + extra)
        FileHandle.standardError.write(Data((line + "\u{1B}[K").utf8))
    }

    /// Clears the line.
    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    private static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }
}
