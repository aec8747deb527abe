import GifxTimeline

/// Why a GIF could not be read, classified by whose fault it is (`failureClass`).
/// `description` is one line without the file name (the CLI prefixes it).
public struct GifDecodeError: GifxError, Equatable, Sendable {
    /// What went wrong, which decides the failure class.
    public enum Kind: String, Sendable {
        /// The input file could not be opened (`cannotOpenInput`).
        case cannotOpen
        /// The data is not a valid GIF, or something giflib refuses (`malformedData`).
        case malformed
        /// The data ends before it should (`malformedData`).
        case truncated
        /// A canvas or frame beyond `DecodeLimits` (`malformedData`).
        case tooLarge
        /// Reading failed for a reason other than the data (`io`).
        case io
    }

    public var kind: Kind
    /// Offset in the file of the first byte not yet consumed when the error was found, when known.
    public var byteOffset: Int?
    /// What happened, e.g. giflib's `GifErrorString` text.
    public var reason: String
    /// The container being read (the messages name it: "malformed WebP at byte …").
    public var format: SourceFormat = .gif

    public init(_ kind: Kind, at byteOffset: Int?, _ reason: String, format: SourceFormat = .gif) {
        self.kind = kind; self.byteOffset = byteOffset; self.reason = reason; self.format = format
    }

    public var inputByteOffset: Int? { kind == .cannotOpen ? nil : byteOffset }

    public var failureClass: FailureClass {
        switch kind {
        case .cannotOpen: return .cannotOpenInput
        case .malformed, .truncated, .tooLarge: return .malformedData
        case .io: return .io
        }
    }

    public var description: String {
        let place = byteOffset.map { " at byte \($0)" } ?? ""
        let name = format.displayName
        switch kind {
        case .cannotOpen: return "cannot open: \(reason)"
        case .malformed: return "malformed \(name)\(place): \(reason)"
        case .truncated: return "truncated \(name)\(place): \(reason)"
        case .tooLarge: return "\(name) too large\(place): \(reason)"
        case .io: return "read error\(place): \(reason)"
        }
    }
}
