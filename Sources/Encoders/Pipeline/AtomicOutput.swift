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

    /// The reader of standard output went away (EPIPE).
    public static let readerGone = OutputError(
        path: StandardOutput.displayName, reason: "the reader went away", failure: .outputClosed)

    /// Maps an errno from writing to its failure class: a full disk or size limit is `io`.
    public static func writing(_ path: String, errno code: Int32) -> OutputError {
        if code == EPIPE { return readerGone }
        return OutputError(path: path, reason: "write failed: \(String(cString: strerror(code)))", failure: .io)
    }
}

/// A file written under a hidden temporary name beside its target and renamed over it only on `commit`,
/// so a failed or interrupted run never leaves a partial file at the target path.
///
/// A descriptor target (standard output, or the caller's descriptor): the temporary file is then private (in the
/// scratch folder) and `commit` copies it out, unless the writer streamed straight to the descriptor (`markStreamed`).
package final class AtomicOutput {
    /// Where the finished output goes.
    package let target: OutputTarget
    /// The target's path; for a descriptor, its name (`-`, `fd:N`), never a file's.
    package var targetPath: String { target.name }
    /// The hidden temporary file being written (same folder, so the final rename is atomic).
    package let temporaryPath: String
    /// Open descriptor on the temporary file, nil once flushed or discarded.
    package private(set) var descriptor: FileDescriptor?
    /// The raw descriptor, for the C writers that take one (libpng); -1 once closed. libav opens
    /// `temporaryPath` itself.
    package var fileDescriptor: Int32 { descriptor?.rawValue ?? -1 }
    private let overwrite: Bool
    private var finished = false
    /// Whether the target is a descriptor (standard output or the caller's) rather than a file.
    package var isDescriptor: Bool { target.descriptor != nil }
    /// A descriptor target only: the writer sent its bytes there itself, so `commit` copies nothing.
    package private(set) var streamed = false
    /// How errors name the target: its path, `<stdout>` or `<fd N>`.
    package var displayPath: String { target.displayName }

    /// Creates the temporary file (for standard output, in `scratchFolder`); fails (`cannotCreateOutput`) when
    /// the target exists (without `overwrite`) or its folder cannot be written.
    package init(target: OutputTarget, overwrite: Bool, scratchFolder: String) throws {
        self.target = target
        self.overwrite = overwrite
        if case .file(let path) = target, !overwrite && FileManager.default.fileExists(atPath: path) {
            throw OutputError.exists(path)
        }
        let beside = target.descriptor != nil ? scratchFolder + "/gifx-stdout" : target.name
        switch POSIXFiles.makeHiddenTemporary(beside: beside) {
        case .success(let file):
            descriptor = file.fd
            temporaryPath = file.path
        case .failure(let error):
            throw OutputError(
                path: target.displayName,
                reason: "cannot create output: \(error)", failure: .cannotCreateOutput)
        }
        TemporaryFiles.shared.register(temporaryPath)
    }

    /// The writer sends the output to the target descriptor itself, as it encodes (fragmented MP4, WebM): the
    /// temporary file stays empty and `commit` only removes it.
    package func markStreamed() {
        precondition(isDescriptor, "only a descriptor is streamed to")
        streamed = true
    }

    /// Flushes and renames the temporary file to the target (refusing to replace a file that
    /// appeared meanwhile unless `overwrite`).
    package func commit() throws {
        flush()
        try publish()
    }

    /// Puts the data on disk before any name points at it, so a crash never shows a truncated target.
    func flush() {
        precondition(!finished, "output committed twice")
        if let descriptor, !isDescriptor { POSIXFiles.sync(descriptor) }
        closeDescriptor()
    }

    /// Gives the flushed temporary file its target name.
    func publish() throws {
        precondition(!finished, "output committed twice")
        if let fd = target.descriptor {
            defer { discard() }
            if !streamed {
                let source = try FileDescriptor.open(FilePath(temporaryPath), .readOnly, options: .closeOnExec)
                defer { try? source.close() }
                try StandardOutput.copy(from: source, to: FileDescriptor(rawValue: fd), name: target.displayName)
            }
            return
        }
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
    package func discard() {
        guard !finished else { return }
        finished = true
        closeDescriptor()
        unlink(temporaryPath)
        TemporaryFiles.shared.unregister(temporaryPath)
    }

    /// Removes a committed target again (used to roll back a multi-file output); standard output cannot be
    /// taken back.
    func removeCommittedTarget() {
        if !isDescriptor { unlink(targetPath) }
    }

    deinit { discard() }

    private func closeDescriptor() {
        try? descriptor?.close()
        descriptor = nil
    }
}

/// Several outputs that appear together or not at all (sprite sheet pages and their JSON).
package final class OutputTransaction {
    package private(set) var outputs: [AtomicOutput] = []
    private let overwrite: Bool
    private let scratchFolder: String

    package init(overwrite: Bool, scratchFolder: String) {
        self.overwrite = overwrite
        self.scratchFolder = scratchFolder
    }

    /// Starts one more output; all targets are checked before anything is written.
    package func add(_ target: OutputTarget) throws -> AtomicOutput {
        let output = try AtomicOutput(target: target, overwrite: overwrite, scratchFolder: scratchFolder)
        outputs.append(output)
        return output
    }

    /// Commits every output: all are flushed first, then renamed; if a rename fails, or SIGINT/SIGTERM
    /// arrives meanwhile, the targets already renamed are removed again, so none appears alone.
    /// A descriptor, whose bytes cannot be taken back, goes last: only once every file is in place.
    package func commit() throws {
        for output in outputs { output.flush() }
        var committed: [AtomicOutput] = []
        defer { for output in committed { TemporaryFiles.shared.unregister(output.targetPath) } }
        do {
            for output in outputs.filter({ !$0.isDescriptor }) + outputs.filter(\.isDescriptor) {
                try output.publish()
                guard !output.isDescriptor else { continue }
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

    package func discard() {
        for output in outputs { output.discard() }
    }
}

extension OutputTransaction {
    /// Every page stays open (as a hidden temporary file) until the all-or-nothing commit, so thousands of
    /// pages need thousands of descriptors: raise the soft limit towards the hard one, or refuse up front.
    package static func ensureOpenFiles(_ outputs: Int, for path: String) throws {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        let needed = rlim_t(outputs + 64)
        guard limit.rlim_cur < needed else { return }
        if limit.rlim_max >= needed {
            limit.rlim_cur = needed
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 { return }
        }
        throw OutputError(
            path: path,
            reason: "\(outputs) output files would be open at once (limit \(limit.rlim_max))",
            failure: .cannotCreateOutput, kind: .tooManyOpenFiles)
    }
}

/// Writes all of `bytes` to `output`'s temporary file, or throws the failure named after its target.
package func writeAll<Bytes: Sequence<UInt8>>(_ bytes: Bytes, to output: AtomicOutput) throws {
    do throws(Errno) {
        try POSIXFiles.writeAll(output.descriptor!, bytes)
    } catch {
        throw OutputError.writing(output.displayPath, errno: error.rawValue)
    }
}
