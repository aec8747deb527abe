/// Where one output goes. A file is written under a hidden temporary name beside it and renamed over it only
/// once the whole conversion has succeeded; a descriptor (standard output, or one the caller opened: a pipe, a
/// socket) receives the bytes as they are encoded where the format streams (fragmented MP4, WebM), and otherwise
/// the whole file once it is complete, so a failed run sends nothing (docs/delivery.md).
public enum OutputTarget: Sendable, Hashable {
    /// A file at this path (a path `-` is a file named `-`).
    case file(String)
    /// The process's standard output.
    case standardOutput
    /// An open descriptor the caller owns: gifx writes to it and never closes it.
    case fileDescriptor(Int32)

    /// The command-line spelling: `-` is standard output, as in every Unix tool; anything else is a file.
    package init(commandLine argument: String) {
        self = argument == StandardOutput.target ? .standardOutput : .file(argument)
    }

    /// The descriptor the bytes go to (standard output's is 1); `nil` for a file.
    package var descriptor: Int32? {
        switch self {
        case .file: nil
        case .standardOutput: 1
        case .fileDescriptor(let fd): fd
        }
    }

    /// The target as results and statistics record it: the path, `-` for standard output, `fd:N` for a descriptor.
    package var name: String {
        switch self {
        case .file(let path): path
        case .standardOutput: StandardOutput.target
        case .fileDescriptor(let fd): "fd:\(fd)"
        }
    }

    /// How errors name it: the path, `<stdout>`, or `<fd N>`.
    package var displayName: String {
        switch self {
        case .file(let path): path
        case .standardOutput: StandardOutput.displayName
        case .fileDescriptor(let fd): "<fd \(fd)>"
        }
    }
}
