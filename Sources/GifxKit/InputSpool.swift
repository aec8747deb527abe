import Foundation
import GifxEncoders
import GifxFrames
import GifxPOSIXFiles
import GifxPipeline
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// A readable path for a `GifInput`: the file itself, or a private temporary copy (mode 0600) of a
/// descriptor's data or of in-memory bytes. The copy exists for exactly the duration of the body it is
/// lent to and is removed when the body returns or throws: no object's release decides when, so it cannot
/// go before the last read. It is registered with `TemporaryFiles` meanwhile, so a program that cleans up
/// on a signal removes it too.
package enum InputSpool {
    /// Runs `body` with a readable path for `input`. Throws `GifDecodeError` (`.io`) when the copy fails.
    package static func withPath<Result>(
        _ input: GifInput, scratchFolder: String, _ body: (_ path: String) throws -> Result
    ) throws -> Result {
        let path: String
        switch input {
        case .path(let path): return try body(path)
        case .fileDescriptor(let descriptor): path = try copy(from: FileDescriptor(rawValue: descriptor), into: scratchFolder)
        case .bytes(let data): path = try copy(into: scratchFolder) { try write(data, to: $0) }
        }
        defer {
            // Removed, then forgotten: a signal in between finds it still registered and only unlinks again.
            unlink(path)
            TemporaryFiles.shared.unregister(path)
        }
        return try body(path)
    }

    /// Copies everything `source` gives until its end.
    private static func copy(from source: FileDescriptor, into folder: String) throws -> String {
        try copy(into: folder) { file in
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count: Int
                do {
                    count = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
                } catch {
                    throw GifDecodeError(.io, at: nil, "reading the input: \(error)")
                }
                if count == 0 { return }
                try write(buffer[..<count], to: file)
            }
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
