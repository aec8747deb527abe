import GifxKit

/// The exit codes gifx uses (design.md, "Exit codes"): sysexits(3) for failures, 128 + signal for stops.
/// The library classifies its errors (`FailureClass`); only the CLI turns a class into a number.
enum ExitStatus {
    /// An output was read back and does not show the GIF (`gifx verify`, `--verify`): like cmp(1) and diff(1),
    /// 1 says "checked, and different", apart from every sysexits failure to run at all.
    static let verificationFailed: Int32 = 1
    static let usage: Int32 = 64        // EX_USAGE
    static let dataError: Int32 = 65    // EX_DATAERR
    static let noInput: Int32 = 66      // EX_NOINPUT
    static let software: Int32 = 70     // EX_SOFTWARE
    static let cannotCreate: Int32 = 73 // EX_CANTCREAT
    static let ioError: Int32 = 74      // EX_IOERR
    /// The memory budget is too small for the GIF and outputs asked (the message names the smallest that works).
    static let budgetTooSmall: Int32 = 78 // EX_CONFIG
    /// The reader of standard output went away (EPIPE; `-o -` into `head`, say): what a filter killed by
    /// SIGPIPE reports (128 + 13), without the signal, so gifx removes its temporaries first and prints nothing.
    static let outputClosed: Int32 = 141
    static let interrupted: Int32 = 130
    static let terminated: Int32 = 143

    /// The sysexits code of a library failure class.
    static func code(for failure: FailureClass) -> Int32 {
        switch failure {
        case .usage: return usage
        case .malformedData: return dataError
        case .cannotOpenInput: return noInput
        case .internalError: return software
        case .cannotCreateOutput: return cannotCreate
        case .io: return ioError
        case .verificationFailed: return verificationFailed
        case .budgetTooSmall: return budgetTooSmall
        case .outputClosed: return outputClosed
        }
    }
}

extension GifxError {
    /// The sysexits code the CLI exits with for this error.
    var exitCode: Int32 { ExitStatus.code(for: failureClass) }
}
