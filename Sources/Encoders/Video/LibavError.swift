internal import CAV
import GifxFrames

#if canImport(Glibc)
import Glibc
#endif

/// A libav call that failed, reported as one line with libav's own text (`av_strerror`) and a failure
/// class that says whose fault it is: a full disk or I/O failure is `io`, an unwritable output
/// `cannotCreateOutput`, anything else in the encoder `internalError`.
package struct LibavError: GifxError {
    /// What gifx was doing, e.g. "opening the libx264 encoder".
    package let operation: String
    /// libav's error code (a negative AVERROR), or 0 when the failure has no code.
    package let code: Int32
    package let failureClass: FailureClass
    package let subjectPath: String?

    package var description: String {
        code == 0 ? operation : "\(operation): \(Self.text(for: code))"
    }

    init(_ operation: String, code: Int32 = 0, failure: FailureClass? = nil, path: String? = nil) {
        self.operation = operation
        self.code = code
        self.subjectPath = path
        self.failureClass = failure ?? Self.failureClass(for: code)
    }

    /// The same failure named after `path`: users asked for the target, not the hidden temporary file.
    package func naming(_ path: String) -> LibavError {
        LibavError(operation, code: code, failure: failureClass, path: path)
    }

    /// libav's message for an AVERROR code.
    static func text(for code: Int32) -> String {
        guard Libav.isLoaded else { return "libav error \(code)" }
        var buffer = [CChar](repeating: 0, count: 256)
        if gifx_av_strerror(code, &buffer, buffer.count) < 0 { return "libav error \(code)" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Disk full, I/O errors and quota are the environment's fault (`io`); a pipe's reader gone `outputClosed`;
    /// permissions `cannotCreateOutput`;
    /// the rest is ours (`internalError`).
    static func failureClass(for code: Int32) -> FailureClass {
        if code == gifx_averror(EPIPE) { return .outputClosed }
        for errnoCode in [ENOSPC, EIO, EDQUOT, EFBIG] where code == gifx_averror(errnoCode) {
            return .io
        }
        for errnoCode in [EACCES, EROFS, ENOENT, EPERM] where code == gifx_averror(errnoCode) {
            return .cannotCreateOutput
        }
        return .internalError
    }
}

/// Throws `LibavError` when a libav call returned a negative code.
@discardableResult
func check(_ result: Int32, _ operation: @autoclosure () -> String, path: String? = nil) throws -> Int32 {
    if result < 0 { throw LibavError(operation(), code: result, path: path) }
    return result
}
