/// Why a GIF could not be read, classified so the CLI can pick its sysexits code.
/// `description` is one line without the file name (the CLI prefixes it).
public struct GifDecodeError: ToolError, Equatable, Sendable {
    /// What went wrong, which decides the exit code.
    public enum Kind: String, Sendable {
        /// The input file could not be opened (66).
        case cannotOpen
        /// The data is not a valid GIF, or something giflib refuses (65).
        case malformed
        /// The data ends before it should (65).
        case truncated
        /// A canvas or frame beyond `DecodeLimits` (65).
        case tooLarge
        /// Reading failed for a reason other than the data (74).
        case io
    }

    public var kind: Kind
    /// Offset in the file of the first byte not yet consumed when the error was found, when known.
    public var byteOffset: Int?
    /// What happened, e.g. giflib's `GifErrorString` text.
    public var reason: String

    public init(_ kind: Kind, at byteOffset: Int?, _ reason: String) {
        self.kind = kind; self.byteOffset = byteOffset; self.reason = reason
    }

    public var failureClass: FailureClass {
        switch kind {
        case .cannotOpen: return .cannotOpenInput
        case .malformed, .truncated, .tooLarge: return .malformedData
        case .io: return .io
        }
    }

    public var description: String {
        let place = byteOffset.map { " at byte \($0)" } ?? ""
        switch kind {
        case .cannotOpen: return "cannot open: \(reason)"
        case .malformed: return "malformed GIF\(place): \(reason)"
        case .truncated: return "truncated GIF\(place): \(reason)"
        case .tooLarge: return "GIF too large\(place): \(reason)"
        case .io: return "read error\(place): \(reason)"
        }
    }
}
