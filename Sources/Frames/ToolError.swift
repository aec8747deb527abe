/// An error the CLI can report as one line with a sysexits code.
public protocol ToolError: Error, CustomStringConvertible {
    /// sysexits code: 65 malformed data, 66 cannot open input, 73 cannot create output, 74 I/O error, 70 internal.
    var exitCode: Int32 { get }
    /// The file the error is about, when it is not the command's input (an output path, say).
    var subjectPath: String? { get }
}

extension ToolError {
    public var subjectPath: String? { nil }
}

/// The sysexits codes gifx uses (design.md, "Exit codes").
public enum ExitStatus {
    public static let usage: Int32 = 64
    public static let dataError: Int32 = 65
    public static let noInput: Int32 = 66
    public static let software: Int32 = 70
    public static let cannotCreate: Int32 = 73
    public static let ioError: Int32 = 74
    public static let interrupted: Int32 = 130
    public static let terminated: Int32 = 143
}
