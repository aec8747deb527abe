import Foundation
import GifxFrames
import GifxPOSIXFiles
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// Why an output could not be written.
/// `description` names no command-line flag: the CLI adds the remedy `kind` calls for.
public struct OutputError: GifxError {
    /// What kind of refusal, for the caller to suggest a remedy.
    public enum Kind: Sendable {
        /// The target exists and replacing it was not allowed.
        case exists
        /// More files would be open at once than the descriptor limit allows.
        case tooManyOpenFiles
        case other
    }

    public let path: String
    public let reason: String
    public let failureClass: FailureClass
    public let kind: Kind
    public var description: String { reason }
    public var subjectPath: String? { path }

    public init(path: String, reason: String, failure: FailureClass, kind: Kind = .other) {
        self.path = path; self.reason = reason; self.failureClass = failure; self.kind = kind
    }

    /// The target exists and may not be replaced (`cannotCreateOutput`).
    public static func exists(_ path: String) -> OutputError {
        OutputError(path: path, reason: "already exists", failure: .cannotCreateOutput, kind: .exists)
    }

    /// Maps an errno from writing to its failure class: a full disk or size limit is `io`.
    public static func writing(_ path: String, errno code: Int32) -> OutputError {
        OutputError(path: path, reason: "write failed: \(String(cString: strerror(code)))", failure: .io)
    }
}

/// A file written under a hidden temporary name beside its target and renamed over it only on `commit`,
/// so a failed or interrupted run never leaves a partial file at the target path.
public final class AtomicOutput {
    /// Where the finished file goes.
    public let targetPath: String
    /// The hidden temporary file being written (same folder, so the final rename is atomic).
    public let temporaryPath: String
    /// Open descriptor on the temporary file, nil once flushed or discarded.
    private(set) var descriptor: FileDescriptor?
    /// The raw descriptor, for the C writers that take one (libpng); -1 once closed. libav opens
    /// `temporaryPath` itself.
    public var fileDescriptor: Int32 { descriptor?.rawValue ?? -1 }
    private let overwrite: Bool
    private var finished = false

    /// Creates the temporary file; fails (`cannotCreateOutput`) when the target exists (without `overwrite`)
    /// or its folder cannot be written.
    public init(targetPath: String, overwrite: Bool) throws {
        self.targetPath = targetPath
        self.overwrite = overwrite
        if !overwrite && FileManager.default.fileExists(atPath: targetPath) {
            throw OutputError.exists(targetPath)
        }
        switch POSIXFiles.makeHiddenTemporary(beside: targetPath) {
        case .success(let file):
            descriptor = file.fd
            temporaryPath = file.path
        case .failure(let error):
            throw OutputError(
                path: targetPath, reason: "cannot create output: \(error)", failure: .cannotCreateOutput)
        }
        TemporaryFiles.shared.register(temporaryPath)
    }

    /// Flushes and renames the temporary file to the target (refusing to replace a file that
    /// appeared meanwhile unless `overwrite`).
    public func commit() throws {
        flush()
        try publish()
    }

    /// Puts the data on disk before any name points at it, so a crash never shows a truncated target.
    func flush() {
        precondition(!finished, "output committed twice")
        if let descriptor { POSIXFiles.sync(descriptor) }
        closeDescriptor()
    }

    /// Gives the flushed temporary file its target name.
    func publish() throws {
        precondition(!finished, "output committed twice")
        if !overwrite {
            // link(2) fails if the target exists: never replace a file created while we were writing.
            do throws(Errno) {
                try POSIXFiles.link(temporaryPath, to: targetPath)
            } catch {
                discard()
                if error == .fileExists { throw OutputError.exists(targetPath) }
                throw OutputError(
                    path: targetPath, reason: "cannot create output: \(error)",
                    failure: error == .permissionDenied || error == .readOnlyFileSystem ? .cannotCreateOutput : .io)
            }
            unlink(temporaryPath)
        } else {
            do throws(Errno) {
                try POSIXFiles.rename(temporaryPath, to: targetPath)
            } catch {
                discard()
                throw OutputError(
                    path: targetPath, reason: "cannot replace output: \(error)", failure: .cannotCreateOutput)
            }
        }
        finished = true
        TemporaryFiles.shared.unregister(temporaryPath)
    }

    /// Removes the temporary file; the target is untouched.
    public func discard() {
        guard !finished else { return }
        finished = true
        closeDescriptor()
        unlink(temporaryPath)
        TemporaryFiles.shared.unregister(temporaryPath)
    }

    /// Removes a committed target again (used to roll back a multi-file output).
    func removeCommittedTarget() {
        unlink(targetPath)
    }

    deinit { discard() }

    private func closeDescriptor() {
        try? descriptor?.close()
        descriptor = nil
    }
}

/// Several outputs that appear together or not at all (sprite sheet pages and their JSON).
public final class OutputTransaction {
    public private(set) var outputs: [AtomicOutput] = []
    private let overwrite: Bool

    public init(overwrite: Bool) { self.overwrite = overwrite }

    /// Starts one more output; all targets are checked before anything is written.
    public func add(_ targetPath: String) throws -> AtomicOutput {
        let output = try AtomicOutput(targetPath: targetPath, overwrite: overwrite)
        outputs.append(output)
        return output
    }

    /// Commits every output: all are flushed first, then renamed; if a rename fails, or SIGINT/SIGTERM
    /// arrives meanwhile, the targets already renamed are removed again, so none appears alone.
    public func commit() throws {
        for output in outputs { output.flush() }
        var committed: [AtomicOutput] = []
        defer { for output in committed { TemporaryFiles.shared.unregister(output.targetPath) } }
        do {
            for output in outputs {
                try output.publish()
                // From here until every output is renamed, a signal handler removes it with the rest.
                TemporaryFiles.shared.register(output.targetPath)
                committed.append(output)
            }
        } catch {
            for output in committed { output.removeCommittedTarget() }
            discard()
            throw error
        }
    }

    public func discard() {
        for output in outputs { output.discard() }
    }
}
