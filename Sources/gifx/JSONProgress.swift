import ArgumentParser
import Foundation
import GifxKit
import GifxPOSIXFiles
import Synchronization
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// `--progress`: how a run shows its progress.
enum ProgressMode: String, ExpressibleByArgument, CaseIterable {
    /// A one-line bar on stderr, only when stderr is a terminal and not `--quiet` (the default).
    case bar
    /// One JSON object a line (`JSONProgress`), on stderr or `--progress-fd`, whatever stderr is.
    case json
    case none
}

/// `--progress bar|json|none` and `--progress-fd N`, shared by the converting commands (`RunOptions`) and
/// `batch`. `--progress-fd N` alone means `--progress json` to descriptor N.
struct ProgressOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "bar (a bar when stderr is a terminal, the default), json (one JSON line per update, and a last line "
            + "on every exit, to stderr or --progress-fd) or none.", valueName: "mode"))
    var progress: ProgressMode?
    @Option(help: ArgumentHelp(
        "Write the JSON progress lines to this open file descriptor instead of stderr (implies --progress json).",
        valueName: "n"))
    var progressFd: Int32?

    func validate() throws {
        if let progressFd {
            if let progress, progress != .json {
                throw ValidationError("--progress-fd carries JSON lines: give --progress json or leave --progress out")
            }
            guard progressFd >= 0, fcntl(progressFd, F_GETFL) != -1 else {
                throw ValidationError("--progress-fd \(progressFd) is not an open file descriptor")
            }
            guard fcntl(progressFd, F_GETFL) & O_ACCMODE != O_RDONLY else {
                throw ValidationError("--progress-fd \(progressFd) is not open for writing")
            }
        }
    }

    var mode: ProgressMode { progress ?? (progressFd != nil ? .json : .bar) }

    /// The JSON writer when JSON is asked for (registered for the signal handlers' last line), else nil.
    func jsonProgress() -> JSONProgress? {
        guard mode == .json else { return nil }
        let writer = JSONProgress(fd: progressFd ?? STDERR_FILENO)
        JSONProgress.active.withLock { $0 = writer }
        return writer
    }

    /// Runs a command's `body` (which throws `ExitCode` for its failures, as `reportingErrors` does) and writes
    /// the JSON end line on its way out, whatever the way: `ok` and 0, or `failed` and the exit code.
    /// `outputBytes` is asked on success only (a failed run leaves no output).
    /// `extra`: fields the end line carries after the usual ones (batch's counts).
    static func endingRun(
        _ writer: JSONProgress?, outputBytes: () -> Int = { 0 }, extra: () -> [(String, Any?)] = { [] },
        _ body: () throws -> Void
    ) throws {
        do {
            try body()
            writer?.end(exitCode: 0, outputBytes: outputBytes(), extra: extra())
        } catch let error as ExitCode {
            writer?.end(exitCode: error.rawValue, outputBytes: error.rawValue == 0 ? outputBytes() : 0, extra: extra())
            throw error
        } catch {
            writer?.end(exitCode: ExitStatus.software, outputBytes: 0, extra: extra())
            throw error
        }
    }
}

/// Machine-readable progress: one JSON object a line, each written with one write(2) (a line is far below
/// PIPE_BUF, so lines from one writer never interleave in a pipe).
///
/// - `{"event":"progress","frames":{"done":D,"total":T},"outputBytes":B,"elapsedSeconds":E,"etaSeconds":S}`:
///   at most 10 a second (the first and the last are always written); `outputBytes` sums the sizes of
///   the temporary outputs being written (stat(2) at each line), `etaSeconds` is null before the first frame.
/// - `{"event":"end","status":"ok"|"failed","exitCode":N,"frames":{...},"outputBytes":B,"elapsedSeconds":E}`:
///   once, on every exit: success, failure, and SIGINT/SIGTERM (with `"signal":"SIGINT"`, exit 130/143;
///   written from the cleanup handler, which runs on a dispatch queue, not in signal context).
/// - `batch` adds `jobStart` and `jobEnd` lines (`event(_:)`).
final class JSONProgress: Sendable {
    /// The writer of this process, for the signal handlers (`installCleanupSignalHandlers`).
    static let active = Mutex<JSONProgress?>(nil)

    private struct State {
        var done = 0
        var total = 0
        var lastWritten: ContinuousClock.Instant?
        var ended = false
    }

    private let fd: Int32
    private let started = ContinuousClock.now
    private let state = Mutex(State())
    /// Seconds between two progress lines (the first and the last are always written).
    static let interval: Duration = .milliseconds(100)

    init(fd: Int32) { self.fd = fd }

    /// Frames `done` of `total`: a line unless one was written less than `interval` ago (the last frame's always is).
    func update(_ done: Int, _ total: Int) {
        state.withLock { state in
            guard !state.ended else { return }
            state.done = done
            state.total = total
            let now = ContinuousClock.now
            if let last = state.lastWritten, now - last < Self.interval, done < total { return }
            state.lastWritten = now
            let elapsed = seconds(now - started)
            let eta = done > 0 ? Self.number(elapsed * Double(max(0, total - done)) / Double(done)) : "null"
            write("{\"event\":\"progress\",\"frames\":{\"done\":\(done),\"total\":\(total)},"
                + "\"outputBytes\":\(Self.temporaryBytes()),\"elapsedSeconds\":\(Self.number(elapsed)),"
                + "\"etaSeconds\":\(eta)}")
        }
    }

    /// The last line, once: `ok` for exit 0, else `failed`; `signal` names the signal that stopped the run.
    func end(exitCode: Int32, outputBytes: Int, signal: String? = nil, extra: [(String, Any?)] = []) {
        state.withLock { state in
            guard !state.ended else { return }
            state.ended = true
            let elapsed = seconds(ContinuousClock.now - started)
            write("{\"event\":\"end\",\"status\":\"\(exitCode == 0 ? "ok" : "failed")\",\"exitCode\":\(exitCode),"
                + (signal.map { "\"signal\":\"\($0)\"," } ?? "")
                + "\"frames\":{\"done\":\(state.done),\"total\":\(state.total)},"
                + "\"outputBytes\":\(outputBytes),\"elapsedSeconds\":\(Self.number(elapsed))"
                + extra.map { ",\(Self.string($0.0)):\(Self.value($0.1))" }.joined() + "}")
        }
    }

    /// Any other event (batch's job lines): `"event"` first, then `fields` in order, values JSON-encoded.
    func event(_ name: String, _ fields: [(String, Any?)]) {
        state.withLock { state in
            guard !state.ended else { return }
            var line = "{\"event\":\(Self.string(name))"
            for (key, value) in fields { line += ",\(Self.string(key)):\(Self.value(value))" }
            write(line + "}")
        }
    }

    /// Seconds since the start (for callers' own fields).
    var elapsedSeconds: Double { seconds(ContinuousClock.now - started) }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Writes the line and its newline whole (`POSIXFiles.writeAll`: short writes continued, EINTR retried);
    /// errors are ignored: a reader that went away must not fail the conversion.
    private func write(_ line: String) {
        try? POSIXFiles.writeAll(FileDescriptor(rawValue: fd), (line + "\n").utf8)
    }

    /// The bytes written so far: the temporary outputs in flight (the hidden files renamed at the end).
    static func temporaryBytes() -> Int {
        TemporaryFiles.shared.registeredPaths.reduce(0) { $0 + (POSIXFiles.fileSize($1) ?? 0) }
    }

    /// Sizes of `paths` that exist (the committed outputs, for the end line).
    static func bytes(of paths: [String]) -> Int {
        paths.filter { !StandardOutput.isTarget($0) }.reduce(0) { $0 + (POSIXFiles.fileSize($1) ?? 0) }
    }

    static func number(_ value: Double) -> String { String(format: "%.3f", value) }

    static func string(_ text: String) -> String {
        (try? JSONSerialization.data(withJSONObject: text, options: [.fragmentsAllowed, .withoutEscapingSlashes]))
            .map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }

    private static func value(_ value: Any?) -> String {
        switch value {
        case nil: return "null"
        case let text as String: return string(text)
        case let number as Double: return number.isFinite ? Self.number(number) : "null"
        case let number as Int: return "\(number)"
        case let number as Int32: return "\(number)"
        case let flag as Bool: return flag ? "true" : "false"
        default: return string("\(value!)")
        }
    }
}
