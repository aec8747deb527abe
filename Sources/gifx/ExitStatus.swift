import Frames

/// The exit codes gifx uses (design.md, "Exit codes"): sysexits(3) for failures, 128 + signal for stops.
enum ExitStatus {
    static let usage = FailureClass.usage.rawValue
    static let dataError = FailureClass.malformedData.rawValue
    static let noInput = FailureClass.cannotOpenInput.rawValue
    static let software = FailureClass.internalError.rawValue
    static let cannotCreate = FailureClass.cannotCreateOutput.rawValue
    static let ioError = FailureClass.io.rawValue
    static let interrupted: Int32 = 130
    static let terminated: Int32 = 143
}
