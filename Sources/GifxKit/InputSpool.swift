import Foundation
import GifxEncoders
import GifxFrames
import GifxPOSIXFiles
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// A readable path for a `GifInput`: the file itself, or a private temporary copy (mode 0600) of a
/// descriptor's or of in-memory bytes, removed when the spool is released. The copy is registered with
/// `TemporaryFiles`, so a program that cleans up on a signal removes it too. Keep the spool alive for as
/// long as its path is in use.
public final class InputSpool: Sendable {
    /// The file to read.
    public let path: String
    private let isCopy: Bool

    /// Spools `input` when it is not a path. Throws `GifDecodeError` (`.io`) when the copy fails.
    public init(_ input: GifInput, temporaryFolder: String = NSTemporaryDirectory()) throws {
        switch input {
        case .path(let path):
            self.path = path
            isCopy = false
        case .fileDescriptor(let descriptor):
            path = try Self.copy(into: temporaryFolder) { file in
                var buffer = [UInt8](repeating: 0, count: 1 << 16)
                while true {
                    let count: Int
                    do {
                        count = try buffer.withUnsafeMutableBytes { try FileDescriptor(rawValue: descriptor).read(into: $0) }
                    } catch {
                        throw GifDecodeError(.io, at: nil, "reading the input: \(error)")
                    }
                    if count == 0 { return }
                    try Self.write(buffer[..<count], to: file)
                }
            }
            isCopy = true
        case .bytes(let data):
            path = try Self.copy(into: temporaryFolder) { try Self.write(data, to: $0) }
            isCopy = true
        }
    }

    deinit {
        if isCopy {
            unlink(path)
            TemporaryFiles.shared.unregister(path)
        }
    }

    private static func copy(into folder: String, _ fill: (FileDescriptor) throws -> Void) throws -> String {
        let file: (fd: FileDescriptor, path: String)
        switch POSIXFiles.makeUniqueFile(prefix: "\(folder)/gifx-input-", access: .ownerOnly) {
        case .success(let made): file = made
        case .failure(let error): throw GifDecodeError(.io, at: nil, "cannot spool the input: \(error)")
        }
        defer { try? file.fd.close() }
        TemporaryFiles.shared.register(file.path)
        do {
            try fill(file.fd)
        } catch {
            unlink(file.path)
            TemporaryFiles.shared.unregister(file.path)
            throw error
        }
        return file.path
    }

    private static func write<Bytes: Sequence<UInt8>>(_ bytes: Bytes, to file: FileDescriptor) throws {
        do throws(Errno) {
            try POSIXFiles.writeAll(file, bytes)
        } catch {
            throw GifDecodeError(.io, at: nil, "spooling the input: \(error)")
        }
    }
}
