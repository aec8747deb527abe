/// Whose fault a failure is, the library's classification of every error it throws. The raw values are
/// the sysexits(3) codes the CLI exits with (design.md, "Exit codes"); the library itself never exits.
public enum FailureClass: Int32, Sendable {
    /// The request cannot be satisfied as asked (a size beyond the encoder, a cell wider than the sheet).
    case usage = 64
    /// The GIF is not valid, or is beyond the decoder's limits.
    case malformedData = 65
    /// The input could not be opened.
    case cannotOpenInput = 66
    /// A failure of gifx or of its libraries.
    case internalError = 70
    /// An output could not be created (exists, permissions, read-only folder).
    case cannotCreateOutput = 73
    /// Reading or writing failed (disk full, I/O error, file-size limit).
    case io = 74
}

/// An error the library throws: one line of text without the file name (the caller prefixes it) and
/// without command-line syntax, a `FailureClass`, and the file it is about when it is not the input.
public protocol ToolError: Error, CustomStringConvertible {
    var failureClass: FailureClass { get }
    /// The file the error is about, when it is not the command's input (an output path, say).
    var subjectPath: String? { get }
}

extension ToolError {
    public var subjectPath: String? { nil }
    /// The sysexits code of `failureClass`.
    public var exitCode: Int32 { failureClass.rawValue }
}
