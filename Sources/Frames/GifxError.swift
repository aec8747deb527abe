/// Whose fault a failure is: the library's classification of every error it throws. The library never
/// exits; a program using it decides what each class means (the gifx CLI maps each to an exit status).
public enum FailureClass: String, Sendable, CaseIterable {
    /// The request cannot be satisfied as asked (a size beyond the encoder, a cell wider than the sheet).
    case usage
    /// The GIF is not valid, or is beyond the decoder's limits.
    case malformedData
    /// The input could not be opened.
    case cannotOpenInput
    /// A failure of gifx or of its libraries.
    case internalError
    /// An output could not be created (exists, permissions, read-only folder).
    case cannotCreateOutput
    /// Reading or writing failed (disk full, I/O error, file-size limit).
    case io
    /// An output was read back and does not show the GIF within the tolerances (`Verifier`, `RunSettings.verify`).
    case verificationFailed
    /// The memory budget cannot hold even the leanest settings for this GIF and these outputs
    /// (`MemoryBudgetTooSmall` names the smallest that can); retrying with the same budget fails the same way.
    case budgetTooSmall
    /// The reader of a piped output went away (EPIPE): nothing more can be delivered, and no file was left.
    case outputClosed
}

/// An error the library throws: one line of text without the file name (the caller prefixes it) and
/// without command-line syntax, a `FailureClass`, the file it is about when it is not the input, and the
/// input's byte offset where the failure has one.
public protocol GifxError: Error, CustomStringConvertible {
    /// Whose fault the failure is.
    var failureClass: FailureClass { get }
    /// The file the error is about, when it is not the conversion's input (an output path, say).
    var subjectPath: String? { get }
    /// The offset in the input GIF where the failure was found, when it is about the input's bytes.
    var inputByteOffset: Int? { get }
}

extension GifxError {
    public var subjectPath: String? { nil }
    public var inputByteOffset: Int? { nil }
}
