import Foundation

/// Where a GIF comes from. The decoder reads its input more than once (the structure, then the pixels of
/// every pass), so a descriptor or bytes are first copied to a private temporary file (`InputSpool`).
public enum GifInput: Sendable {
    /// A file on disk, read in place.
    case path(String)
    /// An open descriptor (a pipe, a socket, standard input) read to its end; it is not closed.
    case fileDescriptor(Int32)
    /// The GIF's bytes in memory.
    case bytes(Data)
}
