import Foundation
import GifxKit
import GifxPOSIXFiles
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// How one input of a batch ended. Each kind of failure has its own status, so a retry can pick
/// exactly those (docs/scale-out.md): `timeout` (killed after `--timeout`), `memory` (an allocation
/// failed under `--max-memory`), `signal` (the conversion died of a signal, see `signal`), `failed`
/// (it exited non-zero, see `exitCode` and `exitClass`).
enum JobStatus: String, Sendable {
    case ok, skipped, failed, timeout, memory, signal

    var isFailure: Bool { self != .ok && self != .skipped }
}

/// One line of the `--report` file: one JSON object per input, written as the input ends.
struct BatchReportLine {
    var input: String
    var outputs: [String]
    var status: JobStatus
    var error: String?
    var exitCode: Int32?
    /// `SIGKILL`, `SIGSEGV`…: the signal that ended the conversion (status signal or timeout).
    var signal: String? = nil
    /// The sysexits class of a non-zero exit status (`malformed`, `io`, `internal`…), see `ChildOutcome.exitClass`.
    var exitClass: String? = nil
    var frames: Int?
    var duration: Double?
    var wallSeconds: Double
    /// The conversion's `--stats` summary (`JobFacts`).
    var stats: (any Encodable)? = nil

    /// Sorted keys; absent values are written as `null`, so every line has the same fields. Written by
    /// `JSONSerialization`, whose `.sortedKeys` order (case-insensitive: `cells`, `cellSize`, `cellsSaved`)
    /// the report has always had, where `JSONEncoder` sorts by code unit; `stats` goes in as the object
    /// its own encoding makes.
    var json: Data {
        var object: [String: Any] = [
            "input": input, "outputs": outputs, "status": status.rawValue,
            "error": error ?? NSNull(), "exitCode": exitCode.map { Int($0) as Any } ?? NSNull(),
            "signal": signal ?? NSNull(), "exitClass": exitClass ?? NSNull(),
            "frames": frames ?? NSNull(), "duration": duration ?? NSNull(),
            "wallSeconds": (wallSeconds * 1000).rounded() / 1000,
        ]
        if let stats, let encoded = try? JSONEncoder().encode(stats) {
            object["stats"] = try? JSONSerialization.jsonObject(with: encoded)
        }
        let data = (try? JSONSerialization.data(
            withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return data + Data("\n".utf8)
    }
}

/// The JSON-lines report, opened for appending: each line goes out in one `write(2)` on an
/// `O_APPEND` descriptor, so a killed batch leaves only whole lines, and runs (or shards sharing
/// one file on a local disk) never interleave inside a line.
final class BatchReport {
    private let fd: FileDescriptor
    let path: String

    init(path: String) throws {
        do {
            fd = try FileDescriptor.open(
                FilePath(path), .writeOnly, options: [.create, .append, .closeOnExec],
                permissions: [.ownerReadWrite, .groupRead, .otherRead])
        } catch {
            throw BatchSetupError(
                subject: path, message: "cannot open report: \(error)", exitCode: ExitStatus.cannotCreate)
        }
        self.path = path
    }

    deinit { try? fd.close() }

    /// Appends one line; a failure to write the report is reported once on stderr but does not stop the batch.
    func append(_ line: BatchReportLine) -> Bool {
        let data = line.json
        return (try? POSIXFiles.writeAll(fd, data)) != nil
    }
}

/// A problem that stops the batch before any conversion starts (out-dir, report, stdin, options).
struct BatchSetupError: Error {
    let subject: String
    let message: String
    let exitCode: Int32
}
